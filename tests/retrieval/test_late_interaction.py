import numpy as np
import pytest

from fingap.retrieval.late_interaction import PageTokens, TokenEncoder, maxsim


def test_maxsim_is_the_mean_of_each_query_token_best_match():
    query = np.array([[1.0, 0.0], [0.0, 1.0]])
    page = np.array([[1.0, 0.0], [0.6, 0.8]])
    # token 1: max(1.0, 0.6) = 1.0; token 2: max(0.0, 0.8) = 0.8; mean 0.9
    assert maxsim(query, page) == pytest.approx(0.9)
    # a page token repeated (windows overlap) changes no maximum
    assert maxsim(query, np.vstack([page, page[:1]])) == pytest.approx(0.9)
    assert maxsim(query, np.zeros((0, 2))) == 0.0
    assert maxsim(np.zeros((0, 2)), page) == 0.0


def test_page_tokens_join_all_windows_and_encode_each_page_once():
    windows = {("A", 0): ["w0", "w1"], ("A", 1): ["w2"], ("A", 2): []}
    vec = {"w0": [[1.0, 0.0]], "w1": [[0.0, 1.0]], "w2": [[0.6, 0.8]]}
    calls = []

    def encode(texts):
        calls.append(list(texts))
        return [np.array(vec[t], np.float16) for t in texts]

    pages = PageTokens(encode, lambda k: windows[k])
    query = np.array([[1.0, 0.0], [0.0, 1.0]])
    # page 0 sees both its windows' tokens (1.0 and 1.0); page 1 one token (0.6, 0.8);
    # a page without text scores 0
    scores = pages.scores(query, [("A", 0), ("A", 1), ("A", 2)])
    assert scores == pytest.approx([1.0, 0.7, 0.0], abs=1e-3)
    assert pages.scores(query, [("A", 1), ("A", 0)]) == pytest.approx([0.7, 1.0], abs=1e-3)
    assert calls == [["w0", "w1", "w2"]]  # the second call found every page encoded


def test_token_encoder_drops_special_tokens_and_normalises(minilm_tokenizer):
    class FakeModel:  # token vectors for every token, [CLS] and [SEP] included
        tokenizer = minilm_tokenizer
        max_seq_length = 16

        def encode(self, texts, output_value, batch_size, show_progress_bar):
            import torch

            assert output_value == "token_embeddings"
            out = []
            for t in texts:
                n = len(self.tokenizer(t, truncation=True, max_length=16)["input_ids"])
                out.append(torch.arange(1, 2 * n + 1, dtype=torch.float32).reshape(n, 2))
            return out

    enc = TokenEncoder(FakeModel(), "fp32")
    (v,) = enc(["net revenue"])
    n = len(minilm_tokenizer("net revenue")["input_ids"])
    assert v.shape == (n - 2, 2)  # [CLS] and [SEP] dropped
    np.testing.assert_allclose(np.linalg.norm(v.astype(np.float32), axis=1), 1.0, atol=1e-3)
    first = np.array([3.0, 4.0]) / 5.0  # the first word token, the second row of the model's
    np.testing.assert_allclose(v[0].astype(np.float32), first, atol=1e-3)
    assert enc([]) == []
