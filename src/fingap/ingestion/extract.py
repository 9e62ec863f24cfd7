"""Page extraction with PyMuPDF: one record per page, failures recorded instead of raised.

Convention: pages are 0-based indices into PyMuPDF's page list, as FinanceBench's
``evidence_page_num`` is.

Problems are records, not exceptions: a document that cannot be read at all gets one
``severity="error"`` record (and no pages); a page whose text cannot be read, has no text layer
(image-only), or is cut at ``max_page_chars`` gets a page-level ``"warning"`` record while the
document's other pages are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from ..core.io import read_jsonl

# Far above any real filing page (FinanceBench's largest is ~20k characters); a page beyond it
# is almost surely a broken or hostile file, and one page must not blow up every later stage.
DEFAULT_MAX_PAGE_CHARS = 200_000


@dataclass
class PageRecord:
    doc: str
    page: int
    text: str
    n_chars: int


@dataclass
class ExtractionError:
    doc: str
    reason: str
    page: int | None = None
    severity: str = "error"


def extract_pdf(
    path: str | Path, max_page_chars: int = DEFAULT_MAX_PAGE_CHARS
) -> tuple[list[PageRecord], list[ExtractionError]]:
    """Extract every page's text; an unreadable PDF yields an error record, not an exception."""
    path = Path(path)
    doc_name = path.stem
    with open(path, "rb") as f:
        head = f.read(1024)
    # PyMuPDF sniffs content and would happily read an HTML or text file named .pdf
    if b"%PDF-" not in head:
        return [], [ExtractionError(doc_name, f"not a PDF file (starts with {head[:16]!r})")]
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as e:  # PyMuPDF raises several types for corrupt input
        return [], [ExtractionError(doc_name, f"cannot open PDF: {e}")]
    if not doc.is_pdf:
        doc.close()
        return [], [ExtractionError(doc_name, "not a PDF file")]
    with doc:
        if doc.needs_pass:
            return [], [ExtractionError(doc_name, "PDF is password-protected")]
        try:
            n_pages = doc.page_count
        except Exception as e:
            return [], [ExtractionError(doc_name, f"cannot read page tree: {e}")]
        if n_pages == 0:
            return [], [ExtractionError(doc_name, "PDF has no pages")]
        pages, errors = [], []
        if doc.is_repaired:
            errors.append(ExtractionError(doc_name, "damaged PDF, repaired by the parser: "
                                          "text may be incomplete", None, "warning"))
        for i in range(n_pages):
            try:
                page = doc[i]
                text = page.get_text("text")
                has_images = not text.strip() and bool(page.get_images())
            except Exception as e:
                errors.append(ExtractionError(doc_name, f"cannot read page text: {e}", i,
                                              "warning"))
                text, has_images = "", False
            if has_images:
                errors.append(ExtractionError(doc_name, "no text layer (image-only page)", i,
                                              "warning"))
            if len(text) > max_page_chars:
                errors.append(ExtractionError(
                    doc_name, f"page text cut at {max_page_chars} of {len(text)} characters", i,
                    "warning"))
                text = text[:max_page_chars]
            pages.append(PageRecord(doc_name, i, text, len(text)))
    if not any(p.text.strip() for p in pages):
        errors.append(ExtractionError(doc_name, "no page has extractable text (scanned or empty)"))
    return pages, errors


class ExtractTask:
    """A compute task (``fingap.core.compute``): PDF file names under ``corpus_dir`` -> each
    one's (pages, errors) by ``extract_pdf``."""

    def __init__(self, corpus_dir: str, max_page_chars: int = DEFAULT_MAX_PAGE_CHARS):
        self.corpus_dir = Path(corpus_dir)
        self.max_page_chars = max_page_chars

    def __call__(self, names: list[str]) -> list[tuple[list[PageRecord], list[ExtractionError]]]:
        return [extract_pdf(self.corpus_dir / n, max_page_chars=self.max_page_chars)
                for n in names]


def read_page_texts(pages_path: Path) -> dict[tuple[str, int], str]:
    """{(doc, 0-based page): text} of the ``extract`` stage's ``pages.jsonl``."""
    return {(r["doc"], r["page"]): r["text"] for r in read_jsonl(pages_path)}
