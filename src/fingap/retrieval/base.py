"""Retriever base class: subclasses score chunks; the public ``search`` is written once.

``search`` applies the evaluation condition (a per-question set of allowed chunk rows), ranks
deterministically (score, then chunk id) and returns a :data:`fingap.core.runs.Run`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np

from ..core.runs import Run, top_k_indices


class Retriever(ABC):
    #: chunk ids in index row order
    ids: list[str]

    @abstractmethod
    def score(self, queries: list[str]) -> np.ndarray:
        """Scores of every chunk for every query: shape (n_queries, n_chunks)."""

    def top_k_all(self, queries: list[str], k: int) -> list[list[tuple[str, float]]]:
        """Unrestricted top-k; subclasses override with an index's fast path."""
        return [top_k_indices(row, self.ids, k) for row in self.score(queries)]

    def search(
        self,
        queries: Mapping[str, str],
        k: int,
        allowed: Mapping[str, np.ndarray] | None = None,
    ) -> Run:
        """Top-k chunks per question; ``allowed[qid]`` restricts candidates to those rows."""
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        if not queries:  # a corpus without questions: nothing to score (and no matrix to stack)
            return {}
        qids = sorted(queries)
        texts = [queries[q] for q in qids]
        if allowed is None:
            return dict(zip(qids, self.top_k_all(texts, k), strict=True))
        run: Run = {}
        scores = self.score(texts)
        for qid, row in zip(qids, scores, strict=True):
            rows = np.asarray(allowed[qid], dtype=np.int64)
            run[qid] = top_k_indices(row[rows], [self.ids[i] for i in rows], k)
        return run


def query_latency(retriever, queries: list[str], k: int) -> dict:
    """p50/p95 latency (ms) of single-query searches."""
    times = []
    for q in queries:
        t0 = time.perf_counter()
        retriever.search({"q": q}, k)
        times.append(1000 * (time.perf_counter() - t0))
    return {"p50_ms": round(float(np.percentile(times, 50)), 3),
            "p95_ms": round(float(np.percentile(times, 95)), 3), "n": len(times)}
