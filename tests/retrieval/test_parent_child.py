import numpy as np

from fingap.retrieval.dense import DenseRetriever
from fingap.retrieval.parent_child import ParentChildRetriever, assign_parents


def _chunk(cid, doc, page, s, e):
    return {"chunk_id": cid, "doc": doc, "page": page, "token_start": s, "token_end": e}


def test_children_map_to_the_most_overlapping_parent_on_their_page():
    parents = [_chunk("P0", "D", 0, 0, 1024), _chunk("P1", "D", 0, 896, 1500),
               _chunk("Q0", "D", 1, 0, 300)]
    children = [_chunk("c0", "D", 0, 0, 256), _chunk("c1", "D", 0, 896, 1152),
                _chunk("c2", "D", 0, 800, 1056), _chunk("c3", "D", 1, 0, 256)]
    # c2 overlaps P0 by 224 and P1 by 160 -> P0; c1 overlaps P0 by 128, P1 by 256 -> P1
    assert assign_parents(children, parents) == [0, 1, 0, 2]


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
