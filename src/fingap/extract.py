"""Page extraction with PyMuPDF: one record per page, failures recorded instead of raised.

Convention: pages are 0-based indices into PyMuPDF's page list, as FinanceBench's
``evidence_page_num`` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf


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


def extract_pdf(path: str | Path) -> tuple[list[PageRecord], list[ExtractionError]]:
    """Extract every page's text; an unreadable PDF yields an error record, not an exception."""
    path = Path(path)
    doc_name = path.stem
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as e:  # PyMuPDF raises several types for corrupt/non-PDF input
        return [], [ExtractionError(doc_name, f"cannot open PDF: {e}")]
    with doc:
        if doc.needs_pass:
            return [], [ExtractionError(doc_name, "PDF is password-protected")]
        if doc.page_count == 0:
            return [], [ExtractionError(doc_name, "PDF has no pages")]
        pages, errors = [], []
        for i in range(doc.page_count):
            try:
                text = doc[i].get_text("text")
            except Exception as e:
                errors.append(ExtractionError(doc_name, f"cannot read page text: {e}", page=i))
                text = ""
            pages.append(PageRecord(doc_name, i, text, len(text)))
    return pages, errors
