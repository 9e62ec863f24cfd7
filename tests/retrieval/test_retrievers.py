import numpy as np
import pytest

from fingap.core.runs import read_run, top_k, top_k_indices, write_run
from fingap.ingestion.corpus import Evidence, Question
from fingap.retrieval.bm25 import BM25Retriever
from fingap.retrieval.conditions import allowed_rows
from fingap.retrieval.dense import DenseRetriever

IDS = ["A::p0000::c00", "A::p0001::c00", "B::p0000::c00", "B::p0001::c00"]
TEXTS = [
    "Total revenue in FY2018 was $1,577 million.",
    "Capital expenditure (CAPEX) and purchases of PP&E.",
    "Dividend of $0.42 per share declared.",
    "Operating margin 21.5% in Q3.",
]


def q(qid, doc, pages):
    return Question(qid, "", doc, "10K", "metrics-generated", "", "", "",
                    [Evidence(doc, p, "", "") for p in pages])


@pytest.mark.parametrize("backend", ["bm25s", "rank_bm25"])
def test_bm25_backends_find_the_matching_chunk(backend):
    r = BM25Retriever.from_texts(IDS, TEXTS, backend=backend)
    run = r.search({"x": "purchases of PP&E capex", "y": "margin in Q3", "z": "nothing matches"}, 2)
    assert run["x"][0][0] == IDS[1]
    assert run["y"][0][0] == IDS[3]
    assert len(run["z"]) == 2 and all(s == 0 for _, s in run["z"])


def test_bm25_backends_rank_alike():
    a = BM25Retriever.from_texts(IDS, TEXTS, backend="bm25s")
    b = BM25Retriever.from_texts(IDS, TEXTS, backend="rank_bm25")
    query = {"q": "revenue $1,577 FY2018 dividend"}
    assert a.search(query, 4)["q"][0][0] == b.search(query, 4)["q"][0][0]


def test_bm25_save_load_roundtrip(tmp_path):
    r = BM25Retriever.from_texts(IDS, TEXTS)
    r.save(tmp_path / "bm25")
    r2 = BM25Retriever.load(tmp_path / "bm25")
    query = {"q": "dividend per share"}
    assert r.search(query, 3) == r2.search(query, 3)


def test_restriction_returns_only_allowed_rows():
    r = BM25Retriever.from_texts(IDS, TEXTS)
    run = r.search({"x": "revenue dividend margin capex"}, 5, allowed={"x": np.array([2, 3])})
    assert {c for c, _ in run["x"]} == {IDS[2], IDS[3]}
    run = r.search({"x": "revenue"}, 5, allowed={"x": np.array([], dtype=np.int64)})
    assert run["x"] == []


def test_dense_standard_and_restricted_agree():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(4, 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    r = DenseRetriever(IDS, emb)
    qv = emb[[1]] + 0.01
    full = top_k_indices(r.score_vectors(qv)[0], IDS, 4)
    assert full[0][0] == IDS[1]
    r.encode_queries = lambda texts: np.repeat(qv, len(texts), axis=0)
    assert [c for c, _ in r.search({"x": "?"}, 4)["x"]] == [c for c, _ in full]
    restricted = r.search({"x": "?"}, 4, allowed={"x": np.array([0, 2])})["x"]
    assert [c for c, _ in restricted] == [c for c, _ in full if c in {IDS[0], IDS[2]}]


def test_ties_are_broken_by_chunk_id():
    assert top_k(["b", "a", "c"], [1.0, 1.0, 2.0], 2) == [("c", 2.0), ("a", 1.0)]
    scores = np.ones(20, dtype=np.float32)
    ids = [f"id{i:02d}" for i in range(20)][::-1]
    assert [c for c, _ in top_k_indices(scores, ids, 3)] == ["id00", "id01", "id02"]


def test_conditions():
    docs = ["A", "A", "B", "B"]
    pages = [0, 1, 0, 1]
    questions = [q("q1", "A", [1]), q("q2", "B", [0, 1])]
    assert allowed_rows("standard", questions, docs, pages) is None
    od = allowed_rows("oracle_doc", questions, docs, pages)
    assert od["q1"].tolist() == [0, 1] and od["q2"].tolist() == [2, 3]
    op = allowed_rows("oracle_page", questions, docs, pages)
    assert op["q1"].tolist() == [1] and op["q2"].tolist() == [2, 3]
    with pytest.raises(ValueError):
        allowed_rows("oracle_chunk", questions, docs, pages)


def test_run_file_roundtrip(tmp_path):
    run = {"q2": [("c1", 0.5)], "q1": [("c2", 1.25), ("c3", 1.0)]}
    write_run(tmp_path / "r.json", run)
    assert read_run(tmp_path / "r.json") == run


def test_no_question_searches_nothing():
    """A corpus without questions: every retriever's search is an empty run."""
    r = BM25Retriever.from_texts(IDS, TEXTS)
    assert r.search({}, 3) == {} and r.search({}, 3, allowed={}) == {}
