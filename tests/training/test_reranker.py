import numpy as np
import pytest

from fingap.ingestion.corpus import Evidence, Question
from fingap.retrieval.reranking import CrossEncoderReranker
from fingap.training.reranker import (
    RerankerTrainConfig,
    hard_negatives,
    train_cross_encoder,
    training_examples,
)


def _q(qid, doc, pages, text="What was the quarterly dividend per share?"):
    evidence = [Evidence(doc, p, "", "") for p in pages]
    return Question(qid, "", doc, "10K", "t", "", text, "", evidence)


PAGES = {("D", 0): "Table of contents",
         ("D", 1): "The board declared a dividend of $0.42 per share.",
         ("D", 2): "Dividend policy: dividends per share are paid quarterly.",
         ("D", 3): "Legal proceedings.", ("E", 0): "Dividend per share of another company."}


def test_hard_negatives_come_from_the_same_document_and_skip_gold():
    negs = hard_negatives(_q("q", "D", [1]), {p: t for (d, p), t in PAGES.items() if d == "D"}, 2)
    assert negs[0] == 2  # the closest non-gold page of D
    assert 1 not in negs and len(negs) == 2


def test_training_examples_labels():
    cfg = RerankerTrainConfig(negatives_per_positive=2)
    ex = training_examples([_q("q", "D", [1])], PAGES, cfg)
    assert [e[2] for e in ex] == [1.0, 0.0, 0.0]
    assert "0.42" in ex[0][1]
    assert all("another company" not in e[1] for e in ex)  # never another document


def test_tiny_training_lowers_loss_and_reranks_within_candidates():
    cfg = RerankerTrainConfig(lr=5e-4, batch_size=4, epochs=8, max_length=48, precision="fp32",
                              warmup_ratio=0.0)
    ex = [("dividend per share?", "The board declared a dividend of $0.42 per share.", 1.0),
          ("dividend per share?", "Legal proceedings are pending.", 0.0),
          ("capital expenditure?", "Capital expenditures were $1.5 billion.", 1.0),
          ("capital expenditure?", "Table of contents.", 0.0)]
    model, res = train_cross_encoder(ex, cfg, seed=0)
    assert res.step_loss[-1] < res.step_loss[0] and res.n_steps == 8
    rr = CrossEncoderReranker.of_model(model, max_length=48, batch_size=4, precision="fp32")
    texts = {"a": ex[1][1], "b": ex[0][1], "c": ex[2][1]}
    run = {"q": [("a", 3.0), ("b", 2.0), ("c", 1.0)]}
    out = rr.rerank(run, {"q": "dividend per share?"}, texts, k=2, n_candidates=2)
    assert [c for c, _ in out["q"]] == ["b", "a"]  # only the first 2 candidates, reordered
    s = rr.score([("dividend per share?", ex[0][1]), ("dividend per share?", ex[1][1])])
    assert isinstance(s, np.ndarray) and s[0] > s[1]


def test_bad_config():
    from fingap.core.params import ParamError

    with pytest.raises(ParamError):
        RerankerTrainConfig.from_params({"precision": "fp16"})


def test_a_saved_reranker_loads_for_reranking(tmp_path):
    from fingap.training.reranker import save_cross_encoder

    cfg = RerankerTrainConfig(batch_size=2, epochs=1, max_length=32, precision="fp32")
    ex = [("dividend?", "The dividend was $0.42 per share.", 1.0), ("dividend?", "Legal.", 0.0)]
    model, _ = train_cross_encoder(ex, cfg, seed=0)
    save_cross_encoder(model, tmp_path / "fold_0")
    loaded = CrossEncoderReranker(str(tmp_path / "fold_0"), max_length=32, precision="fp32")
    pairs = [("dividend?", ex[0][1]), ("dividend?", ex[1][1])]
    assert np.allclose(loaded.score(pairs), model.model(**model.tokenizer(
        [p[0] for p in pairs], [p[1] for p in pairs], return_tensors="pt", padding=True,
        truncation="only_second", max_length=32)).logits.squeeze(-1).detach().numpy(), atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_scores_are_the_raw_logits_of_the_seeded_sequence_classifier(precision):
    """The sentence-transformers CrossEncoder gives the logits that a plain transformers sequence
    classifier (the loader fingap used before) gives with the same seeded head, truncation and
    batches. Only float rounding may differ (CrossEncoder.predict reorders rows within a batch),
    never the order of the candidates."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from fingap.core.models import resolve_model
    from fingap.core.precision import autocast

    pairs = [("What was the dividend per share?", "The board declared a dividend of $0.42. " * k)
             for k in (1, 3, 40)] + [("Capital expenditure in 2022?", "Legal proceedings.")]
    rr = CrossEncoderReranker("minilm", max_length=64, batch_size=2, precision=precision, seed=5)
    torch.manual_seed(5)
    path = resolve_model("minilm")
    ref = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1).eval()
    tok = AutoTokenizer.from_pretrained(path)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][1]))
    want = np.zeros(len(pairs), dtype=np.float32)
    for b in range(0, len(order), 2):
        idx = order[b : b + 2]
        enc = tok([pairs[i][0] for i in idx], [pairs[i][1] for i in idx], padding=True,
                  truncation="only_second", max_length=64, return_tensors="pt")
        with torch.inference_mode(), autocast(precision):
            want[idx] = ref(**enc).logits.squeeze(-1).float().numpy()
    got = rr.score(pairs)
    # fp32: rows reordered within a batch round differently, by more on some CPUs (an AMX
    # machine gave 2e-6 of the largest logit); bf16 keeps 8 bits of mantissa
    tol = 1e-5 if precision == "fp32" else 2e-2
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())
    if precision == "fp32":
        assert list(np.argsort(-got)) == list(np.argsort(-want))


def test_validated_training_keeps_the_best_epoch_and_stops_without_gain():
    from sentence_transformers.base.evaluation import BaseEvaluator

    class Flat(BaseEvaluator):  # the same score every epoch: no epoch after the 1st gains
        primary_metric = "val_mrr@2"

        def __call__(self, model, output_path=None, epoch=-1, steps=-1):
            return {"val_mrr@2": 0.5, "val_base_mrr@2": 0.25}

    cfg = RerankerTrainConfig(lr=5e-4, batch_size=4, epochs=4, max_length=32, precision="fp32",
                              warmup_ratio=0.0)
    ex = [("dividend?", "A dividend of $0.42.", 1.0), ("dividend?", "Legal proceedings.", 0.0)]
    _, res = train_cross_encoder(ex, cfg, seed=0, evaluator=Flat(), metric="val_mrr@2",
                                 patience=1)
    assert len(res.epoch_loss) == 2 and res.best_epoch == 1
    assert res.val_curve == [{"epoch": 1, "val_mrr@2": 0.5, "val_base_mrr@2": 0.25},
                             {"epoch": 2, "val_mrr@2": 0.5, "val_base_mrr@2": 0.25}]
    with pytest.raises(ValueError, match="metric key"):
        train_cross_encoder(ex, cfg, seed=0, evaluator=Flat())
