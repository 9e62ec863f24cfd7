import numpy as np
import pytest

from fingap.retrieval.reranking import CrossEncoderReranker

Q = "What was the dividend per share in 2022?"
SHORT = "Dividend: $0.42."
LONG = ["The board declared a quarterly dividend of $0.42 per share. " * 30,
        "Legal proceedings are described in Note 12 to the financial statements. " * 30]


@pytest.fixture(scope="module")
def reranker():
    return CrossEncoderReranker("minilm", max_length=64, batch_size=8, precision="bf16", seed=5)


def test_a_pair_scores_the_same_whatever_it_is_batched_with(reranker):
    alone = reranker.score([(Q, SHORT)])
    mixed = reranker.score([(Q, LONG[0]), (Q, SHORT), (Q, LONG[1])])
    assert alone[0] == mixed[1]  # bitwise: equal-length batches pad nothing
    assert list(reranker.score([(Q, t) for t in LONG])) == [mixed[0], mixed[2]]


def test_the_score_cache_returns_exactly_what_a_fresh_model_computes(tmp_path, reranker):
    pairs = [(Q, SHORT), (Q, LONG[0])]
    cached = CrossEncoderReranker("minilm", max_length=64, batch_size=8, precision="bf16",
                                  seed=5, cache_path=tmp_path / "scores.sqlite")
    first = cached.score(pairs)
    assert np.array_equal(first, reranker.score(pairs))

    again = CrossEncoderReranker("minilm", max_length=64, batch_size=8, precision="bf16",
                                 seed=5, cache_path=tmp_path / "scores.sqlite")
    computed = []
    real = again._compute
    again._compute = lambda ps: computed.extend(ps) or real(ps)
    both = again.score(pairs + [(Q, LONG[1])])
    assert computed == [(Q, LONG[1])]  # only the pair it had not seen
    assert np.array_equal(both[:2], first)

    # another fresh head (seed) is another model: it never reads these scores
    other = CrossEncoderReranker("minilm", max_length=64, batch_size=8, precision="bf16",
                                 seed=6, cache_path=tmp_path / "scores.sqlite")
    assert other._key(*pairs[0]) != again._key(*pairs[0])
