"""Stage ``retrieve@{bm25,dense}``: top-k chunks per question under each condition."""

from __future__ import annotations

import logging
from pathlib import Path

from ..core.io import read_jsonl
from ..core.params import ParamError, require_int
from ..core.runs import write_run
from ..ingestion import corpus as corpus_mod
from ..ingestion.corpus import read_questions
from ..retrieval.conditions import CONDITIONS, allowed_rows
from ..retrieval.loading import load_retriever

log = logging.getLogger("fingap")


# ---------------------------------------------------------------- retrieve
def validate_retrieve(params: dict) -> tuple[int, list[str]]:
    k = require_int(params, "retrieve", "k", minimum=1)
    conditions = params.get("conditions", list(CONDITIONS))
    bad = [c for c in conditions if c not in CONDITIONS]
    if bad:
        raise ParamError(f"retrieve.conditions: unknown {bad}; expected some of {CONDITIONS}")
    return k, list(conditions)


def run_retrieve(method: str, params: dict, method_params: dict, corpus_out: Path,
                 chunks_path: Path, index_dir: Path, out_dir: Path,
                 cache_path: Path | None = None) -> None:
    k, conditions = validate_retrieve(params)
    questions = corpus_mod.served(read_questions(corpus_out))
    chunks = read_jsonl(chunks_path)
    retriever = load_retriever(method, method_params, index_dir, cache_path, params)
    if retriever.ids != [c["chunk_id"] for c in chunks]:
        raise RuntimeError(f"index {index_dir} does not match {chunks_path}; rerun the index stage")
    queries = {q.id: q.question for q in questions}
    docs, pages = [c["doc"] for c in chunks], [c["page"] for c in chunks]
    for cond in conditions:
        allowed = allowed_rows(cond, questions, docs, pages)
        write_run(out_dir / f"{cond}.json", retriever.search(queries, k, allowed))
