import numpy as np
import pytest

from fingap.retrieval.dense import DenseRetriever
from fingap.retrieval.parent_child import ParentChildRetriever, parent_rows


def test_children_name_their_parent_chunk():
    assert parent_rows(["P1::w0", "P0::w0", "P0::w1", "P0::w10"], ["P0", "P1"]) == [1, 0, 0, 0]
    # a chunk id may itself hold '::' parts: only the last window separator counts
    assert parent_rows(["D::p0001::c00::w3"], ["D::p0001::c00"]) == [0]
    with pytest.raises(ValueError, match="P9::w0"):
        parent_rows(["P9::w0"], ["P0"])
    with pytest.raises(ValueError, match="rerun index@dense"):
        parent_rows(["P0"], ["P0"])


def test_parents_deduplicated_and_scored_by_best_child():
    child_ids = ["c0", "c1", "c2", "c3"]
    emb = np.eye(4, dtype=np.float32)
    child = DenseRetriever(child_ids, emb)
    child.encode_queries = lambda texts: np.tile(
        np.array([[0.9, 0.8, 0.1, 0.5]], dtype=np.float32), (len(texts), 1))
    pc = ParentChildRetriever(child, ["P0", "P1", "P2"], [0, 0, 1, 2])
    run = pc.search({"q": "?"}, 5)["q"]
    assert [(c, round(s, 4)) for c, s in run] == [("P0", 0.9), ("P2", 0.5), ("P1", 0.1)]
    assert len({c for c, _ in run}) == len(run)  # no parent twice
    restricted = pc.search({"q": "?"}, 5, allowed={"q": np.array([1, 2])})["q"]
    assert [c for c, _ in restricted] == ["P2", "P1"]


def test_dense_index_keeps_its_windows_as_the_children(tmp_path):
    from fingap.core.io import write_jsonl
    from fingap.retrieval.embedding import TextEncoder
    from fingap.steps.index import run_index

    texts = [" ".join(f"segment {i} revenue {n}" for n in range(30)) for i in range(3)]
    chunks = [{"chunk_id": f"D::p{i:04d}::c00", "doc": "D", "page": i, "text": t}
              for i, t in enumerate(texts)]
    write_jsonl(tmp_path / "chunks.jsonl", chunks)
    params = {"model": "minilm", "max_seq_length": 32, "long_text": "mean_pool",
              "precision": "fp32", "batch_size": 8}
    stats = run_index("dense", params, tmp_path / "chunks.jsonl", tmp_path / "dense")
    parents = DenseRetriever.load(tmp_path / "dense")
    children = DenseRetriever.load(tmp_path / "dense" / "windows")
    assert stats["windows"] == len(children.ids) > len(chunks)
    rows = parent_rows(children.ids, parents.ids)
    assert sorted(set(rows)) == [0, 1, 2] and rows == sorted(rows)
    enc = TextEncoder("minilm", max_seq_length=32, precision="fp32")
    mean = children.embeddings[np.asarray(rows) == 1].mean(axis=0)
    np.testing.assert_allclose(mean / np.linalg.norm(mean), parents.embeddings[1], atol=1e-6)
    assert len(children.ids) == sum(len(enc.split_long(t)) for t in texts)
