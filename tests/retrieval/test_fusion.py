import pytest

from fingap.retrieval.fusion import chunk_content_key, fuse_by_content, rrf


def test_rrf_hand_computed():
    a = {"q": [("x", 9.0), ("y", 8.0), ("z", 7.0)]}
    b = {"q": [("y", 0.9), ("w", 0.8)]}
    fused = rrf([a, b], k=4, k_rrf=60)["q"]
    # y: 1/62 + 1/61; x: 1/61; w: 1/62; z: 1/63
    assert [c for c, _ in fused] == ["y", "x", "w", "z"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[3][1] == pytest.approx(1 / 63)


def test_weighted_rrf_and_cutoff():
    a = {"q": [("x", 1.0)]}
    b = {"q": [("y", 1.0)]}
    assert [c for c, _ in rrf([a, b], k=1, weights=[1.0, 2.0])["q"]] == ["y"]
    assert [c for c, _ in rrf([a, b], k=2)["q"]] == ["x", "y"]  # tie broken by id
    with pytest.raises(ValueError):
        rrf([a, b], k=1, weights=[1.0])


def test_fusion_aligns_chunks_by_content():
    rows = {"bm25:1": ("same text", "D", 3), "dense:7": ("same text", "D", 3),
            "dense:8": ("other", "D", 4)}
    a = {"q": [("bm25:1", 5.0)]}
    b = {"q": [("dense:8", 0.9), ("dense:7", 0.8)]}
    fused = fuse_by_content([a, b], 5, rows)["q"]
    assert [c for c, _ in fused] == ["bm25:1", "dense:8"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert chunk_content_key("t", "D", 1) != chunk_content_key("t", "D", 2)
