"""Answer-path benchmarks -> reports/benchmarks.json (section "answers").

- ``tables``: the statement-table stage over the whole corpus (PyMuPDF words, facts, the SQLite
  store), pages/s; the acceptance bound is 10 minutes on the 2 cores;
- ``answer``: the answer stage over every run of ``generate.runs`` (129 questions each) and the
  project's own question sets, once the fact store is built, seconds; the bound is 2 minutes,
  LLM calls counted apart (this stage makes none: it reuses the `generate` stage's answers).
Both are the real step functions on the real inputs of the last `dvc repro`, written to a
temporary folder, so nothing of the pipeline's outputs is touched.

    python benchmarks/bench_answers.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from fingap.core.io import read_json, update_json_section
from fingap.core.params import load_params, section
from fingap.steps.answer import OWN_SETS, run_answer
from fingap.steps.tables import run_tables

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    params = load_params(ROOT / "params.yaml")
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        rep = run_tables(section(params, "corpus"), ROOT / "data/corpus",
                         ROOT / "data/pages/pages.jsonl", tmp / "facts", tmp / "tables.json",
                         root=ROOT)
        seconds = time.perf_counter() - t0
        out["tables"] = {"seconds": round(seconds, 1), "n_pages": rep["n_pages"],
                         "pages_per_second": round(rep["n_pages"] / seconds, 1),
                         "n_facts": rep["n_facts"], "bound_seconds": 600}
        t0 = time.perf_counter()
        run_answer(section(params, "answer"), section(params, "generate"),
                   ROOT / "data/corpus/questions.jsonl", ROOT / "data/pages/pages.jsonl",
                   tmp / "facts/facts.sqlite", ROOT / "reports/per_question",
                   ROOT / "annotations/numeric_inputs.jsonl",
                   {n: ROOT / f"annotations/{n}_questions.jsonl" for n in OWN_SETS},
                   tmp / "answers", tmp / "answers.json")
        seconds = time.perf_counter() - t0
        report = read_json(tmp / "answers.json")
        n_runs = sum(len(c) for c in report["runs"].values())
        out["answer"] = {"seconds": round(seconds, 1), "runs": n_runs,
                         "questions_per_run": report["runs"]["dense"]["standard"]["n"],
                         "llm_calls": 0, "bound_seconds": 120}
    update_json_section(ROOT / "reports/benchmarks.json", "answers", out)
    print(out)


if __name__ == "__main__":
    main()
