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
