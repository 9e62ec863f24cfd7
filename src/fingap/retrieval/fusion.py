"""Reciprocal rank fusion of runs: s(c) = sum over runs of w_r / (k_rrf + rank_r(c)).

Ranks are 1-based. Runs from different indexes are aligned by a content key (default: the chunk
id itself; ``chunk_content_key`` gives a SHA-1 of text + doc + page for runs whose chunk ids
differ but whose chunks are the same).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from ..core.runs import Run, top_k


def chunk_content_key(text: str, doc: str, page: int) -> str:
    return hashlib.sha1(f"{doc}\x00{page}\x00{text}".encode()).hexdigest()


def rrf(runs: Sequence[Run], k: int, k_rrf: int = 60, weights: Sequence[float] | None = None,
        key: Callable[[str], str] | None = None) -> Run:
    """Fuse runs; the fused run keeps, for each key, the chunk id that first produced it."""
    if not runs:
        raise ValueError("rrf needs at least one run")
    if weights is None:
        weights = [1.0] * len(runs)
    if len(weights) != len(runs):
        raise ValueError(f"{len(weights)} weights for {len(runs)} runs")
    key = key or (lambda c: c)
    qids = sorted(set().union(*(r.keys() for r in runs)))
    fused: Run = {}
    for q in qids:
        scores: dict[str, float] = defaultdict(float)
        rep: dict[str, str] = {}
        for run, w in zip(runs, weights, strict=True):
            for rank, (cid, _) in enumerate(run.get(q, []), start=1):
                kk = key(cid)
                scores[kk] += w / (k_rrf + rank)
                rep.setdefault(kk, cid)
        hits = top_k(list(scores), list(scores.values()), len(scores))
        fused[q] = [(rep[kk], s) for kk, s in hits][:k]
    return fused


def fuse_by_content(runs: Sequence[Run], k: int, chunk_rows: Mapping[str, tuple[str, str, int]],
                    **kw) -> Run:
    """RRF with chunks aligned by SHA-1 of (text, doc, page); rows: id -> (text, doc, page)."""
    return rrf(runs, k, key=lambda c: chunk_content_key(*chunk_rows[c]), **kw)
