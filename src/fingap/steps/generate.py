"""The generation stage: answers for selected runs, from their top-k chunks, with the paper's
prompt (fingap.generation.answering). Answers are scored by the evaluate stage.

Context budget: the paper feeds k whole 1024-token chunks to a 7B model on a GPU. On two CPU
cores a 5,000-token prompt costs the bundled 135M model ~10 s of prefill per question, so the
default keeps, from each chunk, the window of ``context_words_per_chunk`` words that shares the
most terms with the question (a query-focused excerpt; it never looks at the gold answer).
``context_words_per_chunk: null`` passes whole chunks, as in the paper.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from ..core.io import read_jsonl, write_json, write_jsonl
from ..core.params import ParamError, require_int
from ..core.runs import read_run
from ..core.text_tokens import tokenize
from ..generation.answering import count_errors, generate_answers
from ..generation.llm import open_llm
from ..ingestion.corpus import Question, served

log = logging.getLogger("fingap")

_WORD = re.compile(r"\S+")


def excerpt(text: str, query: str, max_words: int | None) -> str:
    """The ``max_words``-word window of ``text`` with the most query-term occurrences (earliest
    on ties), cut from the original text so line breaks and table rows survive."""
    if max_words is None:
        return text
    spans = [m.span() for m in _WORD.finditer(text)]
    if len(spans) <= max_words:
        return text
    terms = set(tokenize(query))
    hits = [1 if terms & set(tokenize(text[a:b])) else 0 for a, b in spans]
    best, best_start, window = -1, 0, sum(hits[:max_words])
    for start in range(len(spans) - max_words + 1):
        if start:
            window += hits[start + max_words - 1] - hits[start - 1]
        if window > best:
            best, best_start = window, start
    return text[spans[best_start][0]:spans[best_start + max_words - 1][1]]


def validate_generate(params: dict) -> dict:
    runs = params.get("runs")
    if not isinstance(runs, list) or not runs or not all(
            isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
            for r in runs):
        raise ParamError(f"generate.runs must be a non-empty list of [method, condition] pairs, "
                         f"got {runs!r}")
    words = params.get("context_words_per_chunk")
    if words is not None:
        words = require_int(params, "generate", "context_words_per_chunk", minimum=1)
    return {"runs": [tuple(r) for r in runs], "context_words_per_chunk": words,
            "max_new_tokens": require_int(params, "generate", "max_new_tokens", minimum=1),
            "k": require_int(params, "generate", "k", minimum=1)}


def run_generate(params: dict, questions_path: Path, chunks_path: Path, runs_dir: Path,
                 out_dir: Path, cache_path: Path, report_path: Path) -> dict:
    gp = validate_generate(params["generate"])
    questions = [Question.from_dict(d) for d in read_jsonl(questions_path)]
    queries = {q.id: q.question for q in served(questions)}
    run_paths = {}
    for method, cond in gp["runs"]:  # every run must exist before the first LLM call
        path = runs_dir / method / f"{cond}.json"
        if not path.exists():
            raise ParamError(f"generate.runs: no run file {path} for [{method}, {cond}]")
        run_paths[(method, cond)] = path
    texts = {c["chunk_id"]: c["text"] for c in read_jsonl(chunks_path)}
    report: dict = {"runs": {}, **{k: v for k, v in gp.items() if k != "runs"},
                    "llm": {k: params["llm"].get(k) for k in ("backend", "model", "precision")}}
    t_all = time.perf_counter()
    with open_llm(params["llm"], cache_path) as llm:
        for (method, cond), path in run_paths.items():
            run = read_run(path)
            chunk_ids = {q: [c for c, _ in run.get(q, [])[:gp["k"]]] for q in queries}
            contexts = {q: [excerpt(texts[c], queries[q], gp["context_words_per_chunk"])
                            for c in ids] for q, ids in chunk_ids.items()}
            before = llm.stats.misses
            t0 = time.perf_counter()
            answers = generate_answers(llm, queries, contexts, gp["max_new_tokens"])
            write_jsonl(out_dir / f"{method}__{cond}.jsonl", (
                {"question_id": q, "answer": answers[q]["answer"], "error": answers[q]["error"],
                 "chunk_ids": chunk_ids[q],
                 "context_words": sum(len(t.split()) for t in contexts[q])}
                for q in sorted(queries)))
            report["runs"][f"{method}__{cond}"] = {
                "n": len(answers), "failed": count_errors(answers),
                "llm_calls": llm.stats.misses - before,
                "seconds": round(time.perf_counter() - t0, 1)}
            log.info("generate %s/%s: %s", method, cond, report["runs"][f"{method}__{cond}"])
        calls = llm.stats.hits + llm.stats.misses
        report.update({"llm_requests": calls, "llm_calls": llm.stats.misses,
                       "cache_hit_rate": round(llm.stats.hits / calls, 4) if calls else None,
                       "seconds": round(time.perf_counter() - t_all, 1)})
    write_json(report_path, report)
    return report
