import numpy as np
import pytest
import scipy.sparse as sp

from fingap.retrieval.splade import SpladeEncoder, SpladeRetriever


@pytest.fixture(scope="module")
def encoder():
    return SpladeEncoder("splade-tiny", batch_size=4)


def test_top_terms_pruning(encoder):
    texts = ["Purchases of property, plant and equipment were 1,577 million dollars in 2018.",
             "dividend"]
    full = encoder.encode(texts)
    pruned = encoder.encode(texts, top_terms=5)
    assert full.getrow(0).nnz > 5
    assert pruned.getrow(0).nnz == 5
    # the kept terms are the 5 heaviest of the full vector
    row = full.getrow(0).toarray()[0]
    assert set(pruned.getrow(0).indices) == set(np.argsort(-row)[:5])
    assert np.all(pruned.data > 0)


def test_sparse_scoring_matches_dot_product_and_ranks(encoder, tmp_path):
    texts = ["The board declared a quarterly dividend per share.",
             "Capital expenditures and purchases of property and equipment.",
             "Operating margin improved in the third quarter."]
    docs = encoder.encode(texts, top_terms=256)
    r = SpladeRetriever(["a", "b", "c"], docs, encoder)
    q = encoder.encode(["dividend per share"])
    np.testing.assert_allclose(r.score_sparse(q)[0], (docs @ q.T).toarray()[:, 0], rtol=1e-5)
    assert r.search({"q": "dividend per share"}, 1)["q"][0][0] == "a"
    r.save(tmp_path / "s")
    r2 = SpladeRetriever.load(tmp_path / "s", encoder)
    assert r2.search({"q": "capital expenditures"}, 3) == r.search({"q": "capital expenditures"}, 3)
    assert isinstance(r2.index, sp.csc_matrix)
