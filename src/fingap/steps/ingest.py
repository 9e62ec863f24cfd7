"""Stages ``corpus``, ``extract`` and ``chunk``: locate and validate FinanceBench, extract every
page, cut pages into token windows."""

from __future__ import annotations

import logging
import time
from collections import Counter
from functools import partial
from pathlib import Path

from tqdm import tqdm

from ..core.compute import LOCAL, Compute, run_batches
from ..core.io import read_json, read_jsonl, write_json, write_jsonl
from ..core.params import require_int
from ..ingestion import corpus as corpus_mod
from ..ingestion.alignment import check_alignment
from ..ingestion.chunking import (
    PageChunker,
    chunk_to_row,
    load_tokenizer,
    model_max_len,
    validate_window,
)
from ..ingestion.corpus import read_questions
from ..ingestion.extract import ExtractTask

log = logging.getLogger("fingap")


# ---------------------------------------------------------------- corpus
def run_corpus(params: dict, out_dir: Path, root: Path = Path(".")) -> dict:
    layout = corpus_mod.CorpusLayout.from_params(params)
    corpus_dir = corpus_mod.locate_corpus(params.get("dir") or None, root, layout)
    manifest, questions, documents = corpus_mod.describe_corpus(corpus_dir, layout)
    write_jsonl(out_dir / "questions.jsonl", (q.to_dict() for q in questions))
    write_jsonl(out_dir / "documents.jsonl", (d.to_dict() for d in documents.values()))
    write_json(out_dir / "manifest.json", manifest)
    counts = manifest["questions"]
    log.info("corpus %s: %d questions (%d evaluated, %d without gold evidence, %d missing doc), "
             "%d PDFs", corpus_dir, counts["n_total"], counts["n_evaluated"],
             counts.get("n_no_gold", 0), counts["n_missing_doc"], len(manifest["docs"]["present"]))
    return manifest


# ---------------------------------------------------------------- extract
def run_extract(params: dict, corpus_params: dict, corpus_out: Path, out_dir: Path,
                report_path: Path, root: Path = Path("."), compute: Compute = LOCAL) -> dict:
    """Every page of every PDF (``compute``: where the per-PDF work runs), the extraction
    errors and the gold-alignment check."""
    window = require_int(params, "extract", "alignment_window", minimum=0)
    max_chars = require_int(params, "extract", "max_page_chars", minimum=1)
    manifest = read_json(corpus_out / "manifest.json")
    corpus_dir = corpus_mod.locate_corpus(corpus_params.get("dir") or None, root,
                                          corpus_mod.CorpusLayout.from_params(corpus_params))
    names = corpus_mod.pdf_names(manifest)
    corpus_mod.verify_inputs(corpus_dir, manifest, names)
    pages, errors = [], []
    t0 = time.perf_counter()
    job = run_batches(partial(ExtractTask, str(corpus_dir), max_chars), names, compute,
                      ray_batch=compute.batch_docs)
    for p, e in job.results:
        pages.extend(p)
        errors.extend(e)
    seconds = time.perf_counter() - t0
    pages.sort(key=lambda r: (r.doc, r.page))
    write_jsonl(out_dir / "pages.jsonl", (vars(p) for p in pages))
    write_jsonl(out_dir / "errors.jsonl", (vars(e) for e in errors))
    texts = {(p.doc, p.page): p.text for p in pages}
    counts = Counter(p.doc for p in pages)
    records = check_alignment(read_questions(corpus_out), texts, counts, window=window)
    write_jsonl(out_dir / "alignment.jsonl", records)
    failed_docs = sorted({e.doc for e in errors if e.page is None and e.severity == "error"})
    report = {
        "n_pdfs": len(names),
        "n_docs_extracted": len(counts),
        "n_docs_failed": len(failed_docs),
        "failed_docs": failed_docs,
        "n_pages": len(pages),
        "n_empty_pages": sum(1 for p in pages if not p.text.strip()),
        "n_warnings": sum(1 for e in errors if e.severity == "warning"),
        "gold_alignment": {
            "n_evidence": len(records),
            "n_aligned": sum(r["aligned"] for r in records),
            "rate": (sum(r["aligned"] for r in records) / len(records)) if records else None,
        },
    }
    write_json(report_path, report)
    log.info("extracted %d pages from %d PDFs in %.1fs (%.0f pages/s) on %s (%d workers); "
             "gold alignment %s", len(pages), len(counts), seconds,
             len(pages) / max(seconds, 1e-9), job.engine, len(job.peak_rss_mb),
             report["gold_alignment"]["rate"])
    return report


def run_chunk(params: dict, dense_params: dict, pages_path: Path, out_path: Path,
              report_path: Path) -> dict:
    size, overlap = params.get("size"), params.get("overlap")
    validate_window(size, overlap)
    tokenizer = load_tokenizer(dense_params["model"])
    chunker = PageChunker(tokenizer, size, overlap)
    pages = [(r["doc"], r["page"], r["text"]) for r in read_jsonl(pages_path)]
    chunks = list(chunker.chunk_pages(tqdm(pages, desc="chunk", unit="page")))
    write_jsonl(out_path, (chunk_to_row(c) for c in chunks))
    max_len = int(dense_params.get("max_seq_length") or 0) or model_max_len(dense_params["model"])
    n_tok = [c.n_tokens for c in chunks]
    report = {
        "size": size, "overlap": overlap, "n_chunks": len(chunks),
        "n_pages_with_chunks": len({(c.doc, c.page) for c in chunks}),
        "mean_tokens": sum(n_tok) / len(n_tok) if n_tok else 0,
        "embedder_max_seq_length": max_len,
        "n_chunks_over_embedder_max": sum(1 for n in n_tok if n > max_len - 2),
    }
    write_json(report_path, report)
    return report
