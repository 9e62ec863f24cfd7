"""Page-level work at scale, local engine against a local Ray cluster of 1 and 2 workers
(reports/benchmarks.json ``scale``).

A synthetic corpus: FinanceBench's PDFs linked under new document names (COPYk_<doc>.pdf), k
copies for a size of k (fractions take the first share of the documents). For each size and
engine, in a fresh process (so each figure's peak memory is its own):

- ``extract``: ``ExtractTask`` (PyMuPDF, every page) over the PDFs;
- ``tables``: ``DocFactsTask`` (statement tables) over the PDFs, with the base run's page texts;
- ``encode``: ``EncodeTask`` with the untrained MiniLM (the ``page_index@untrained`` encoder:
  2,000 characters, 256 tokens, bf16) over every page. The page index never reads the
  embedding cache, so nothing is served from a cache (0 hits, reported).

Each figure is the job's wall time, Ray's cluster start and model loading included, as a stage
would pay them. Peak memory is the largest resident set of any worker process (for local, the
stage's own process).

    python benchmarks/bench_scale.py --pages data/pages/pages.jsonl \
        --work extract:1,3,10 --work tables:1,3,10 --work encode:0.1,0.3,1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = {"local": None, "ray1": 1, "ray2": 2}   # name -> Ray workers (None: local)


def synthetic_corpus(pdf_dir: Path, size: float, dest: Path) -> list[tuple[str, str]]:
    """(file name, base document) of each linked PDF, for ``size`` copies of ``pdf_dir``."""
    base = sorted(p for p in pdf_dir.glob("*.pdf"))
    n = round(size * len(base))
    out = []
    for i in range(n):
        src = base[i % len(base)]
        name = f"COPY{i // len(base)}_{src.name}"
        link = dest / name
        if not link.exists():
            link.symlink_to(src.resolve())
        out.append((name, src.stem))
    return out


def measure_one(work: str, size: float, engine: str, pages_path: Path, pdf_dir: Path) -> dict:
    """One (work, size, engine) figure, in this process."""
    from fingap.core.compute import Compute
    from fingap.core.io import read_jsonl

    workers = ENGINES[engine]
    compute = Compute(engine="ray", workers=workers) if workers else Compute()
    texts: dict[str, dict[int, str]] = defaultdict(dict)
    for r in read_jsonl(pages_path):
        texts[r["doc"]][r["page"]] = r["text"]
    with tempfile.TemporaryDirectory(prefix="fingap-scale-") as tmp:
        files = synthetic_corpus(pdf_dir, size, Path(tmp))
        files = [(name, doc) for name, doc in files if doc in texts]   # unreadable PDFs: none
        n_pages = sum(len(texts[doc]) for _, doc in files)
        t0 = time.perf_counter()
        if work == "extract":
            from fingap.core.compute import run_batches
            from fingap.ingestion.extract import ExtractTask

            job = run_batches(partial(ExtractTask, tmp), [n for n, _ in files], compute,
                              ray_batch=compute.batch_docs)
            n_out = sum(len(p) for p, _ in job.results)
            stats = job.stats()
        elif work == "tables":
            from fingap.core.compute import run_batches
            from fingap.ingestion.statement_tables import DocFactsTask

            items = [(name, Path(name).stem, texts[doc]) for name, doc in files]
            job = run_batches(partial(DocFactsTask, tmp), items, compute,
                              ray_batch=compute.batch_docs)
            n_out = sum(len(f) for f, _, _ in job.results)
            stats = job.stats()
        elif work == "encode":
            from fingap.retrieval.page_ranking import encode_texts, page_text

            page_texts = [page_text(texts[doc][p], 2000) for _, doc in files
                          for p in sorted(texts[doc])]
            emb, stats = encode_texts("minilm", page_texts, 256, "bf16", compute)
            n_out = len(emb)
        else:
            raise SystemExit(f"unknown work {work!r}")
        seconds = time.perf_counter() - t0
    if work == "extract" and n_out != n_pages:
        raise SystemExit(f"extracted {n_out} pages, expected {n_pages}")
    stats.pop("engine", None)
    row = {"work": work, "size": size, "engine": engine, "n_pdfs": len(files),
           "n_pages": n_pages, "n_out": n_out, "seconds": round(seconds, 1),
           "pages_per_s": round(n_pages / seconds, 1), **stats}
    if work == "encode":
        row["embedding_cache_hits"] = 0   # EncodeTask encodes every text; no cache is read
    return row


def growth(rows: list[dict]) -> dict:
    """Per (work, engine): seconds per 1,000 pages at each size (flat: time grows linearly)."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[f"{r['work']}/{r['engine']}"][str(r["size"])] = round(
            1000 * r["seconds"] / max(r["n_pages"], 1), 2)
    return dict(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=Path, default=ROOT / "data/pages/pages.jsonl")
    ap.add_argument("--pdfs", type=Path, default=None,
                    help="the PDFs' folder (default: the corpus's, as the pipeline finds it)")
    ap.add_argument("--work", action="append", default=[],
                    help="WORK:SIZES, e.g. extract:1,3,10 (sizes in copies of the corpus)")
    ap.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    ap.add_argument("--one", nargs=3, metavar=("WORK", "SIZE", "ENGINE"), help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=ROOT / "reports/benchmarks.json")
    args = ap.parse_args()
    pdf_dir = args.pdfs or _corpus_pdfs()
    if args.one:
        work, size, engine = args.one
        print(json.dumps(measure_one(work, float(size), engine, args.pages, pdf_dir)))
        return
    rows = []
    for spec in args.work or ["extract:1,3,10", "tables:1,3,10", "encode:0.1,0.3,1"]:
        work, _, sizes = spec.partition(":")
        for size in sizes.split(","):
            for engine in args.engines:
                done = subprocess.run(
                    [sys.executable, __file__, "--pages", str(args.pages), "--pdfs", str(pdf_dir),
                     "--one", work, size, engine], capture_output=True, text=True,
                    env={**os.environ, "RAY_DEDUP_LOGS": "0"})
                if done.returncode != 0:
                    raise SystemExit(f"{work} {size} {engine} failed:\n{done.stderr[-3000:]}")
                rows.append({**json.loads(done.stdout.strip().splitlines()[-1]),
                             "cpu": _cpu_model()})
                print(json.dumps(rows[-1]), flush=True)
                # saved row by row: an interrupted run keeps what it measured
                save_rows(args.out, rows)


def save_rows(out: Path, rows: list[dict]) -> None:
    """Merge ``rows`` into the ``scale`` section: a run replaces the rows of the (work, size,
    engine) it measured and keeps the others, so sizes can be measured in separate quiet runs."""
    from fingap.core.io import read_json, update_json_section

    measured = {(r["work"], r["size"], r["engine"]) for r in rows}
    kept = [r for r in (read_json(out).get("scale", {}).get("rows", []) if out.exists() else [])
            if (r["work"], r["size"], r["engine"]) not in measured]
    merged = sorted(kept + rows, key=lambda r: (r["work"], r["size"], list(ENGINES).index(
        r["engine"])))
    update_json_section(out, "scale", {
        "machine": f"{os.cpu_count()} CPUs", "rows": merged,
        "seconds_per_1000_pages": growth(merged)})


def _cpu_model() -> str:
    """The CPU's model name and count, so rows measured on different machines are told apart."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    amx = " (AMX)" if "amx_tile" in flags else ""
    return f"{os.cpu_count()} x {model}{amx}"


def _corpus_pdfs() -> Path:
    from fingap.core.params import load_params
    from fingap.ingestion import corpus as corpus_mod

    params = load_params(ROOT / "params.yaml")["corpus"]
    layout = corpus_mod.CorpusLayout.from_params(params)
    return corpus_mod.locate_corpus(params.get("dir") or None, ROOT, layout) / layout.pdfs


if __name__ == "__main__":
    main()
