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


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_sparse_encoder_gives_the_reference_splade_weights_bit_for_bit(precision):
    """SPLADE max pooling written out with plain transformers (log(1 + relu(MLM logits)), max
    over the unpadded positions, top terms kept), on the same length-sorted batches: the
    sentence-transformers port must give the same index bit for bit."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from fingap.core.models import resolve_model
    from fingap.core.precision import autocast

    texts = ["Total revenue was $1,234 million in fiscal 2022. " * k for k in (1, 2, 30)]
    texts += ["dividend", "Operating margin improved."]
    enc = SpladeEncoder("splade-tiny", max_length=128, batch_size=2, precision=precision)
    got = enc.encode(texts, top_terms=20).toarray()
    path = resolve_model("splade-tiny")
    tok = AutoTokenizer.from_pretrained(path)
    mlm = AutoModelForMaskedLM.from_pretrained(path, use_safetensors=True).eval()
    want = np.zeros_like(got)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for b in range(0, len(order), 2):
        idx = order[b : b + 2]
        batch = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=128,
                    return_tensors="pt")
        with torch.inference_mode(), autocast(precision):
            logits = mlm(**batch).logits
        pad = batch["attention_mask"].unsqueeze(-1) == 0
        w = torch.log1p(torch.relu(logits.float().masked_fill(pad, 0.0).max(dim=1).values))
        top = torch.topk(w, 20, dim=1)
        want[idx] = torch.zeros_like(w).scatter_(1, top.indices, top.values).numpy()
    np.testing.assert_array_equal(got, want)
