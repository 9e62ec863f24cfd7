"""Exact and approximate vector search, unrestricted and restricted to allowed rows."""

import numpy as np
import pytest

from fingap.core.params import ParamError
from fingap.retrieval.ann import AnnConfig, VectorSearch


def _clustered(n: int, d: int = 32, centres: int = 40, seed: int = 0) -> np.ndarray:
    """Normalised vectors around a few centres: the structure IVF lists rely on."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centres, d))
    x = c[rng.integers(0, centres, n)] + 0.3 * rng.normal(size=(n, d))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _exact_top(x: np.ndarray, q: np.ndarray, k: int, rows=None) -> list[set]:
    rows = np.arange(len(x)) if rows is None else rows
    s = q @ x[rows].T
    return [set(rows[np.argsort(-r)[:k]].tolist()) for r in s]


def test_small_sets_stay_exact_whatever_the_kind():
    x = _clustered(500)
    vs = VectorSearch(x, AnnConfig(kind="ivf", exact_below=1000))
    assert vs.kind == "exact" and vs.index is None
    scores, rows = vs.search(x[:3], 5)
    assert rows[:, 0].tolist() == [0, 1, 2] and np.all(np.diff(scores, axis=1) <= 0)


def test_exact_orders_ties_by_row():
    x = np.ones((6, 4), np.float32) / 2
    scores, rows = VectorSearch(x, AnnConfig(kind="exact")).search(x[:1], 4)
    assert rows.tolist() == [[0, 1, 2, 3]]


@pytest.mark.parametrize("kind", ["ivf", "ivf_pq", "hnsw"])
def test_approximate_kinds_find_the_exact_neighbours(kind):
    x = _clustered(4000)
    cfg = AnnConfig(kind=kind, exact_below=0, nlist=16, nprobe=16, pq_m=8, refine=8)
    vs = VectorSearch(x, cfg)
    assert vs.kind == kind and vs.index is not None
    q = x[:20] + 0.05
    _, rows = vs.search(q, 10)
    exact = _exact_top(x, q, 10)
    recall = np.mean([len(set(r.tolist()) & e) / 10 for r, e in zip(rows, exact, strict=True)])
    assert recall >= 0.95, recall


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
@pytest.mark.parametrize("subset", [0, 10_000])  # 0: through faiss's ID selector
def test_a_restricted_search_never_leaves_its_rows(kind, subset):
    x = _clustered(3000)
    vs = VectorSearch(x, AnnConfig(kind=kind, exact_below=0, nlist=8, nprobe=8,
                                   exact_subset=subset))
    allowed = np.arange(100, 400, 3)
    scores, rows = vs.search(x[:5], 10, allowed)
    assert set(rows.ravel().tolist()) <= set(allowed.tolist())
    if subset:  # few rows: scored exactly
        assert [set(r.tolist()) for r in rows] == _exact_top(x, x[:5], 10, allowed)
    # more asked than allowed: padded with -1 where the index has no candidate left
    _, rows = vs.search(x[:1], 200, np.array([5, 6, 7]))
    assert set(rows[0][rows[0] >= 0].tolist()) <= {5, 6, 7}


def test_bad_params_name_the_parameter():
    with pytest.raises(ParamError, match="ann.kind must be one of"):
        AnnConfig.from_params({"kind": "lsh"})
    with pytest.raises(ParamError, match="ann: unknown keys"):
        AnnConfig.from_params({"nprob": 3})
    with pytest.raises(ParamError, match="pq_m = 7 must divide"):
        VectorSearch(_clustered(2000), AnnConfig(kind="ivf_pq", exact_below=0, pq_m=7))



def test_the_chunk_and_page_indexes_search_approximately_past_their_size():
    from fingap.retrieval.dense import DenseRetriever
    from fingap.retrieval.page_ranking import PageIndex

    x = _clustered(3000)
    ids = [f"c{i:05d}" for i in range(len(x))]
    cfg = AnnConfig(kind="ivf", exact_below=1000, nlist=16, nprobe=16, exact_subset=0)
    approx, exact = DenseRetriever(ids, x, ann=cfg), DenseRetriever(ids, x)
    assert approx.ann is not None and exact.ann is None
    assert DenseRetriever(ids[:500], x[:500], ann=cfg).ann is None   # below exact_below

    class Fixed:   # an encoder that returns the given vectors
        def encode(self, texts, desc=None):
            return x[[int(t) for t in texts]]

    approx.encoder = exact.encoder = Fixed()
    queries = {f"q{i}": str(i) for i in (3, 70, 900)}
    a, e = approx.search(queries, 5), exact.search(queries, 5)
    assert all(len({c for c, _ in a[q]} & {c for c, _ in e[q]}) >= 4 for q in queries)
    # a restricted search (Oracle-Doc, a routed document) stays inside its rows
    rows = {q: np.arange(1000, 1600) for q in queries}
    run = approx.search(queries, 5, rows)
    assert all(1000 <= int(c[1:]) < 1600 for q in queries for c, _ in run[q])

    keys = [(f"DOC{i // 100}", i % 100) for i in range(len(x))]
    pages = PageIndex(keys, x, cfg)
    assert pages.ann is not None
    doc_rows = np.arange(200, 300)                      # the pages of DOC2
    ranked = pages.rank(x[250], 5, doc_rows)
    assert ranked[0][0] == ("DOC2", 50) and all(k[0] == "DOC2" for k, _ in ranked)
    assert PageIndex(keys, x).rank(x[250], 1)[0][0] == pages.rank(x[250], 1)[0][0]
