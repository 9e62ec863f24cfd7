"""Page-level ranking: an index of page embeddings, and the page ranking's own quality.

Page keys are (doc, page) pairs; pages are 0-based as everywhere in fingap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .runs import top_k_indices

PageKey = tuple[str, int]


def page_key_id(key: PageKey) -> str:
    return f"{key[0]}::p{key[1]:04d}"


class PageIndex:
    def __init__(self, keys: Sequence[PageKey], embeddings: np.ndarray):
        if len(keys) != len(embeddings):
            raise ValueError(f"{len(keys)} page keys but {len(embeddings)} embeddings")
        self.keys = [tuple(k) for k in keys]
        self.ids = [page_key_id(k) for k in self.keys]
        self._row_of_id = {i: r for r, i in enumerate(self.ids)}
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)

    def rank(self, query_vec: np.ndarray, top: int,
             allowed: np.ndarray | None = None) -> list[tuple[PageKey, float]]:
        scores = self.embeddings @ query_vec
        if allowed is None:
            hits = top_k_indices(scores, self.ids, top)
        else:
            hits = top_k_indices(scores[allowed], [self.ids[i] for i in allowed], top)
        return [(self.keys[self._row_of_id[i]], s) for i, s in hits]


def page_recall_at(gold: Sequence[PageKey], ranked: Sequence[PageKey], n: int) -> float:
    g = set(gold)
    return len(g & set(ranked[:n])) / len(g)


def reciprocal_rank(gold: Sequence[PageKey], ranked: Sequence[PageKey]) -> float:
    """1 / rank of the first gold page (0 if none is ranked)."""
    g = set(gold)
    for r, key in enumerate(ranked, start=1):
        if key in g:
            return 1.0 / r
    return 0.0
