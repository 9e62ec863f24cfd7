"""Gold-alignment check: is the labelled evidence page the extracted page that best matches the
gold full-page text? This is the parser-regression signal (100% with PyMuPDF 1.28 / 2.0).

Normalisation mirrors how FinanceBench's gold text was made: non-ASCII characters are dropped
(so words around a no-break space are glued), and here all whitespace is dropped as well, so line
breaking differences between parser versions do not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .corpus import Question

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WS = re.compile(r"\s+")


def normalise_for_alignment(text: str) -> str:
    return _WS.sub("", _NON_ASCII.sub("", text))


def shingles(text: str, n: int = 8) -> set[str]:
    if len(text) <= n:
        return {text} if text else set()
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of character 8-gram sets of two normalised texts."""
    sa, sb = shingles(a), shingles(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def check_alignment(
    questions: Iterable[Question],
    page_texts: Mapping[tuple[str, int], str],
    page_counts: Mapping[str, int],
    window: int = 2,
) -> list[dict]:
    """One record per evidence item whose document was extracted.

    ``aligned`` is true when the labelled page scores strictly best among the pages within
    ``window`` of it (ties count as misaligned: they mean the parser cannot tell the pages apart).
    """
    records = []
    for q in questions:
        for j, ev in enumerate(q.evidence):
            n_pages = page_counts.get(ev.doc)
            if n_pages is None:
                continue
            rec = {"question_id": q.id, "evidence": j, "doc": ev.doc, "page": ev.page}
            if ev.page >= n_pages:
                rec.update(aligned=False, best_page=None, score=0.0,
                           reason=f"gold page {ev.page} out of range ({n_pages} pages)")
                records.append(rec)
                continue
            gold = normalise_for_alignment(ev.full_page)
            scores = {
                p: similarity(gold, normalise_for_alignment(page_texts.get((ev.doc, p), "")))
                for p in range(max(0, ev.page - window), min(n_pages, ev.page + window + 1))
            }
            best = max(scores, key=lambda p: (scores[p], p == ev.page))
            unique = sum(1 for s in scores.values() if s == scores[best]) == 1
            rec.update(aligned=best == ev.page and unique, best_page=best,
                       score=round(scores[ev.page], 4), reason="")
            records.append(rec)
    return records
