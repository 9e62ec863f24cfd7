"""Paired bootstrap confidence intervals for differences between two runs on the same questions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n_resamples: int = 10000,
                     seed: int = 0, alpha: float = 0.05) -> dict[str, float]:
    """Mean of a - b with a percentile bootstrap interval, resampling questions (pairs)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError("paired bootstrap needs two equally long, non-empty score lists")
    diff = a - b
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(n_resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return {"mean_diff": float(diff.mean()), "ci_low": float(lo), "ci_high": float(hi),
            "p_le_0": float((means <= 0).mean()), "n": int(len(diff))}
