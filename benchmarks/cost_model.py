"""What fingap's page-level work would cost on a corpus of LOFin's size (reports/benchmarks.json
``cost_model``; docs/scale.md renders it).

Measured inputs (this machine, 2 cores): the pages/s of extraction, statement tables and the
untrained MiniLM page encoder at the largest corpus size of ``bench_scale.py`` (the ``scale``
section), locally and on a local Ray cluster of 2 workers; FinanceBench's pages per filing by
form (``data/pages`` and ``data/corpus``, or the figures recorded in the last run); the chunks
per page (``reports/chunks.json``); the 1M-vector IVF-PQ search (``bench_ann.py``, ``ann``).

Assumptions, each with its source (``ASSUMPTIONS``): LOFin's 145,897 filings; two page counts
per filing (FinanceBench's mean, and a filer's yearly mix of forms at FinanceBench's per-form
means); a GPU's page rate for MiniLM-L6 derived from sentence-transformers' published speed;
the number of page indexes a full run encodes.

    python benchmarks/cost_model.py            # after bench_scale.py at 10x
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports/benchmarks.json"

ASSUMPTIONS = {
    "filings": {"value": 145_897, "source": "LOFin (Choe, Kim and Jung 2025, arXiv 2505.20368): "
                                           "145,897 SEC filings (10-K, 10-Q, 8-K)"},
    "form_mix": {"value": {"10K": 1, "10Q": 3, "8K": 4},
                 "source": "assumption: a listed filer's year is one 10-K, three 10-Qs and "
                           "about four 8-Ks; LOFin does not publish its mix by form"},
    "gpu_pages_per_s": {"value": {"low": 1_400, "central": 3_000, "high": 8_000},
                        "source": "sentence-transformers lists all-MiniLM-L6-v2 at 14,200 "
                                  "sentences/s on a V100 (sentences of ~25 tokens: ~355k "
                                  "tokens/s); at 256 tokens a page that is ~1,400 pages/s on a "
                                  "V100 (low); an A100/H100 in bf16 is 2-6x a V100 (central "
                                  "3,000, high 8,000). Not measured here: no GPU was lent"},
    "page_indexes": {"value": 11, "source": "fingap's product run: the untrained index and one "
                                            "per fold model of the two trained scorers (5 + 5)"},
    "ray_cluster_gpus": {"value": 16, "source": "the issue's cluster: 16 GPUs, one Ray GPU "
                                                "worker each, 8 CPU workers beside each GPU "
                                                "(assumption) for extraction and tables"},
    "dim": {"value": 384, "source": "all-MiniLM-L6-v2's vector size"},
    "ivf_pq_bytes_per_vector": {"value": 56, "source": "48 one-byte PQ codes (ann.pq_m 48) and "
                                                       "an 8-byte id per vector in faiss's "
                                                       "IVF-PQ lists"},
}


def largest(rows: list[dict], work: str, engine: str) -> dict:
    """The ``bench_scale`` row of ``work`` on ``engine`` at the largest size measured."""
    mine = [r for r in rows if r["work"] == work and r["engine"] == engine]
    if not mine:
        raise SystemExit(f"no scale row for {work} on {engine}: run benchmarks/bench_scale.py")
    return max(mine, key=lambda r: r["size"])


def pages_by_form() -> dict[str, float]:
    """FinanceBench's mean pages per filing by form (and overall), from the built corpus."""
    pages_path, docs_path = ROOT / "data/pages/pages.jsonl", ROOT / "data/corpus/documents.jsonl"
    pages: Counter = Counter()
    with open(pages_path) as f:
        for line in f:
            pages[json.loads(line)["doc"]] += 1
    form = {}
    with open(docs_path) as f:
        for line in f:
            d = json.loads(line)
            form[d["doc"]] = d["form"]
    by: dict[str, list[int]] = defaultdict(list)
    for doc, n in pages.items():
        by[form.get(doc, "")].append(n)
    out = {f: round(sum(ns) / len(ns), 1) for f, ns in sorted(by.items())}
    out["all"] = round(sum(pages.values()) / len(pages), 1)
    out["n_filings"] = len(pages)
    return out


def model(bench: dict, per_form: dict, chunks_per_page: float) -> dict:
    a = {k: v["value"] for k, v in ASSUMPTIONS.items()}
    rows = bench["scale"]["rows"]
    rate = {(w, e): largest(rows, w, e) for w in ("extract", "tables", "encode")
            for e in ("local", "ray2")}
    mix = a["form_mix"]
    mixed = sum(per_form[f] * n for f, n in mix.items()) / sum(mix.values())
    cases = {"FinanceBench's mean": per_form["all"], "a filer's yearly mix": round(mixed, 1)}
    gpus = a["ray_cluster_gpus"]
    out: dict = {"assumptions": ASSUMPTIONS, "measured": {
        f"{w}/{e}": {"pages_per_s": r["pages_per_s"], "size": r["size"], "n_pages": r["n_pages"],
                     "peak_rss_mb_per_worker": r.get("peak_rss_mb_per_worker")}
        for (w, e), r in rate.items()},
        "pages_per_filing": per_form, "chunks_per_page": round(chunks_per_page, 3),
        "cases": {}}
    ann = bench.get("ann", {}).get("synthetic", {})
    for name, per_filing in cases.items():
        pages = a["filings"] * per_filing
        hours = {f"{w}/{e}": round(pages / rate[(w, e)]["pages_per_s"] / 3600, 1)
                 for (w, e) in rate}
        gpu = {k: round(pages / v / 3600, 2) for k, v in a["gpu_pages_per_s"].items()}
        exact_gb = pages * a["dim"] * 4 / 1e9
        case = {
            "pages_per_filing": per_filing, "pages": int(pages),
            "hours_on_2_cores": hours,
            "encode_hours_per_model_2_cores": hours["encode/local"],
            "encode_hours_all_page_indexes_2_cores": round(
                hours["encode/local"] * a["page_indexes"], 0),
            "encode_hours_per_model_1_gpu": gpu,
            "cluster_16_gpus": {
                "encode_hours_all_page_indexes": round(
                    gpu["central"] * a["page_indexes"] / gpus, 2),
                "encode_hours_all_page_indexes_range": [
                    round(gpu["high"] * a["page_indexes"] / gpus, 2),
                    round(gpu["low"] * a["page_indexes"] / gpus, 2)],
                # extraction and tables: 8 CPU workers a GPU node, each at the per-worker
                # rate measured with 2 Ray workers here
                "extract_hours": round(pages / (rate[("extract", "ray2")]["pages_per_s"] / 2
                                                * 8 * gpus) / 3600, 2),
                "tables_hours": round(pages / (rate[("tables", "ray2")]["pages_per_s"] / 2
                                               * 8 * gpus) / 3600, 2)},
            "page_index_gb": {"exact_fp32": round(exact_gb, 1),
                              "exact_fp16": round(exact_gb / 2, 1),
                              "ivf_pq": round(pages * a["ivf_pq_bytes_per_vector"] / 1e9, 2),
                              "all_page_indexes_exact_fp32": round(
                                  exact_gb * a["page_indexes"], 0)},
            "chunk_index_gb_exact_fp32": round(pages * chunks_per_page * a["dim"] * 4 / 1e9, 1),
        }
        if ann.get("exact_ms"):
            # exact search reads every vector: its time grows with the index
            case["exact_query_ms_per_page_index"] = round(
                ann["exact_ms"] * pages / ann["n_vectors"], 0)
        out["cases"][name] = case
    if ann:
        best = [s for s in ann["settings"] if s["recall@100"] >= 0.99]
        out["ann_at_1m"] = {"exact_ms": ann["exact_ms"], "settings_recall_099": best}
    return out


def markdown(bench: dict) -> str:
    """docs/scale.md's two tables, rendered from reports/benchmarks.json."""
    rows = bench["scale"]["rows"]
    names = {"extract": "extraction", "tables": "statement tables",
             "encode": "page encoding (untrained MiniLM)"}
    out = ["| work | copies | pages | local pages/s | Ray, 1 worker | Ray, 2 workers | peak memory "
           "a Ray worker |", "|---|---|---|---|---|---|---|"]
    for work in ("extract", "tables", "encode"):
        for size in sorted({r["size"] for r in rows if r["work"] == work}):
            at = {r["engine"]: r for r in rows if r["work"] == work and r["size"] == size}
            ray = [at[e]["peak_rss_mb_per_worker"] for e in ("ray1", "ray2") if e in at]
            pages = next(iter(at.values()))["n_pages"]
            out.append(f"| {names[work]} | {size:g} | {pages:,} | " + " | ".join(
                f"{at[e]['pages_per_s']:.0f}" if e in at else "not run"
                for e in ("local", "ray1", "ray2"))
                + (f" | {min(ray):.0f}-{max(ray):.0f} MB |" if ray else " | - |"))
    cm = bench["cost_model"]
    out += ["", "| | " + " | ".join(cm["cases"]) + " |", "|---|" + "---|" * len(cm["cases"])]

    def line(label: str, get) -> None:
        out.append(f"| {label} | " + " | ".join(get(c) for c in cm["cases"].values()) + " |")

    line("pages per filing", lambda c: f"{c['pages_per_filing']:g}")
    line("pages", lambda c: f"{c['pages'] / 1e6:.1f} M")
    line("extraction, 2 cores (local / 2 Ray workers)",
         lambda c: f"{c['hours_on_2_cores']['extract/local']:g} h / "
                   f"{c['hours_on_2_cores']['extract/ray2']:g} h")
    line("statement tables, 2 cores (local / 2 Ray workers)",
         lambda c: f"{c['hours_on_2_cores']['tables/local']:g} h / "
                   f"{c['hours_on_2_cores']['tables/ray2']:g} h")
    line("encoding one page index, 2 cores",
         lambda c: f"{c['encode_hours_per_model_2_cores']:g} h")
    line("encoding all 11 page indexes, 2 cores",
         lambda c: f"{c['encode_hours_all_page_indexes_2_cores']:g} h "
                   f"({c['encode_hours_all_page_indexes_2_cores'] / 24:.0f} days)")
    line("encoding one page index, 1 GPU (assumed 1,400 / 3,000 / 8,000 pages/s)",
         lambda c: " / ".join(f"{c['encode_hours_per_model_1_gpu'][k]:g} h"
                              for k in ("low", "central", "high")))
    line("16-GPU Ray cluster: all 11 page indexes",
         lambda c: f"{c['cluster_16_gpus']['encode_hours_all_page_indexes']:g} h "
                   f"({c['cluster_16_gpus']['encode_hours_all_page_indexes_range'][0]:g}-"
                   f"{c['cluster_16_gpus']['encode_hours_all_page_indexes_range'][1]:g})")
    line("16-GPU Ray cluster: extraction / tables (128 CPU workers)",
         lambda c: f"{c['cluster_16_gpus']['extract_hours']:g} h / "
                   f"{c['cluster_16_gpus']['tables_hours']:g} h")
    line("one page index, exact fp32 / fp16 / IVF-PQ codes",
         lambda c: f"{c['page_index_gb']['exact_fp32']:g} / {c['page_index_gb']['exact_fp16']:g}"
                   f" / {c['page_index_gb']['ivf_pq']:g} GB")
    line("all 11 page indexes, exact fp32",
         lambda c: f"{c['page_index_gb']['all_page_indexes_exact_fp32']:g} GB")
    line("dense chunk index, exact fp32", lambda c: f"{c['chunk_index_gb_exact_fp32']:g} GB")
    line("an exact query of one page index (a numpy matrix product, 2 cores)",
         lambda c: f"{c.get('exact_query_ms_per_page_index', 0):g} ms")
    return "\n".join(out)


def main() -> None:
    import argparse

    from fingap.core.io import read_json, update_json_section

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true",
                    help="print docs/scale.md's tables from reports/benchmarks.json")
    args = ap.parse_args()
    bench = read_json(OUT)
    if args.markdown:
        print(markdown(bench))
        return
    chunks = read_json(ROOT / "reports/chunks.json")
    per_form = pages_by_form()
    out = model(bench, per_form, chunks["n_chunks"] / chunks["n_pages_with_chunks"])
    update_json_section(OUT, "cost_model", out)
    print(json.dumps({k: v for k, v in out.items() if k != "assumptions"}, indent=1))


if __name__ == "__main__":
    main()
