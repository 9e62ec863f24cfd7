import numpy as np
import pytest

from fingap.retrieval.page_rerank import WindowPicker, rerank_pages

A, B, C, D = ("d", 0), ("d", 1), ("d", 2), ("d", 3)


def test_rerank_reorders_the_head_and_keeps_the_tail_below_it():
    ranked = [(A, 0.9), (B, 0.8), (C, 0.7), (D, 0.6)]
    out = rerank_pages(ranked, [0.1, 2.0, 1.0], n=3)
    assert [k for k, _ in out] == [B, C, A, D]
    assert [s for _, s in out] == [2.0, 1.0, 0.1, pytest.approx(-0.9)]


def test_rerank_ties_keep_the_first_stage_order():
    out = rerank_pages([(A, 0.9), (B, 0.8), (C, 0.7)], [1.0, 1.0, 1.0], n=3)
    assert [k for k, _ in out] == [A, B, C]


def test_rerank_needs_one_score_per_head_page():
    with pytest.raises(ValueError, match="2 reranker scores for 3 pages"):
        rerank_pages([(A, 0.9), (B, 0.8), (C, 0.7)], [1.0, 2.0], n=3)


def test_rerank_of_a_short_list_and_of_none():
    assert rerank_pages([(A, 0.5)], [3.0], n=20) == [(A, 3.0)]
    assert rerank_pages([], [], n=20) == []


def test_window_picker_picks_the_window_closest_to_the_query_and_encodes_each_page_once():
    windows = {A: ["alpha", "beta"], B: ["gamma"], C: []}
    vectors = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "gamma": [0.6, 0.8]}
    calls = []

    def encode(texts):
        calls.append(list(texts))
        return np.array([vectors[t] for t in texts], dtype=np.float32)

    picker = WindowPicker(encode, lambda k: windows[k])
    assert picker.best(np.array([0.0, 1.0]), [A, B, C]) == ["beta", "gamma", ""]
    assert picker.best(np.array([1.0, 0.0]), [B, A]) == ["gamma", "alpha"]
    assert calls == [["alpha", "beta", "gamma"]]  # the second question reused the vectors


def test_a_stored_head_with_its_tail_equals_reranking_in_one_go():
    from fingap.retrieval.page_rerank import attach_tail, rerank_head

    ranked = [(("A", p), 1.0 - p / 10) for p in range(6)]
    scores = [0.2, 0.9, 0.5]
    head = rerank_head(ranked[:3], scores)  # what a page_heads stage stores
    assert [k for k, _ in head] == [("A", 1), ("A", 2), ("A", 0)]
    # the final step adds the first stage's later pages, at any depth P
    assert attach_tail(head, ranked, 3) == rerank_pages(ranked, scores, 3)
    assert attach_tail(head, ranked[:3], 3) == head  # P <= n: no tail
    tail = attach_tail(head, ranked, 3)[3:]
    assert [k for k, _ in tail] == [("A", 3), ("A", 4), ("A", 5)]
    assert all(s < 0.2 for _, s in tail) and tail[0][1] > tail[1][1]
