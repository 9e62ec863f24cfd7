"""HyDE and Multi-HyDE in the pipeline: the generation stage (LLM texts per question) and the
retrieval side (those texts embedded with the chunk encoder and used as dense queries).

The ``hyde`` stage writes ``data/hyde/hyde.jsonl`` (one passage per question) and
``data/hyde/multi_hyde.jsonl`` (N sub-queries and N passages per question). The retrieval rows
(``retrieve_zoo@hyde`` etc.) read them; they never call the LLM.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..core.io import read_jsonl, write_json, write_jsonl
from ..core.params import ParamError, require_choice, require_int
from ..generation.hyde import hyde_for_questions, multi_hyde_for_questions
from ..generation.llm import open_llm
from ..ingestion.corpus import Question, served

log = logging.getLogger("fingap")

MULTI_HYDE_MODES = ("mean", "fuse")


def validate_hyde(params: dict) -> dict:
    """The ``hyde`` section, checked before any LLM call."""
    temperature = params.get("temperature")
    if not isinstance(temperature, int | float) or temperature < 0:
        raise ParamError(f"hyde.temperature must be a number >= 0, got {temperature!r}")
    return {
        "temperature": float(temperature),
        "max_new_tokens": require_int(params, "hyde", "max_new_tokens", minimum=1),
        "subquery_max_new_tokens": require_int(params, "hyde", "subquery_max_new_tokens",
                                               minimum=1),
        "seed": require_int(params, "hyde", "seed"),
        "n_subqueries": require_int(params, "hyde", "n_subqueries", minimum=1),
        "multi_hyde_mode": require_choice(params, "hyde", "multi_hyde_mode", MULTI_HYDE_MODES),
    }


def run_hyde(params: dict, questions_path: Path, out_dir: Path, cache_path: Path,
             report_path: Path) -> dict:
    """Generate HyDE and Multi-HyDE texts for every served question (cached on disk)."""
    hp = validate_hyde(params["hyde"])
    questions = [Question.from_dict(d) for d in read_jsonl(questions_path)]
    queries = {q.id: q.question for q in served(questions)}
    gen = {"seed": hp["seed"], "temperature": hp["temperature"],
           "max_new_tokens": hp["max_new_tokens"]}
    with open_llm(params["llm"], cache_path) as llm:
        t0 = time.perf_counter()
        hyde_errors: dict[str, str] = {}
        passages = hyde_for_questions(llm, queries, errors=hyde_errors, **gen)
        t_hyde = time.perf_counter() - t0
        multi_errors: dict[str, str] = {}
        multi = multi_hyde_for_questions(
            llm, queries, n=hp["n_subqueries"], errors=multi_errors,
            subquery_max_new_tokens=hp["subquery_max_new_tokens"], **gen)
        seconds = time.perf_counter() - t0
        stats = llm.stats
    write_jsonl(out_dir / "hyde.jsonl", (
        {"question_id": q, "question": queries[q], "passage": passages[q],
         "error": hyde_errors.get(q)} for q in sorted(queries)))
    write_jsonl(out_dir / "multi_hyde.jsonl", (
        {"question_id": q, "question": queries[q], "subqueries": multi[q].subqueries,
         "passages": multi[q].passages, "error": multi_errors.get(q)} for q in sorted(queries)))
    calls = stats.hits + stats.misses
    report = {
        "n_questions": len(queries),
        "hyde_failed": len(hyde_errors),
        "multi_hyde_failed": len(multi_errors),
        "llm_requests": calls,
        "llm_calls": stats.misses,  # requests that reached the model (cache misses)
        "cache_hit_rate": round(stats.hits / calls, 4) if calls else None,
        "seconds_hyde": round(t_hyde, 1),
        "seconds_total": round(seconds, 1),
        "llm": {k: params["llm"].get(k) for k in ("backend", "model", "precision")},
        **hp,
    }
    write_json(report_path, report)
    log.info("hyde: %s", report)
    return report


def _normalise(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-12)


def hyde_vectors(hyde_dir: Path, encoder, qids: list[str]) -> dict[str, np.ndarray]:
    """HyDE: the embedding of each question's hypothetical passage."""
    rows = {r["question_id"]: r for r in read_jsonl(hyde_dir / "hyde.jsonl")}
    _check_covered(rows, qids, hyde_dir / "hyde.jsonl")
    vecs = encoder.encode([rows[q]["passage"] for q in qids], desc="hyde passages")
    return dict(zip(qids, vecs, strict=True))


def multi_hyde_vectors(hyde_dir: Path, encoder, qids: list[str]) -> list[dict[str, np.ndarray]]:
    """Multi-HyDE: one ``{qid: vector}`` per passage slot (N of them)."""
    rows = {r["question_id"]: r for r in read_jsonl(hyde_dir / "multi_hyde.jsonl")}
    _check_covered(rows, qids, hyde_dir / "multi_hyde.jsonl")
    n = {len(rows[q]["passages"]) for q in qids}
    if len(n) != 1:
        raise ValueError(f"{hyde_dir / 'multi_hyde.jsonl'}: unequal passage counts {sorted(n)}")
    texts = [p for q in qids for p in rows[q]["passages"]]
    vecs = encoder.encode(texts, desc="multi-hyde passages").reshape(len(qids), n.pop(), -1)
    return [dict(zip(qids, vecs[:, i], strict=True)) for i in range(vecs.shape[1])]


def mean_vectors(slots: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The re-normalised mean of the N passage embeddings (the Kobeissi setting)."""
    return {q: _normalise(np.mean([s[q] for s in slots], axis=0)) for q in slots[0]}


def _check_covered(rows: dict, qids: list[str], path: Path) -> None:
    missing = sorted(set(qids) - set(rows))
    if missing:
        raise ValueError(f"{path}: no HyDE text for {len(missing)} questions, e.g. {missing[0]}; "
                         "rerun the hyde stage")
