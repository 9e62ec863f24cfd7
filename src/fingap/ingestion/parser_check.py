"""``fingap check-parser``: extract PDFs afresh and compare with the committed fingerprint."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from ..core.io import read_json, write_json
from .alignment import check_alignment
from .corpus import DOCINFO_FILE, PDF_DIR, QUESTIONS_FILE, load_doc_types, load_questions
from .extract import extract_pdf
from .fingerprint import alignment_by_doc, compare, fingerprint
from .statement_tables import doc_facts

GOLDEN = Path("tests/golden/extraction_fingerprint.json")
# A fixed, small subset for CI: 766 pages, every document type, 14 evidence items.
CI_SUBSET = [
    "3M_2018_10K", "AMCOR_2022_8K_dated-2022-07-01", "BESTBUY_2024Q2_10Q",
    "CVSHEALTH_2018_10K", "JOHNSON_JOHNSON_2022Q4_EARNINGS", "MGMRESORTS_2023Q2_10Q",
    "NETFLIX_2017_10K", "PEPSICO_2023Q1_EARNINGS",
]


def extraction_fingerprint(corpus_dir: Path, docs: Sequence[str] | None = None,
                           alignment_window: int = 2) -> dict:
    pdfs = sorted((corpus_dir / PDF_DIR).glob("*.pdf"))
    if docs is not None:
        wanted = set(docs)
        unknown = wanted - {p.stem for p in pdfs}
        if unknown:
            raise FileNotFoundError(f"no PDF in {corpus_dir / PDF_DIR} for {sorted(unknown)}")
        pdfs = [p for p in pdfs if p.stem in wanted]
    pages, facts = [], []
    for p in pdfs:
        doc_pages = extract_pdf(p)[0]
        pages.extend(doc_pages)
        facts.extend(doc_facts(p, p.stem, {r.page: r.text for r in doc_pages})[0])
    questions = load_questions(corpus_dir / QUESTIONS_FILE,
                               load_doc_types(corpus_dir / DOCINFO_FILE))
    texts = {(r.doc, r.page): r.text for r in pages}
    counts: dict[str, int] = {}
    for r in pages:
        counts[r.doc] = counts.get(r.doc, 0) + 1
    records = check_alignment(questions, texts, counts, window=alignment_window)
    return fingerprint(((r.doc, r.page, r.text) for r in pages), alignment_by_doc(records),
                       parser=f"pymupdf {pymupdf.VersionBind}", facts=facts)


def check_parser(corpus_dir: Path, golden: Path = GOLDEN, docs: Sequence[str] | None = None,
                 update: bool = False) -> dict:
    actual = extraction_fingerprint(corpus_dir, docs)
    if update:
        write_json(golden, actual)
        return {"updated": str(golden), "n_docs": len(actual["docs"]), "regression": False}
    expected = read_json(golden)
    return compare(expected, actual, docs if docs is not None else None)
