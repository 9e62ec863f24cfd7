"""The ``tables`` stage: statement tables of every PDF page -> the numeric fact store.

Outputs: ``data/facts/facts.sqlite`` (the store), ``data/facts/table_rows.jsonl`` (each table
row serialised as "statement | header | row label | cells"), ``data/facts/rows_bm25/`` (a
BM25 index of those rows), ``data/facts/skipped.jsonl`` (malformed table rows skipped, with the
reason, per page) and the report (facts, statements found, skip counts).
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from functools import partial
from pathlib import Path

from ..answers.fact_store import fact_concept, write_store
from ..answers.labels import Vocabulary
from ..core.compute import LOCAL, Compute, run_batches
from ..core.io import read_json, read_jsonl, write_json, write_jsonl
from ..ingestion import corpus as corpus_mod
from ..ingestion.statement_tables import DocFactsTask
from ..retrieval.bm25 import BM25Retriever

log = logging.getLogger("fingap")

def serialise_row(facts: list[dict]) -> str:
    f0 = facts[0]
    header = " ".join(f"FY{f['fiscal_year']}" + (f" {f['duration']}" if f["duration"] else "")
                      for f in facts)
    cells = " ".join(f["printed"] for f in facts)
    return f"{f0['statement']} | {header} | {f0['label']} | {cells}"


def run_tables(corpus_params: dict, corpus_out: Path, pages_path: Path, out_dir: Path,
               report_path: Path, root: Path = Path("."), compute: Compute = LOCAL) -> dict:
    """The fact store of every statement table (``compute``: where the per-document work
    runs), its table rows and their BM25 index."""
    manifest = read_json(corpus_out / "manifest.json")
    corpus_dir = corpus_mod.locate_corpus(corpus_params.get("dir") or None, root,
                                          corpus_mod.CorpusLayout.from_params(corpus_params))
    texts: dict[str, dict[int, str]] = defaultdict(dict)
    for r in read_jsonl(pages_path):
        texts[r["doc"]][r["page"]] = r["text"]
    names = sorted(corpus_mod.pdf_names(manifest))
    vocab = Vocabulary.load()
    all_facts: list[dict] = []
    skipped_rows: list[dict] = []
    per_doc: dict[str, dict] = {}
    reasons: Counter = Counter()
    t0 = time.perf_counter()
    n_pages = 0
    # documents extract could not read have no pages and are left out
    items = [(name, Path(name).stem, texts[Path(name).stem]) for name in names
             if Path(name).stem in texts]
    job = run_batches(partial(DocFactsTask, str(corpus_dir)), items, compute,
                      ray_batch=compute.batch_docs)
    for (name, doc, doc_texts), (facts, skipped, info) in zip(items, job.results, strict=True):
        n_pages += len(doc_texts)
        all_facts.extend(facts)
        for (page, reason), n in sorted(skipped.items()):
            skipped_rows.append({"doc": doc, "page": page, "reason": reason, "rows": n})
            reasons[reason] += n
        per_doc[doc] = {"facts": len(facts), "pages_with_tables": info["pages_with_tables"],
                        "fiscal_year_offset": info.get("fiscal_year_offset"),
                        "error": info["error"]}
        if info["error"]:
            log.warning("tables: %s: %s (skipped)", name, info["error"])
    seconds = time.perf_counter() - t0
    companies = {d.doc: d.company for d in corpus_mod.read_documents(corpus_out).values()}
    n_facts = write_store(out_dir / "facts.sqlite", all_facts, vocab, companies)
    rows: dict[tuple, list[dict]] = defaultdict(list)
    for f in all_facts:
        rows[(f["doc"], f["page"], f["table"], f["label"])].append(f)
    row_records = [{"row_id": f"{d}::p{p:04d}::t{t}::r{i}", "doc": d, "page": p,
                    "text": serialise_row(fs)}
                   for i, ((d, p, t, _), fs) in enumerate(rows.items())]
    write_jsonl(out_dir / "table_rows.jsonl", row_records)
    # the rows are searchable by keyword (`fingap search --method table_rows`); BM25 with the
    # chunk index's default k1/b, since a row is a short text of one line item
    BM25Retriever.from_texts([r["row_id"] for r in row_records],
                             [r["text"] for r in row_records], backend="bm25s", k1=1.5,
                             b=0.75).save(out_dir / "rows_bm25")
    write_jsonl(out_dir / "skipped.jsonl", skipped_rows)
    with_concept = sum(1 for f in all_facts if fact_concept(f, vocab))
    report = {
        "n_docs": len(per_doc), "n_pages": n_pages,
        "n_pages_with_tables": sum(d["pages_with_tables"] for d in per_doc.values()),
        "n_facts": n_facts, "n_facts_with_concept": with_concept, "n_table_rows": len(rows),
        "statements": dict(sorted(Counter(f["statement"] for f in all_facts).items())),
        "skipped_rows": dict(sorted(reasons.items())),
        "failed_docs": sorted(d for d, i in per_doc.items() if i["error"]),
        "docs": per_doc,
    }
    write_json(report_path, report)
    # wall times stay out of the report (same input, same output): benchmarks/bench_answers.py
    log.info("tables: %d facts from %d pages in %.1fs (%.0f pages/s)", n_facts, n_pages, seconds,
             n_pages / max(seconds, 1e-9))
    return report
