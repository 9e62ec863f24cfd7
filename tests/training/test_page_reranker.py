import pytest

from fingap.core.params import ParamError
from fingap.ingestion.corpus import Evidence, Question
from fingap.training.page_reranker import (
    PageRerankerConfig,
    training_examples,
    validation_samples,
)


def q(qid, doc, gold_pages):
    return Question(id=qid, company="", doc=doc, doc_type="10K", question_type="",
                    question_reasoning="", question=f"question {qid}", answer="",
                    evidence=[Evidence(doc=doc, page=p, text="", full_page="")
                              for p in gold_pages])


def test_config_defaults_and_metric_name():
    cfg = PageRerankerConfig.from_params({"candidates": 30})
    assert cfg.candidates == 30 and cfg.metric == "val_mrr@30"


@pytest.mark.parametrize("bad, match", [
    ({"candidates": 0}, "candidates"), ({"epochs": 1.5}, "epochs"),
    ({"negatives": True}, "negatives"),
    ({"patience": 0}, "patience"), ({"lr": 0}, "lr"), ({"precision": "fp16"}, "precision"),
    ({"warmup_ratio": 1.0}, "warmup_ratio"), ({"nope": 1}, "unknown keys"),
])
def test_config_rejects_bad_values_naming_the_parameter(bad, match):
    with pytest.raises(ParamError, match=match):
        PageRerankerConfig.from_params(bad)


def test_training_examples_label_gold_windows_1_and_mined_windows_0():
    a, b = q("a", "D1", [3, 5]), q("b", "D2", [1])
    positives = {("a", ("D1", 3)): "w3", ("a", ("D1", 5)): "w5"}   # b's gold page has no text
    negatives = {"a": [(("D1", 7), "w7")], "b": [(("D2", 2), "x2"), (("D2", 4), "x4")]}
    assert training_examples([a, b], positives, negatives) == [
        ("question a", "w3", 1.0), ("question a", "w5", 1.0), ("question a", "w7", 0.0),
        ("question b", "x2", 0.0), ("question b", "x4", 0.0)]


def test_a_gold_page_among_the_negatives_is_an_error():
    a = q("a", "D1", [3])
    with pytest.raises(ValueError, match="gold page"):
        training_examples([a], {}, {"a": [(("D1", 3), "w3")]})


def test_validation_samples_keep_first_stage_order_and_skip_questions_without_either_side():
    a, b, c = q("a", "D1", [3]), q("b", "D2", [1]), q("c", "D3", [0])
    candidates = {"a": [(("D1", 9), "w9"), (("D1", 3), "w3")], "b": [(("D2", 2), "x2")]}
    gold = {("a", ("D1", 3)): "w3", ("c", ("D3", 0)): "z0"}
    assert validation_samples([a, b, c], candidates, gold) == [
        {"query": "question a", "positive": ["w3"], "documents": ["w9", "w3"]}]
