"""Parent-child retrieval: small children are indexed; a parent (the 1024/128 chunk) scores
as its best child, and up to k distinct parents are returned.

The children are the dense embedder's windows of each chunk (254 tokens for MiniLM at 256
positions): the dense chunk index embeds them anyway to average them into the chunk's vector, and
keeps them under ``windows/`` (``fingap.steps.index``), so a child nests inside its parent and
costs no second encoding pass. A window's id is its chunk's id, ``WINDOW_SEP`` and its number.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import Retriever

WINDOW_SEP = "::w"


def parent_rows(child_ids: Sequence[str], parent_ids: Sequence[str]) -> list[int]:
    """Row in ``parent_ids`` of each child's parent, read from the child's id."""
    row = {pid: i for i, pid in enumerate(parent_ids)}
    out = []
    for cid in child_ids:
        parent = cid.rsplit(WINDOW_SEP, 1)[0]
        if WINDOW_SEP not in cid or parent not in row:
            raise ValueError(f"child {cid!r} names no chunk of the chunk table; rerun index@dense")
        out.append(row[parent])
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
