import pytest

from fingap.answers.label_match import LabelMatcher


@pytest.fixture(scope="module")
def matcher():
    return LabelMatcher("minilm")


def test_scores_normalise_and_rank_by_meaning(matcher):
    s = matcher.scores(["total current liabilities"],
                       ["Total current liabilities (a)", "Total current assets", "Net sales"])
    assert s.shape == (3,) and s[0] == pytest.approx(1.0, abs=1e-5)
    assert s[0] > s[1] > s[2]
    # the best of several phrases counts
    both = matcher.scores(["revenue", "net sales"], ["Net sales"])
    assert both[0] == pytest.approx(1.0, abs=1e-5)


def test_empty_inputs(matcher):
    assert matcher.scores([], ["Net sales"]).tolist() == [0.0]
    assert matcher.matrix(["x"], []).shape == (1, 0)
