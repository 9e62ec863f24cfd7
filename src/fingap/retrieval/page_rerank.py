"""A page reranker over a page scorer's top pages (#14 part 3).

A cross-encoder reads 256 tokens, so it cannot read a whole page. Each candidate page is shown
to it as one window: the page's window (fingap.retrieval.page_windows) that the bi-encoder page
scorer likes best for the question. The cross-encoder then reorders the first ``n`` pages; the
rest keep their order below them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

PageKey = tuple[str, int]
Ranked = Mapping[str, Sequence[tuple[PageKey, float]]]


class PageWindowVectors:
    """Each page's window vectors, encoded once per page and kept, so a page shared by several
    questions or conditions costs one encoding. ``encode`` maps window texts to one vector (or
    one matrix) per window; ``combine`` turns a page's slice of them into what is kept."""

    def __init__(self, encode: Callable[[Sequence[str]], Sequence],
                 windows_of: Callable[[PageKey], Sequence[str]],
                 combine: Callable[[Sequence], object] = lambda parts: parts):
        self.encode, self.windows_of, self.combine = encode, windows_of, combine
        self._kept: dict[PageKey, object] = {}

    def of(self, keys: Sequence[PageKey]) -> list:
        todo = sorted({tuple(k) for k in keys} - set(self._kept))
        if todo:
            texts = [list(self.windows_of(k)) for k in todo]
            flat = [t for ws in texts for t in ws]
            vecs = self.encode(flat) if flat else []
            start = 0
            for key, ws in zip(todo, texts, strict=True):
                self._kept[key] = self.combine(vecs[start : start + len(ws)])
                start += len(ws)
        return [self._kept[tuple(k)] for k in keys]


class WindowPicker:
    """Each (question, page)'s best window by a bi-encoder (``encode``: window texts to a
    matrix of vectors), each page's windows encoded once."""

    def __init__(self, encode: Callable[[Sequence[str]], np.ndarray],
                 windows_of: Callable[[PageKey], Sequence[str]]):
        self.windows_of = windows_of
        self._vectors = PageWindowVectors(encode, windows_of)

    def best(self, query_vec: np.ndarray, keys: Sequence[PageKey]) -> list[str]:
        """The text of each page's best window for the query (ties: the earlier window)."""
        out = []
        for key, vecs in zip(keys, self._vectors.of(keys), strict=True):
            ws = self.windows_of(tuple(key))
            out.append(ws[int(np.argmax(vecs @ query_vec))] if len(ws) else "")
        return out


def rerank_head(head: Sequence[tuple[PageKey, float]], scores: Sequence[float]
                ) -> list[tuple[PageKey, float]]:
    """``head``'s pages reordered by ``scores`` (one per page, best first; ties keep the
    first-stage order), each with its new score."""
    if len(scores) != len(head):
        raise ValueError(f"{len(scores)} reranker scores for {len(head)} pages")
    s = np.asarray(scores, dtype=np.float64)
    order = np.lexsort((np.arange(len(head)), -s))
    return [(head[i][0], float(s[i])) for i in order]


def attach_tail(head: Sequence[tuple[PageKey, float]], ranked: Sequence[tuple[PageKey, float]],
                n: int) -> list[tuple[PageKey, float]]:
    """A reranked head of ``ranked[:n]``, then ``ranked[n:]`` in its order with scores below
    every head page's, so a final step ordering by page score keeps this order."""
    floor = min((score for _, score in head), default=0.0)
    return list(head) + [(key, floor - 1.0 - i) for i, (key, _) in enumerate(ranked[n:])]


def rerank_pages(ranked: Sequence[tuple[PageKey, float]], scores: Sequence[float],
                 n: int) -> list[tuple[PageKey, float]]:
    """The first ``n`` pages of ``ranked`` reordered by ``scores``, then the rest in their
    order below them (rerank_head, then attach_tail)."""
    return attach_tail(rerank_head(ranked[:n], scores), ranked, n)
