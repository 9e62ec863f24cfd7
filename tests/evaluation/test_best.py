import pytest

from fingap.evaluation.best import combine, select_per_fold


def test_selection_for_a_fold_never_uses_its_own_questions():
    # fold 0 = q1, q2; fold 1 = q3, q4. Method "a" is perfect on fold 0 only, "b" on fold 1
    # only, so each fold must get the method that wins on the *other* fold.
    page_rec = {"a": {"q1": 1, "q2": 1, "q3": 0, "q4": 0},
                "b": {"q1": 0, "q2": 0, "q3": 1, "q4": 0.5}}
    fold_of = {"q1": 0, "q2": 0, "q3": 1, "q4": 1}
    choice = select_per_fold(page_rec, fold_of, ["a", "b"])
    assert choice[0]["method"] == "b" and choice[0]["inner"] == {"a": 0.0, "b": 0.75}
    assert choice[1]["method"] == "a" and choice[1]["inner"] == {"a": 1.0, "b": 0.0}

    runs = {"a": {q: [(f"a-{q}", 1.0)] for q in fold_of},
            "b": {q: [(f"b-{q}", 1.0)] for q in fold_of}}
    assert combine(runs, choice, fold_of) == {"q1": [("b-q1", 1.0)], "q2": [("b-q2", 1.0)],
                                              "q3": [("a-q3", 1.0)], "q4": [("a-q4", 1.0)]}


def test_ties_go_to_the_earlier_candidate_and_missing_candidates_fail():
    page_rec = {"x": {"q1": 1, "q2": 1}, "y": {"q1": 1, "q2": 1}}
    choice = select_per_fold(page_rec, {"q1": 0, "q2": 1}, ["y", "x"])
    assert {c["method"] for c in choice.values()} == {"y"}
    with pytest.raises(KeyError, match="z"):
        select_per_fold(page_rec, {"q1": 0, "q2": 1}, ["x", "z"])
