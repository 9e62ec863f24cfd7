import numpy as np
import pytest

from fingap.ingestion.corpus import Evidence, Question
from fingap.retrieval.dense import DenseRetriever
from fingap.retrieval.page_ranking import PageIndex, page_recall_at, page_text, reciprocal_rank
from fingap.retrieval.page_then_chunk import page_then_chunk, rows_on_pages
from fingap.training.page_scorer import TrainConfig, train_bi_encoder, training_pairs


def test_page_text_collapses_whitespace_and_truncates():
    assert page_text("  a\n\n b\t c  ", 100) == "a b c"
    assert page_text("abcdef", 3) == "abc"


def test_training_pairs_one_per_distinct_gold_page():
    q = Question("q", "", "D", "10K", "t", "", "what?", "",
                 [Evidence("D", 1, "", ""), Evidence("D", 1, "", ""), Evidence("D", 2, "", "")])
    pairs = training_pairs([q], {("D", 1): "one  page", ("D", 2): "two"}, 2000)
    assert [(p[2], p[3]) for p in pairs] == [("one page", ("D", 1)), ("two", ("D", 2))]


def test_algorithm1_only_returns_chunks_of_selected_pages():
    chunk_keys = [("A", 0), ("A", 0), ("A", 1), ("B", 0), ("B", 1)]
    ids = [f"c{i}" for i in range(5)]
    emb = np.eye(5, dtype=np.float32)
    retriever = DenseRetriever(ids, emb)
    # the chunk retriever alone would prefer c3 (page B/0), but B/0 is not among the top pages
    retriever.encode_queries = lambda texts: np.tile(
        np.array([[0.1, 0.2, 0.3, 0.9, 0.0]], dtype=np.float32), (len(texts), 1))
    ranked = {"q": [(("A", 1), 0.9), (("A", 0), 0.8), (("B", 0), 0.1)]}
    run = page_then_chunk(ranked, 2, retriever, {"q": "?"}, 5, chunk_keys)
    assert [c for c, _ in run["q"]] == ["c2", "c1", "c0"]
    run = page_then_chunk(ranked, 1, retriever, {"q": "?"}, 5, chunk_keys)
    assert [c for c, _ in run["q"]] == ["c2"]
    # a condition's restriction is intersected with the selected pages
    run = page_then_chunk(ranked, 3, retriever, {"q": "?"}, 5, chunk_keys,
                          allowed={"q": np.array([0, 1, 2])})
    assert {c for c, _ in run["q"]} == {"c0", "c1", "c2"}
    with pytest.raises(ValueError):
        page_then_chunk(ranked, 0, retriever, {"q": "?"}, 5, chunk_keys)


def test_rows_on_pages():
    by_page = {("A", 0): [0, 1], ("A", 1): [2]}
    assert rows_on_pages([("A", 1), ("A", 0)], by_page).tolist() == [0, 1, 2]
    assert rows_on_pages([("Z", 9)], by_page).tolist() == []


def test_page_index_rank_and_quality_metrics():
    keys = [("A", 0), ("A", 1), ("B", 0)]
    index = PageIndex(keys, np.array([[1, 0], [0.6, 0.8], [0, 1]], dtype=np.float32))
    ranked = [k for k, _ in index.rank(np.array([0.0, 1.0], dtype=np.float32), 3)]
    assert ranked == [("B", 0), ("A", 1), ("A", 0)]
    assert [k for k, _ in index.rank(np.array([0.0, 1.0]), 3, allowed=np.array([0, 1]))] == [
        ("A", 1), ("A", 0)]
    assert page_recall_at([("A", 0), ("A", 1)], ranked, 2) == 0.5
    assert reciprocal_rank([("A", 0)], ranked) == pytest.approx(1 / 3)
    assert reciprocal_rank([("C", 0)], ranked) == 0.0


def test_tiny_training_run_changes_weights_and_lowers_loss():
    import torch

    questions = ["What was capital expenditure in 2018?", "What is the dividend per share?",
                 "How much cash was held at year end?", "What was the operating margin?"]
    pages = ["Purchases of property, plant and equipment were $1,577 million in 2018.",
             "The board declared a quarterly dividend of $0.42 per share.",
             "Cash and cash equivalents were $4,211 million at December 31.",
             "Operating margin improved to 21.5% from 19.8%."]
    pairs = [(f"q{i}", q, p, ("D", i))
             for i, (q, p) in enumerate(zip(questions, pages, strict=True))]
    cfg = TrainConfig(lr=1e-4, batch_size=4, epochs=6, max_seq_length=64, precision="fp32",
                      warmup_ratio=0.0)
    from fingap.retrieval.page_ranking import load_bi_encoder

    before = {k: v.clone() for k, v in load_bi_encoder("minilm", 64).state_dict().items()}
    model, result = train_bi_encoder(pairs, cfg, seed=0)
    after = model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    assert result.n_steps == 6 and len(result.epoch_loss) == 6
    assert result.step_loss[-1] < result.step_loss[0]


def test_page_variants_map_to_their_models_and_index():
    from fingap.core.params import ParamError
    from fingap.steps.page_variants import page_variant

    assert page_variant("hn").mode == "trained"
    assert str(page_variant("hn").models) == "models/page_scorer_hn"
    assert str(page_variant("untrained").index) == "data/page_index/untrained"
    with pytest.raises(ParamError, match="'typo'"):
        page_variant("typo")


def test_attention_dropout_replaces_the_base_models_and_is_validated():
    import torch

    from fingap.core.params import ParamError
    from fingap.retrieval.page_ranking import load_bi_encoder

    def attention_dropouts(model) -> set[float]:
        return {m.dropout.p for m in model.modules()
                if type(m).__name__.endswith("SelfAttention")
                and isinstance(getattr(m, "dropout", None), torch.nn.Dropout)}

    assert attention_dropouts(load_bi_encoder("minilm", 64)) == {0.1}   # MiniLM's own
    model = load_bi_encoder("minilm", 64, attention_dropout=0.0)
    assert attention_dropouts(model) == {0.0}
    assert model[0].auto_model.config.attention_probs_dropout_prob == 0.0
    assert model.max_seq_length == 64
    assert TrainConfig.from_params({"attention_dropout": 0.0}).attention_dropout == 0.0
    assert TrainConfig.from_params({}).attention_dropout is None
    with pytest.raises(ParamError, match="attention_dropout"):
        TrainConfig.from_params({"attention_dropout": 1.0})
