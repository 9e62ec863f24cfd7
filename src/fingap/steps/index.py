"""Stage ``index@{bm25,dense,splade}``: a chunk index per method (the dense one with its
chunks' embedder windows, the parent-child children, under ``windows/``)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..core.io import read_jsonl, write_json
from ..core.params import ParamError, require_choice, require_int
from ..retrieval.loading import make_encoder
from ..retrieval.parent_child import WINDOW_SEP

log = logging.getLogger("fingap")


def run_index(method: str, params: dict, chunks_path: Path, out_dir: Path,
              cache_path: Path | None = None) -> dict:
    chunks = read_jsonl(chunks_path)
    ids, texts = [c["chunk_id"] for c in chunks], [c["text"] for c in chunks]
    t0 = time.perf_counter()
    if method == "bm25":
        from ..retrieval.bm25 import BACKENDS, BM25Retriever

        backend = require_choice(params, "bm25", "backend", BACKENDS)
        retriever = BM25Retriever.from_texts(ids, texts, backend=backend,
                                             k1=float(params["k1"]), b=float(params["b"]))
        retriever.save(out_dir)
        stats = {}
    elif method == "dense":
        from ..retrieval.dense import DenseRetriever

        encoder = make_encoder(params, cache_path)
        if params.get("long_text", "mean_pool") == "mean_pool":
            vectors, windows = encoder.encode_with_windows(texts, desc="chunks")
            # the children of parent-child retrieval: each chunk's embedder windows, as
            # embedded for its own vector (no second pass); a window's id names its chunk
            DenseRetriever([f"{cid}{WINDOW_SEP}{j}" for cid, w in zip(ids, windows, strict=True)
                            for j in range(len(w))],
                           np.concatenate(windows) if windows else vectors).save(
                out_dir / "windows")
        else:
            vectors = encoder.encode(texts, desc="chunks")
        DenseRetriever(ids, vectors, encoder).save(out_dir)
        stats = dict(encoder.stats)
    elif method == "splade":
        from .index import run_splade_index

        stats = run_splade_index(params, chunks_path, out_dir)
    else:
        raise ParamError(f"unknown index method {method!r}; expected bm25, dense or splade")
    stats.update(method=method, n_chunks=len(ids), seconds=round(time.perf_counter() - t0, 2))
    log.info("index %s: %s", method, stats)
    return stats


# ---------------------------------------------------------------- SPLADE index
def run_splade_index(params: dict, chunks_path: Path, out_dir: Path) -> dict:
    from ..retrieval.splade import SpladeEncoder, SpladeRetriever

    top_terms = require_int(params, "splade", "top_terms", minimum=1)
    chunks = read_jsonl(chunks_path)
    enc = SpladeEncoder(params["model"], max_length=require_int(params, "splade", "max_length", 8),
                        batch_size=int(params.get("batch_size", 32)),
                        precision=params.get("precision", "fp32"))
    t0 = time.perf_counter()
    docs = enc.encode([c["text"] for c in chunks], top_terms=top_terms, show_progress=True)
    seconds = time.perf_counter() - t0
    SpladeRetriever([c["chunk_id"] for c in chunks], docs, None).save(out_dir)
    stats = {"n_chunks": len(chunks), "nnz": int(docs.nnz),
             "index_bytes": int(docs.data.nbytes + docs.indices.nbytes + docs.indptr.nbytes)}
    write_json(out_dir / "stats.json", stats)  # no wall time: the same bytes on every run
    return dict(stats, seconds=round(seconds, 1), texts_per_s=round(len(chunks) / seconds, 2))
