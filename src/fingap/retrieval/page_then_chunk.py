"""Algorithm 1 of Kobeissi & Langlais: choose the top P pages with the page scorer, then run a
chunk retriever over the chunks lying on those pages only, and keep the top k chunks."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.runs import Run
from .base import Retriever

PageKey = tuple[str, int]


def chunk_rows_by_page(chunk_keys: Sequence[PageKey]) -> dict[PageKey, list[int]]:
    rows: dict[PageKey, list[int]] = defaultdict(list)
    for i, key in enumerate(chunk_keys):
        rows[tuple(key)].append(i)
    return rows


def rows_on_pages(pages: Sequence[PageKey], by_page: Mapping[PageKey, list[int]],
                  allowed: np.ndarray | None = None) -> np.ndarray:
    """Chunk rows lying on ``pages`` (and, if given, also in ``allowed``)."""
    rows = {i for key in pages for i in by_page.get(tuple(key), [])}
    if allowed is not None:
        rows &= set(allowed.tolist())
    return np.array(sorted(rows), dtype=np.int64)


def page_then_chunk(
    ranked_pages: Mapping[str, Sequence[tuple[PageKey, float]]],
    P: int,
    chunk_retriever: Retriever,
    queries: Mapping[str, str],
    k: int,
    chunk_keys: Sequence[PageKey],
    allowed: Mapping[str, np.ndarray] | None = None,
) -> Run:
    """Top-k chunks restricted to each question's top-``P`` pages (Algorithm 1)."""
    if P <= 0:
        raise ValueError(f"P must be positive, got {P}")
    by_page = chunk_rows_by_page(chunk_keys)
    restricted = {
        qid: rows_on_pages([key for key, _ in ranked_pages[qid][:P]], by_page,
                           None if allowed is None else allowed[qid])
        for qid in queries
    }
    return chunk_retriever.search(queries, k, restricted)
