"""Parent-child retrieval: small child chunks are indexed; a parent (the 1024/128 chunk) scores
as its best child, and up to k distinct parents are returned.

Each child maps deterministically to the parent chunk on the same page whose token window
overlaps it most (ties: the earlier parent), so the mapping needs no stored state beyond spans.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from .base import Retriever


def assign_parents(children: Sequence[dict], parents: Sequence[dict]) -> list[int]:
    """Row of the parent of each child (chunks as dicts with doc, page, token_start/end)."""
    by_page: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, p in enumerate(parents):
        by_page[(p["doc"], p["page"])].append(i)
    out = []
    for c in children:
        candidates = by_page.get((c["doc"], c["page"]))
        if not candidates:
            raise ValueError(f"child chunk {c['chunk_id']} has no parent on its page")

        def overlap(i: int, c: dict = c) -> int:
            p = parents[i]
            return min(p["token_end"], c["token_end"]) - max(p["token_start"], c["token_start"])

        out.append(max(candidates, key=lambda i: (overlap(i), -i)))
    return out


class ParentChildRetriever(Retriever):
    """Scores parents by their best child under any child retriever."""

    def __init__(self, child_retriever: Retriever, parent_ids: Sequence[str],
                 parent_of_child: Sequence[int]):
        if len(parent_of_child) != len(child_retriever.ids):
            raise ValueError("one parent row per child is required")
        self.child = child_retriever
        self.ids = list(parent_ids)
        self.parent_of_child = np.asarray(parent_of_child, dtype=np.int64)

    def score(self, queries: list[str]) -> np.ndarray:
        child_scores = self.child.score(queries)
        out = np.full((len(queries), len(self.ids)), -np.inf, dtype=np.float32)
        for row, cs in zip(out, child_scores, strict=True):
            np.maximum.at(row, self.parent_of_child, cs)
        return out
