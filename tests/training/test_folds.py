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
