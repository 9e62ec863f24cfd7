"""Foundation benchmarks -> reports/benchmarks.json (section "foundation").

- extraction pages/s (PyMuPDF over a fixed set of PDFs of the corpus)
- BM25 ms/query, bm25s vs rank-bm25, same chunks and the same 129 questions, plus top-5 overlap
- dense encode texts/s: the pipeline's TextEncoder (windows + pooling, cache off) vs the bare
  ``model.encode`` on the same texts, in the same run
- wall time of each stage of the last `dvc repro` (from reports/timings/)

Run from the repository root after `dvc repro`: ``python benchmarks/bench_foundation.py``.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np

from fingap.core.io import read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.core.timings import read_records
from fingap.ingestion.corpus import PDF_DIR, STATUS_EVALUATED, locate_corpus, read_questions
from fingap.ingestion.extract import extract_pdf
from fingap.retrieval.bm25 import BM25Retriever
from fingap.retrieval.loading import make_encoder

OUT = Path("reports/benchmarks.json")


def bench_extract(corpus_dir: Path, n_docs: int = 10) -> dict:
    pdfs = sorted((corpus_dir / PDF_DIR).glob("*.pdf"))[:n_docs]
    t0 = time.perf_counter()
    n = sum(len(extract_pdf(p)[0]) for p in pdfs)
    dt = time.perf_counter() - t0
    return {"n_docs": len(pdfs), "n_pages": n, "seconds": round(dt, 3),
            "pages_per_s": round(n / dt, 1)}


def bench_bm25(index_dir: Path, queries: list[str], k: int = 5) -> dict:
    out = {}
    tops = {}
    for backend in ("bm25s", "rank_bm25"):
        t0 = time.perf_counter()
        r = BM25Retriever.load(index_dir, backend=backend)
        build = time.perf_counter() - t0
        qs = {f"q{i:03d}": q for i, q in enumerate(queries)}
        t0 = time.perf_counter()
        run = r.search(qs, k)
        dt = time.perf_counter() - t0
        tops[backend] = run
        out[backend] = {"index_build_s": round(build, 2),
                        "ms_per_query": round(1000 * dt / len(qs), 3)}
    a, b = tops["bm25s"], tops["rank_bm25"]
    overlap = np.mean([len({c for c, _ in a[q]} & {c for c, _ in b[q]}) / k for q in a])
    out["speedup_bm25s_vs_rank_bm25"] = round(out["rank_bm25"]["ms_per_query"]
                                              / out["bm25s"]["ms_per_query"], 1)
    out["top5_overlap"] = round(float(overlap), 3)
    out["n_queries"] = len(queries)
    return out


def bench_encode(dense_params: dict, texts: list[str]) -> dict:
    enc = make_encoder(dense_params, cache_path=None, show_progress=False)
    model = enc.model
    t0 = time.perf_counter()
    enc.encode(texts)
    pipeline = time.perf_counter() - t0
    # the bare forward pass on exactly the windows the pipeline encoded (same precision)
    pieces = [w for t in texts for w in enc.split_long(t)]
    t0 = time.perf_counter()
    enc.encode_raw(pieces)
    bare = time.perf_counter() - t0
    # the bare model.encode on the whole texts (truncating at max_seq_length), for reference
    t0 = time.perf_counter()
    model.encode(texts, batch_size=enc.batch_size, normalize_embeddings=True)
    plain = time.perf_counter() - t0
    return {
        "n_texts": len(texts), "n_windows": len(pieces), "precision": enc.precision,
        "long_text": enc.long_text, "max_seq_length": enc.max_seq_length,
        "pipeline_texts_per_s": round(len(texts) / pipeline, 2),
        "bare_forward_same_windows_texts_per_s": round(len(texts) / bare, 2),
        "pipeline_overhead_ratio": round(pipeline / bare, 3),
        "bare_model_encode_truncated_fp32_texts_per_s": round(len(texts) / plain, 2),
    }


def stage_times() -> dict:
    return {name: r["seconds"] for name, r in read_records().items()}


def main() -> None:
    params = load_params()
    corpus_dir = locate_corpus(params["corpus"].get("dir") or None)
    questions = [q.question for q in read_questions(Path("data/corpus"))
                 if q.status == STATUS_EVALUATED]
    chunks = read_jsonl("data/chunks/chunks.jsonl")
    rng = np.random.default_rng(0)
    sample = [chunks[i]["text"] for i in sorted(rng.choice(len(chunks), 128, replace=False))]
    result = {
        "machine": {"platform": platform.platform(), "processor": platform.processor(),
                    "cpus": __import__("os").cpu_count()},
        "extract": bench_extract(corpus_dir),
        "bm25": bench_bm25(Path("data/indexes/bm25"), questions),
        "dense_encode": bench_encode(params["dense"], sample),
        "stage_wall_s": stage_times(),
    }
    update_json_section(OUT, "foundation", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
