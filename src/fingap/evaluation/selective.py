"""Selective-answer metrics: how far a user can trust the answers a system chooses to give.

Conventions (one row per question):
- ``answered``: the system gave a number (an abstention, or an answer with no number, is not
  answered);
- ``correct``: StrictAcc of the answer (``fingap.evaluation.strict_accuracy``); an unanswered
  question is never correct;
- ``verified``: the answer carries ``verified: true``;
- ``confidence``: in [0, 1], carried by each answer (``AnswerRecord.confidence``: the lowest
  label-match score of its verified inputs, 0 when a gate check fails; see docs/answers.md).

Metrics:
- Coverage = answered / n; Reliability = correct / answered (accuracy of the answers given);
  StrictAcc = correct / n;
- VerifiedPrecision = correct and verified / verified, with its Wilson 95% interval: the
  share of ``verified`` answers a user can trust;
- the risk-coverage curve ranks every *candidate* answer, the one given and the one the gate
  withheld (``candidate``, ``candidate_correct``; the given answer where a row has none), by
  its confidence, highest first (ties broken by question id, so the curve is deterministic); at
  each prefix of length m, coverage = m / n and risk = wrong candidates in the prefix / m. So
  the curve shows what a user would get at every confidence threshold, withheld answers (their
  confidence is 0) included, and ends where the system has no candidate at all. AURC is the
  mean risk over the prefixes, the usual discrete area under the curve; lower is better.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..core.io import atomic_path


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """Wilson score interval of a binomial proportion (95% by default); None when n = 0."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def risk_coverage(rows: Sequence[dict]) -> list[dict]:
    """Points (coverage, risk, threshold) of the risk-coverage curve; see the module docstring."""
    n = len(rows)
    ranked = sorted((r for r in rows if r.get("candidate", r["answered"])),
                    key=lambda r: (-float(r["confidence"]), str(r["question_id"])))
    points, wrong = [], 0
    for m, r in enumerate(ranked, 1):
        wrong += not r.get("candidate_correct", r["correct"])
        points.append({"coverage": round(m / n, 4), "risk": round(wrong / m, 4),
                       "confidence": round(float(r["confidence"]), 4)})
    return points


def aurc(points: Sequence[dict]) -> float | None:
    return round(sum(p["risk"] for p in points) / len(points), 4) if points else None


def selective_metrics(rows: Sequence[dict]) -> dict:
    """The metrics of the module docstring over rows with question_id, answered, correct,
    verified and confidence."""
    n = len(rows)
    answered = [r for r in rows if r["answered"]]
    correct = sum(bool(r["correct"]) for r in rows)
    verified = [r for r in answered if r["verified"]]
    v_right = sum(bool(r["correct"]) for r in verified)
    points = risk_coverage(rows)
    return {
        "n": n, "answered": len(answered), "correct": correct,
        "Coverage": round(len(answered) / n, 4) if n else None,
        "Reliability": round(correct / len(answered), 4) if answered else None,
        "StrictAcc": round(correct / n, 4) if n else None,
        "verified": len(verified), "verified_correct": v_right,
        "verified_wrong": len(verified) - v_right,
        "VerifiedPrecision": round(v_right / len(verified), 4) if verified else None,
        "VerifiedPrecision_CI95": wilson_interval(v_right, len(verified)),
        "AURC": aurc(points), "curve": points,
    }


def write_curves_csv(path: Path, curves: Mapping[str, Sequence[dict]]) -> None:
    """One row per point: the curve's name (set or run), coverage, risk, confidence (what
    ``dvc plots`` draws)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp, open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["curve", "coverage", "risk", "confidence"])
        for name, points in curves.items():
            for p in points:
                w.writerow([name, p["coverage"], p["risk"], p["confidence"]])


def plot_risk_coverage(path: Path, curves: Mapping[str, Sequence[dict]]) -> None:
    """Risk (wrong share of the answers given) against coverage, one line per curve, each
    ending where the system stops answering; its AURC in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for name, points in curves.items():
        if points:
            ax.step([p["coverage"] for p in points], [p["risk"] for p in points], where="post",
                    label=f"{name} (AURC {aurc(points):.3f})")
    ax.set_xlabel("coverage (share of questions answered)")
    ax.set_ylabel("risk (share of the answers given that are wrong)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Risk-coverage: answers ordered by confidence")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
