"""Final-step strategies for page-then-chunk retrieval (beyond the paper's Algorithm 1).

In Algorithm 1 the fine-tuned page scorer only chooses the P candidate pages and the untuned
chunk encoder orders the final top k. These strategies let the page score take part in the final
ordering. Every weight here is fixed in advance (never tuned on the scored questions):

- ``algorithm1``: chunk score only (the paper).
- ``page_score``: the chunk's page score, ties by chunk score.
- ``linear``: w * page score + (1 - w) * chunk score (both cosine similarities), w = 0.5.
- ``rrf``: 1 / (k_rrf + page rank) + 1 / (k_rrf + chunk rank), ranks 1-based, k_rrf = 60.
"""

from __future__ import annotations

import numpy as np

STRATEGIES = ("algorithm1", "page_score", "linear", "rrf")


def _ranks(scores: np.ndarray) -> np.ndarray:
    """1-based ranks, best first (ties share the better rank)."""
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    current = 1
    for i, idx in enumerate(order):
        if i > 0 and sorted_scores[i] != sorted_scores[i - 1]:
            current = i + 1
        ranks[idx] = current
    return ranks


def combine(page_scores: np.ndarray, chunk_scores: np.ndarray, strategy: str,
            weight: float = 0.5, k_rrf: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """(primary, secondary) sort keys for candidate chunks, higher is better."""
    page_scores = np.asarray(page_scores, dtype=np.float64)
    chunk_scores = np.asarray(chunk_scores, dtype=np.float64)
    if strategy == "algorithm1":
        return chunk_scores, page_scores
    if strategy == "page_score":
        return page_scores, chunk_scores
    if strategy == "linear":
        return weight * page_scores + (1 - weight) * chunk_scores, chunk_scores
    if strategy == "rrf":
        fused = 1.0 / (k_rrf + _ranks(page_scores)) + 1.0 / (k_rrf + _ranks(chunk_scores))
        return fused, chunk_scores
    raise ValueError(f"unknown final-step strategy {strategy!r}; expected one of {STRATEGIES}")


def order(ids: list[str], page_scores: np.ndarray, chunk_scores: np.ndarray, strategy: str,
          k: int, **kw) -> list[tuple[str, float]]:
    """Top-k (chunk id, primary score): by primary, then secondary, then chunk id."""
    primary, secondary = combine(page_scores, chunk_scores, strategy, **kw)
    rows = sorted(range(len(ids)), key=lambda i: (-primary[i], -secondary[i], ids[i]))
    return [(ids[i], float(primary[i])) for i in rows[:k]]
