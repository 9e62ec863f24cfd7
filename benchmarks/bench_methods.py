"""Per-method retrieval benchmarks -> reports/benchmarks.json (section "methods").

For each first-stage retriever: index build time (from the last `dvc repro`'s stage timings),
single-query latency p50/p95 over the evaluated questions, and the index's memory. BM25 is
measured on both backends in the same run, with their DocRec@5/PageRec@5 on the same questions
("at equal recall"), so the speed ratio compares like with like.

Run from the repository root after `dvc repro`: ``python benchmarks/bench_methods.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from fingap.core.io import read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.core.timings import read_records
from fingap.evaluation.scoring import ChunkLookup, aggregate, score_run
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.retrieval.base import query_latency
from fingap.retrieval.bm25 import BM25Retriever
from fingap.steps.zoo import Context

OUT = Path("reports/benchmarks.json")


def _nbytes(r) -> int:
    if hasattr(r, "embeddings"):
        return int(r.embeddings.nbytes)
    if hasattr(r, "index") and hasattr(r.index, "data"):
        m = r.index
        return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)
    return 0


def main() -> None:
    params = load_params()
    questions = [q for q in read_questions(Path("data/corpus")) if q.status == STATUS_EVALUATED]
    texts = [q.question for q in questions]
    chunks = read_jsonl("data/chunks/chunks.jsonl")
    lookup = ChunkLookup.of_chunks(chunks)
    timings = {name: r["seconds"] for name, r in read_records().items()}
    result: dict = {}
    bm25_runs = {}
    for backend in ("bm25s", "rank_bm25"):
        r = BM25Retriever.load("data/indexes/bm25", backend=backend)
        lat = query_latency(r, texts, 5)
        run = r.search({q.id: q.question for q in questions}, 5)
        bm25_runs[backend] = run
        quality = aggregate(score_run(questions, run, lookup, 5), 5)
        result[f"bm25_{backend}"] = {**lat, "DocRec@5": round(quality["DocRec@5"], 4),
                                     "PageRec@5": round(quality["PageRec@5"], 4)}
    result["bm25_speedup_bm25s_vs_rank_bm25_p50"] = round(
        result["bm25_rank_bm25"]["p50_ms"] / result["bm25_bm25s"]["p50_ms"], 1)
    result["bm25_build_s"] = timings.get("index@bm25")
    ctx = Context(params)
    for name, stage in (("dense", "index@dense"), ("splade", "index@splade"),
                        ("parent_child", "index@dense")):  # the children: its windows
        try:
            r = ctx.retriever(name)
        except (FileNotFoundError, OSError) as e:
            result[name] = {"error": f"index not built: {e}"}
            continue
        r.search({"warm": texts[0]}, 5)  # load lazily-initialised parts first
        target = r.child if name == "parent_child" else r
        result[name] = {**query_latency(r, texts, 5), "index_bytes": _nbytes(target),
                        "build_s": timings.get(stage)}
    result["n_queries"] = len(texts)
    result["note"] = ("latency = one query per search call, p50/p95 over the evaluated "
                      "questions; BM25 tokenises the query; dense query embeddings come from the "
                      "embedding cache (data/cache) when a run already encoded them, so dense "
                      "latency is then the index search alone")
    update_json_section(OUT, "methods", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
