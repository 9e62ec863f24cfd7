"""How long a user waits for a figure answer -> reports/benchmarks.json (section "ask").

Over the first ``--n`` (20) of FinanceBench's metrics-generated figure questions, standard
condition (no document given: the method routes or searches the whole corpus), for each
method (fingap best and ``bm25``, side by side in one run):

- ``process_median_s``: the median wall time of one ``fingap ask "<question>"`` process, from
  start to the printed answer (Python start, imports, loading, retrieval, answer);
- ``per_question_median_s``: the median time per question inside one process once everything
  is loaded, as in ``fingap ask --questions FILE``: retrieval of that question's pages, then the
  answer agent (the bar is 3 s). Loading (page texts, chunks, models, the first question's
  lazy loads) is timed apart as ``load_s``, with one warm-up question.

Needs the outputs of `dvc repro` for the methods measured.

    python benchmarks/bench_ask.py [--n 20] [--methods fingap_best bm25]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from fingap.answers.fact_store import FactStore
from fingap.core.io import read_jsonl, update_json_section
from fingap.evaluation.scoring import METRICS_GENERATED
from fingap.ingestion.extract import read_page_texts
from fingap.steps import adhoc
from fingap.steps.ask import FACTS, PAGES, PageRetriever, SharedLLM, answer_agent

ROOT = Path(__file__).resolve().parents[1]


def figure_questions(n: int) -> list[dict]:
    rows = [q for q in read_jsonl(ROOT / "data/corpus/questions.jsonl")
            if q["status"] == "evaluated" and q["question_type"] == METRICS_GENERATED]
    return sorted(rows, key=lambda q: q["id"])[:n]


def in_process(method: str, questions: list[dict], k: int) -> dict:
    t0 = time.perf_counter()
    texts = read_page_texts(ROOT / PAGES)
    retriever = PageRetriever(method)
    times, verified = [], 0
    with FactStore(ROOT / FACTS) as store, ExitStack() as stack:
        agent, llm = answer_agent(texts, store), SharedLLM(stack)
        for i, q in enumerate([questions[0], *questions]):
            t = time.perf_counter()
            aq = adhoc.AdHocQuestion(q["id"], q["question"], None)
            pages, _ = retriever.pages([aq], k, "standard")
            rec = agent.answer(q["id"], q["question"], pages[q["id"]],
                               llm.answer(q["question"], pages[q["id"]], texts))
            if i == 0:
                load = time.perf_counter() - t0     # the warm-up question's lazy loads included
                continue
            times.append(time.perf_counter() - t)
            verified += bool(rec.verified)
    return {"load_s": round(load, 2),
            "per_question_median_s": round(statistics.median(times), 3),
            "per_question_max_s": round(max(times), 3), "verified": verified}


def per_process(method: str, questions: list[dict]) -> dict:
    times = []
    for q in questions:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fingap.cli", "ask", q["question"],
                        "--method", method], cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return {"process_median_s": round(statistics.median(times), 2),
            "process_max_s": round(max(times), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--methods", nargs="+", default=["fingap_best", "bm25"])
    args = parser.parse_args()
    questions = figure_questions(args.n)
    out: dict = {"n_questions": len(questions), "condition": "standard",
                 "per_question_bound_s": 3.0, "methods": {}}
    for method in args.methods:
        out["methods"][method] = in_process(method, questions, args.k) | \
            per_process(method, questions)
        print(method, json.dumps(out["methods"][method]))
    update_json_section(ROOT / "reports/benchmarks.json", "ask", out)


if __name__ == "__main__":
    main()
