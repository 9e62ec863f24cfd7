"""Expected scores, in the spirit of pyserini's reproducibility YAMLs.

``tests/golden/expected_scores.yaml`` holds, per method and condition, the DocRec@5 and
PageRec@5 a full default run gives, with a tolerance. ``fingap check-scores`` compares a run's
``reports/metrics.json`` with it and names every row that moved.
"""

from __future__ import annotations

from pathlib import Path

import yaml

EXPECTED = Path("tests/golden/expected_scores.yaml")


def expected_from_metrics(metrics: dict, methods: list[str], tolerance: float,
                          keys: tuple[str, ...] = ("DocRec@5", "PageRec@5")) -> dict:
    return {
        "tolerance": tolerance,
        "scores": {m: {c: {k: round(float(row[k]), 4) for k in keys}
                       for c, row in metrics[m].items()} for m in methods},
    }


def check_scores(metrics: dict, expected: dict) -> list[str]:
    """One line per (method, condition, metric) outside tolerance, or missing."""
    tol = float(expected.get("tolerance", 0.01))
    problems = []
    for method, conds in expected["scores"].items():
        for cond, row in conds.items():
            got = metrics.get(method, {}).get(cond)
            if got is None:
                problems.append(f"{method}/{cond}: missing from metrics")
                continue
            for key, want in row.items():
                value = got.get(key)
                if value is None or abs(float(value) - float(want)) > tol:
                    problems.append(f"{method}/{cond} {key}: expected {want:.4f} +- {tol}, "
                                    f"got {value}")
    return problems


def load_expected(path: Path = EXPECTED) -> dict:
    return yaml.safe_load(path.read_text())
