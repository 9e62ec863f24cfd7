import numpy as np
import pytest

from fingap.retrieval.final_step import _ranks, combine, order

IDS = ["a", "b", "c", "d"]
PAGE = np.array([0.9, 0.9, 0.5, 0.1])   # a and b lie on the best page
CHUNK = np.array([0.2, 0.6, 0.8, 0.7])


def test_algorithm1_orders_by_chunk_score():
    assert [c for c, _ in order(IDS, PAGE, CHUNK, "algorithm1", 4)] == ["c", "d", "b", "a"]


def test_page_score_then_chunk_score():
    assert [c for c, _ in order(IDS, PAGE, CHUNK, "page_score", 4)] == ["b", "a", "c", "d"]


def test_linear_hand_computed():
    top = order(IDS, PAGE, CHUNK, "linear", 4, weight=0.5)
    # a .55, b .75, c .65, d .40
    assert [c for c, _ in top] == ["b", "c", "a", "d"]
    assert top[0][1] == pytest.approx(0.75)


def test_rrf_hand_computed():
    # page ranks: a 1, b 1, c 3, d 4; chunk ranks: c 1, d 2, b 3, a 4
    fused, _ = combine(PAGE, CHUNK, "rrf", k_rrf=60)
    assert fused[1] == pytest.approx(1 / 61 + 1 / 63)
    assert fused[2] == pytest.approx(1 / 63 + 1 / 61)
    assert [c for c, _ in order(IDS, PAGE, CHUNK, "rrf", 2)] == ["c", "b"]  # tie -> chunk score


def test_ranks_share_ties():
    assert _ranks(np.array([0.9, 0.9, 0.5])).tolist() == [1, 1, 3]


def test_unknown_strategy():
    with pytest.raises(ValueError):
        combine(PAGE, CHUNK, "magic")
