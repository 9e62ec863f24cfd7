"""Parity of a retrained row with the same row from earlier code: the paired CI of
(new - old) PageRec must contain 0 and the mean shift stay within a bound."""

from __future__ import annotations

from collections.abc import Sequence

from .stats import paired_bootstrap


def parity_row(old: Sequence[dict], new: Sequence[dict], max_abs_delta: float,
               resamples: int = 10000, seed: int = 0) -> dict:
    """Compare per-question records (``question_id``, ``PageRec``) on the old row's questions.

    Returns the old/new means, the paired bootstrap CI of new - old, ``parity`` and the
    questions whose PageRec changed (``{id: [old, new]}``)."""
    new_by_id = {r["question_id"]: r["PageRec"] for r in new}
    missing = [r["question_id"] for r in old if r["question_id"] not in new_by_id]
    if missing:
        raise ValueError(f"{len(missing)} old questions not scored in the new run, "
                         f"e.g. {missing[:3]}")
    ids = [r["question_id"] for r in old]
    a = [new_by_id[q] for q in ids]
    b = [r["PageRec"] for r in old]
    ci = paired_bootstrap(a, b, n_resamples=resamples, seed=seed)
    flipped = {q: [o, n] for q, o, n in zip(ids, b, a, strict=True) if o != n}
    ok = ci["ci_low"] <= 0 <= ci["ci_high"] and abs(ci["mean_diff"]) <= max_abs_delta
    return {"old": sum(b) / len(b), "new": sum(a) / len(a), **ci, "parity": ok,
            "flipped": flipped}
