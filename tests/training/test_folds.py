import pytest

from fingap.core.params import ParamError
from fingap.ingestion.corpus import STATUS_MISSING_DOC, Evidence, Question
from fingap.training.folds import FoldLeak, assign_folds, check_folds, fold_of_question


def _questions():
    qs = []
    sizes = {"A": 5, "B": 4, "C": 3, "D": 3, "E": 2, "F": 2, "G": 1, "H": 1, "I": 1, "J": 1}
    for doc, n in sizes.items():
        for i in range(n):
            qs.append(Question(f"{doc}{i}", "", doc, "10K", "t", "", "?", "",
                               [Evidence(doc, i, "", "")]))
    qs.append(Question("M0", "", "MISSING", "10K", "t", "", "?", "",
                       [Evidence("MISSING", 0, "", "")], status=STATUS_MISSING_DOC))
    return qs


def test_folds_group_by_document_and_cover_every_question_once():
    qs = _questions()
    folds = assign_folds(qs, 5, seed=1)
    doc_of = {q.id: q.doc for q in qs}
    seen = []
    for f in folds["folds"]:
        test_docs = {doc_of[q] for q in f["test_questions"]}
        train_docs = {doc_of[q] for q in f["train_questions"]}
        assert not test_docs & train_docs  # no document on both sides
        assert test_docs == set(f["test_docs"])
        seen += f["test_questions"]
    assert sorted(seen) == sorted(q.id for q in qs if q.id != "M0")  # missing-doc q excluded
    assert set(fold_of_question(folds)) == set(seen)


def test_folds_are_balanced_and_deterministic():
    qs = _questions()
    a, b = assign_folds(qs, 5, seed=7), assign_folds(qs, 5, seed=7)
    assert a == b
    sizes = [len(f["test_questions"]) for f in a["folds"]]
    assert max(sizes) - min(sizes) <= 1  # 23 questions -> 5,5,5,4,4


def test_leak_is_detected():
    qs = _questions()
    folds = assign_folds(qs, 5, seed=1)
    # another fold training on this question is fine; this fold training on it is a leak
    moved = folds["folds"][0]["test_questions"][0]
    folds["folds"][1]["train_questions"].append(moved)
    check_folds(folds, qs)
    folds["folds"][0]["train_questions"].append(moved)
    with pytest.raises(FoldLeak, match="both sides"):
        check_folds(folds, qs)


def test_bad_fold_params():
    with pytest.raises(ParamError, match="n_folds"):
        assign_folds(_questions(), 1, seed=0)
    with pytest.raises(ParamError, match="exceeds"):
        assign_folds(_questions(), 50, seed=0)


def _no_gold(qid: str, doc: str) -> Question:
    from fingap.ingestion.corpus import STATUS_NO_GOLD

    return Question(qid, "", doc, "10K", "", "", "?", "", [], status=STATUS_NO_GOLD)


def test_questions_without_gold_are_served_by_the_fold_that_never_saw_their_document():
    qs = _questions()
    before = assign_folds(qs, 5, seed=1)
    assert all("serve_questions" not in f for f in before["folds"])  # byte for byte as before
    qs += [_no_gold("nA", "A"), _no_gold("nNEW", "NEW")]
    folds = assign_folds(qs, 5, seed=1)
    fold_of = fold_of_question(folds)
    a_fold = next(f for f in folds["folds"] if "A" in f["test_docs"])
    assert fold_of["nA"] == a_fold["fold"]           # its document's test fold
    assert fold_of["nNEW"] == 0                      # a document no fold trains on
    assert not any("NEW" in f["train_docs"] for f in folds["folds"])
    assert [{k: v for k, v in f.items() if k != "serve_questions"} for f in folds["folds"]] \
        == before["folds"]                           # the scored questions' folds unchanged
    folds["folds"][0]["serve_questions"] = []
    with pytest.raises(FoldLeak, match="serve every question without gold"):
        check_folds(folds, qs)


def test_a_corpus_without_gold_has_one_fold_that_trains_nothing():
    from fingap.training.folds import (
        is_no_gold,
        untrained_fold_model,
        untrained_fold_record,
    )

    qs = [_no_gold("u1", "A"), _no_gold("u2", "B")]
    folds = assign_folds(qs, 5, seed=1, no_gold_models={"page_scorer": "/models/fb/fold_0"})
    assert is_no_gold(folds) and folds["n_folds"] == 1
    (f,) = folds["folds"]
    assert f["serve_questions"] == ["u1", "u2"] and f["train_questions"] == []
    assert untrained_fold_model(f, "page_scorer", "minilm") == "/models/fb/fold_0"
    assert untrained_fold_model(f, "page_scorer_hn", "minilm") == "minilm"  # "": base model
    assert untrained_fold_record(f, "minilm", "minilm")["model"] == \
        "minilm (the base model, untrained)"
    assert not is_no_gold(assign_folds(_questions(), 5, seed=1))
    assert untrained_fold_model(assign_folds(_questions(), 5, seed=1)["folds"][0],
                                "page_scorer", "minilm") is None  # a fold that trains
    with pytest.raises(ParamError, match="no_gold_models: unknown component"):
        assign_folds(qs, 5, seed=1, no_gold_models={"splade": "x"})
