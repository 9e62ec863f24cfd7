"""Approximate search (fingap.retrieval.ann) against exact search, on the real corpus's indexes
and on an index of at least 1M distinct vectors (reports/benchmarks.json ``ann``).

Real corpus: the dense chunk index and the untrained page index of a built project, queried
with the evaluated questions. Each approximate setting is forced on (``exact_below: 0``; by
default these indexes are small enough to stay exact) and reports recall@100 of its top 100
against the exact top 100, and the median single-query time beside the exact search's, both
timed in the same run. The chosen setting also retrieves the dense run under the standard
condition, scored as evaluate scores it: PageRec@5 paired with the exact run. (The index
classes take the setting from ``retrieve.ann`` once it is wired into the stages; this measures
the search itself, on the vectors those stages store.)

Synthetic: every real chunk and page vector copied with Gaussian noise (each copy's cosine to
its source about 0.9) until there are ``--n`` distinct vectors, queried with the questions.

    python benchmarks/bench_ann.py --root . --n 1000000
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from fingap.core.io import update_json_section
from fingap.core.params import load_params
from fingap.retrieval.ann import AnnConfig, VectorSearch

ROOT = Path(__file__).resolve().parents[1]
K = 100


def exact_top(x: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    """Exact top-k rows, 16 queries at a time (bounded memory on a large index)."""
    exact = VectorSearch(x, AnnConfig(kind="exact"))
    return np.concatenate([exact.search(q[i:i + 16], k)[1] for i in range(0, len(q), 16)])


def median_ms(fn, queries: np.ndarray) -> float:
    times = []
    for v in queries:
        t0 = time.perf_counter()
        fn(v[None, :])
        times.append(1000 * (time.perf_counter() - t0))
    return round(statistics.median(times), 3)


def compare(x: np.ndarray, q: np.ndarray, settings: list[dict]) -> dict:
    """Recall@100 and median single-query time of each setting beside exact search."""
    import faiss

    truth = exact_top(x, q, K)
    exact = VectorSearch(x, AnnConfig(kind="exact"))
    exact_ms = median_ms(lambda v: exact.search(v, K), q)
    flat = faiss.IndexFlatIP(x.shape[1])  # the chunk index's exact search today
    flat.add(x)
    flat_ms = median_ms(lambda v: flat.search(v, K), q)
    out = {"n_vectors": len(x), "dim": int(x.shape[1]), "n_queries": len(q),
           "exact_ms": exact_ms, "exact_faiss_flat_ms": flat_ms, "settings": []}
    for s in settings:
        t0 = time.perf_counter()
        vs = VectorSearch(x, AnnConfig(exact_below=0, **s))
        build = time.perf_counter() - t0
        _, rows = vs.search(q, K)
        recall = float(np.mean([len(set(r.tolist()) & set(t.tolist())) / K
                                for r, t in zip(rows, truth, strict=True)]))
        ms = median_ms(lambda v, vs=vs: vs.search(v, K), q)
        lists = {} if s["kind"] == "hnsw" else {"nlist": s.get("nlist") or vs.cfg.lists_for(len(x))}
        out["settings"].append({**s, **lists,
                                "recall@100": round(recall, 4), "query_ms": ms,
                                "speedup": round(exact_ms / ms, 2),
                                "build_s": round(build, 1)})
        print(out["settings"][-1], flush=True)
    return out


def dense_parity(root: Path, q_chunks: np.ndarray, qids: list[str], k: int,
                 cfg: AnnConfig) -> dict:
    """The dense run (standard condition: every chunk) from exact and from approximate search
    over the chunk index, scored as evaluate scores it: PageRec@k paired question by question."""
    import json

    from fingap.core.io import read_jsonl
    from fingap.core.runs import top_k
    from fingap.evaluation.scoring import ChunkLookup, score_run
    from fingap.evaluation.stats import paired_bootstrap
    from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions

    questions = [q for q in read_questions(root / "data/corpus") if q.status == STATUS_EVALUATED]
    lookup = ChunkLookup.of_chunks(read_jsonl(root / "data/chunks/chunks.jsonl"))
    ids = json.loads((root / "data/indexes/dense/ids.json").read_text())
    x = np.load(root / "data/indexes/dense/embeddings.npy").astype(np.float32)
    recs = {}
    for name, c in (("exact", AnnConfig(kind="exact")), ("approximate", cfg)):
        scores, rows = VectorSearch(x, c).search(q_chunks, k + 8)  # + ties at the cut
        run = {qid: top_k((ids[i] for i in r if i >= 0), s[r >= 0], k)
               for qid, s, r in zip(qids, scores, rows, strict=True)}
        recs[name] = {x["question_id"]: x for x in score_run(questions, run, lookup, k)}
    order = sorted(recs["exact"])
    a = [recs["approximate"][i]["PageRec"] for i in order]
    b = [recs["exact"][i]["PageRec"] for i in order]
    metrics = json.loads((root / "reports/metrics.json").read_text())
    return {"setting": {"kind": cfg.kind, "nprobe": cfg.nprobe},
            f"PageRec@{k}_pipeline_dense": metrics["dense"]["standard"][f"PageRec@{k}"],
            f"PageRec@{k}_exact": round(float(np.mean(b)), 4),
            f"PageRec@{k}_approximate": round(float(np.mean(a)), 4),
            "questions_differing": int(sum(x != y for x, y in zip(a, b, strict=True))),
            "diff_CI95": paired_bootstrap(a, b), "n": len(order)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="a project with built indexes")
    ap.add_argument("--n", type=int, default=1_000_000, help="synthetic index size")
    ap.add_argument("--noise-cos", type=float, default=0.9)
    args = ap.parse_args()
    from fingap.core.models import resolve_model
    from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
    from fingap.retrieval.loading import make_encoder
    from fingap.retrieval.page_ranking import encode_queries

    root = args.root
    params = load_params(root / "params.yaml")
    evaluated = [q for q in read_questions(root / "data/corpus") if q.status == STATUS_EVALUATED]
    questions = [q.question for q in evaluated]
    cache = root / "data/cache/embeddings.sqlite"
    chunks = np.load(root / "data/indexes/dense/embeddings.npy").astype(np.float32)
    pages = np.load(root / "data/page_index/untrained/base.npy").astype(np.float32)
    q_chunks = make_encoder(params["dense"], cache, False).encode(questions)
    q_pages = encode_queries(str(resolve_model(params["page_scorer_train"]["model"])), questions,
                             params["page_scorer_train"]["max_seq_length"],
                             params["page_scorer_train"]["precision"], cache)
    small = [{"kind": "ivf", "nprobe": p} for p in (8, 16, 32, 64, 96)] + \
            [{"kind": "hnsw", "ef_search": e} for e in (128, 256)]
    report = {"command": f"python benchmarks/bench_ann.py --n {args.n}",
              "real_chunks": compare(chunks, q_chunks, small),
              "real_pages": compare(pages, q_pages, small)}
    chosen = AnnConfig(kind="ivf", nprobe=16, exact_below=0)
    report["dense_parity"] = dense_parity(root, q_chunks, [q.id for q in evaluated],
                                          int(params["retrieve"]["k"]), chosen)
    print(report["dense_parity"], flush=True)
    # the synthetic index: noisy copies of every real vector, all distinct
    base = np.concatenate([chunks, pages])
    rng = np.random.default_rng(13)
    sigma = np.sqrt((1 / args.noise_cos**2 - 1) / base.shape[1])
    x = np.empty((args.n, base.shape[1]), np.float32)
    for i in range(0, args.n, 100_000):
        m = min(100_000, args.n - i)
        v = base[rng.integers(0, len(base), m)] + rng.normal(0, sigma, (m, base.shape[1]))
        x[i:i + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    # (HNSW is left out here: building it over 1M vectors takes most of an hour on 2 cores)
    report["synthetic"] = compare(x, q_chunks, [
        {"kind": "ivf", "nprobe": p} for p in (16, 32, 64, 128, 256)] + [
        {"kind": "ivf_pq", "nprobe": p, "pq_m": 48, "refine": 8} for p in (64, 128)])
    report["synthetic"].update(source=f"{len(base)} real vectors (chunks and pages), noisy "
                               f"copies at cosine ~{args.noise_cos}",
                               distinct=len({hash(row.tobytes()) for row in x}))
    update_json_section(ROOT / "reports/benchmarks.json", "ann", report)


if __name__ == "__main__":
    main()
