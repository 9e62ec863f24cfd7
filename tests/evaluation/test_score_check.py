from pathlib import Path

import pytest

from fingap.core.io import read_json
from fingap.evaluation.score_check import (
    EXPECTED,
    check_scores,
    expected_from_metrics,
    load_expected,
)

METRICS = {"bm25": {"standard": {"DocRec@5": 0.61, "PageRec@5": 0.124, "n": 129}},
           "questions": {"n_evaluated": 129}}


def test_expected_roundtrip_and_tolerance():
    exp = expected_from_metrics(METRICS, ["bm25"], tolerance=0.01)
    assert check_scores(METRICS, exp) == []
    moved = {"bm25": {"standard": {"DocRec@5": 0.63, "PageRec@5": 0.124}}}
    assert check_scores(moved, exp) == [
        "bm25/standard DocRec@5: expected 0.6100 +- 0.01, got 0.63"]
    assert check_scores({}, exp) == ["bm25/standard: missing from metrics"]


def test_committed_metrics_match_committed_expected_scores():
    root = Path(__file__).resolve().parents[2]
    metrics = root / "reports/metrics.json"
    if not metrics.exists() or not (root / EXPECTED).exists():
        pytest.skip("no committed full-run metrics yet")
    assert check_scores(read_json(metrics), load_expected(root / EXPECTED)) == []


def test_committed_study_metrics_match_their_expected_scores():
    """The studies' rows, once the studies pipeline has written reports/studies/metrics.json
    (its expected scores were measured before the split, in the single pipeline)."""
    root = Path(__file__).resolve().parents[2]
    metrics = root / "reports/studies/metrics.json"
    if not metrics.exists():
        pytest.skip("the studies pipeline has not run yet")
    expected = load_expected(root / "tests/golden/expected_study_scores.yaml")
    assert check_scores(read_json(metrics), expected) == []
