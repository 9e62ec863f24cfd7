"""The one structure every retriever returns: a *run*.

``Run = {question_id: [(chunk_id, score), ...]}``, best first. Ties are broken by chunk id so
that runs are deterministic. Run files are JSON: ``{"qid": [["chunk_id", score], ...]}``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .io import read_json, write_json

Run = dict[str, list[tuple[str, float]]]


def top_k(ids: Iterable[str], scores: Iterable[float], k: int) -> list[tuple[str, float]]:
    """Best ``k`` (id, score) pairs by descending score, ties by ascending id."""
    pairs = sorted(zip(ids, (float(s) for s in scores), strict=True), key=lambda p: (-p[1], p[0]))
    return pairs[:k]


def top_k_indices(
    scores: np.ndarray, ids: list[str], k: int, margin: int = 8
) -> list[tuple[str, float]]:
    """Fast ``top_k`` over a score vector: partial sort, then exact ordering with tie-breaking."""
    n = len(scores)
    if n == 0:
        return []
    m = min(n, k + margin)
    idx = np.argpartition(-scores, m - 1)[:m] if m < n else np.arange(n)
    # widen to every score tied with the m-th one, so tie-breaking by id is exact
    cutoff = scores[idx].min()
    idx = np.flatnonzero(scores >= cutoff)
    return top_k((ids[i] for i in idx), scores[idx], k)


def write_run(path: str | Path, run: Run) -> None:
    write_json(path, {q: [[c, s] for c, s in hits] for q, hits in sorted(run.items())})


def read_run(path: str | Path) -> Run:
    return {q: [(c, float(s)) for c, s in hits] for q, hits in read_json(path).items()}
