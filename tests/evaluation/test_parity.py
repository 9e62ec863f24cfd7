import pytest

from fingap.evaluation.parity import parity_row


def _rows(values):
    return [{"question_id": f"q{i}", "PageRec": v} for i, v in enumerate(values)]


def test_identical_rows_are_at_parity_with_nothing_flipped():
    old = _rows([1, 0, 0.5, 1])
    r = parity_row(old, list(reversed(old)), max_abs_delta=0.03, resamples=200)
    assert r["mean_diff"] == 0 and r["parity"] and r["flipped"] == {}
    assert r["old"] == r["new"] == 0.625


def test_one_flip_in_four_shifts_the_mean_by_a_quarter_and_breaks_the_bound():
    old, new = _rows([1, 0, 0, 1]), _rows([1, 1, 0, 1])
    r = parity_row(old, new, max_abs_delta=0.03, resamples=500)
    assert r["mean_diff"] == pytest.approx(0.25)
    assert r["flipped"] == {"q1": [0, 1]}
    assert not r["parity"]  # |0.25| > 0.03 even though the CI may contain 0
    assert parity_row(old, new, max_abs_delta=0.5, resamples=500)["parity"] == (
        r["ci_low"] <= 0 <= r["ci_high"])


def test_a_question_missing_from_the_new_run_is_an_error():
    with pytest.raises(ValueError, match="1 old questions not scored"):
        parity_row(_rows([1, 0]), _rows([1]), max_abs_delta=0.03)
