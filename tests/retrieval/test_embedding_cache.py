"""Query and text embeddings come from the cache without loading the model, and equal fresh
ones."""

import numpy as np
import pytest

from fingap.retrieval import page_ranking
from fingap.retrieval.embedding import TextEncoder

QUERIES = ["What was capital expenditure in FY2022?", "Operating margin in Q2 2023?"]


def _no_model(*_args, **_kwargs):
    raise AssertionError("the model was loaded although the cache held every text")


def test_page_scorer_queries_cached_all_or_nothing(tmp_path, monkeypatch):
    cache = tmp_path / "emb.sqlite"
    fresh = page_ranking.encode_queries("minilm", QUERIES, 64, "fp32")
    first = page_ranking.encode_queries("minilm", QUERIES, 64, "fp32", cache)
    np.testing.assert_array_equal(first, fresh)
    monkeypatch.setattr(page_ranking, "load_bi_encoder", _no_model)
    np.testing.assert_array_equal(page_ranking.encode_queries("minilm", QUERIES, 64, "fp32",
                                                              cache), fresh)
    # another batch (one query fewer), length or precision is a miss: the model is needed
    for texts, length, precision in ((QUERIES[:1], 64, "fp32"), (QUERIES, 32, "fp32"),
                                     (QUERIES, 64, "bf16")):
        with pytest.raises(AssertionError, match="model was loaded"):
            page_ranking.encode_queries("minilm", texts, length, precision, cache)


def test_text_encoder_loads_its_model_only_on_a_cache_miss(tmp_path):
    cache = tmp_path / "emb.sqlite"
    first = TextEncoder("minilm", max_seq_length=64, precision="fp32", cache_path=cache)
    vecs = first.encode(QUERIES)
    assert first._model is not None
    again = TextEncoder("minilm", max_seq_length=64, precision="fp32", cache_path=cache)
    np.testing.assert_array_equal(again.encode(QUERIES), vecs)
    assert again._model is None and again.stats["cached"] == 2
    again.encode(["a text it has never seen"])
    assert again._model is not None and again.model.max_seq_length == 64


LONG = " ".join(f"revenue rose {i} percent in fiscal year {2000 + i}" for i in range(40))


def test_window_embeddings_are_the_windows_a_text_averages(tmp_path):
    cache = tmp_path / "emb.sqlite"
    enc = TextEncoder("minilm", max_seq_length=32, precision="fp32", cache_path=cache)
    texts = [LONG, QUERIES[0]]
    vecs, windows = enc.encode_with_windows(texts)
    np.testing.assert_array_equal(vecs, TextEncoder(
        "minilm", max_seq_length=32, precision="fp32").encode(texts))  # what encode gives
    assert [len(w) for w in windows] == [len(enc.split_long(t)) for t in texts]
    assert len(windows[0]) > 2 and len(windows[1]) == 1
    mean = windows[0].mean(axis=0)
    np.testing.assert_allclose(mean / np.linalg.norm(mean), vecs[0], atol=1e-6)
    np.testing.assert_allclose(windows[0][1], enc.encode_raw([enc.split_long(LONG)[1]])[0],
                               atol=1e-5)
    # from the cache, without the model, bit for bit
    again = TextEncoder("minilm", max_seq_length=32, precision="fp32", cache_path=cache)
    v2, w2 = again.encode_with_windows(texts)
    assert again._model is None
    np.testing.assert_array_equal(v2, vecs)
    for a, b in zip(w2, windows, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_cached_text_without_its_windows_is_encoded_again(tmp_path):
    cache = tmp_path / "emb.sqlite"
    TextEncoder("minilm", max_seq_length=32, precision="fp32", cache_path=cache).encode([LONG])
    enc = TextEncoder("minilm", max_seq_length=32, precision="fp32", cache_path=cache)
    _, windows = enc.encode_with_windows([LONG])
    assert enc.stats["encoded"] == 1 and len(windows[0]) > 2


def test_window_embeddings_need_mean_pooling():
    enc = TextEncoder("minilm", max_seq_length=32, long_text="truncate", precision="fp32")
    with pytest.raises(Exception, match="dense.long_text: mean_pool"):
        enc.encode_with_windows([LONG])
