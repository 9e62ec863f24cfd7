import pytest

from fingap.core.io import write_json
from fingap.ingestion.corpus import Evidence, Question
from fingap.steps.page_maxsim import maxsim_candidates, maxsim_with_folds
from fingap.training.folds import FoldLeak, check_fold_model
from fingap.training.page_scorer import TrainConfig


def _q(qid, doc, text):
    return Question(qid, "", doc, "10K", "t", "", text, "", [Evidence(doc, 0, "", "")])


def test_each_question_is_reordered_by_maxsim_under_its_own_fold_model():
    windows = {("A", 0): ["The board of directors met four times during the year."],
               ("A", 1): ["Net revenue was $5.2 billion in fiscal 2022, up 8 percent."],
               ("A", 2): ["Exhibit index"],
               ("B", 0): ["Capital expenditures were $300 million."],
               ("B", 1): ["Employees and human capital."]}
    questions = [_q("q1", "A", "What was net revenue in fiscal 2022?"),
                 _q("q2", "B", "How much were capital expenditures?")]
    ranked = {"q1": [(("A", 0), 0.9), (("A", 1), 0.8), (("A", 2), 0.1)],
              "q2": [(("B", 1), 0.7), (("B", 0), 0.6)]}
    asked = []

    def model_of_fold(fold):
        asked.append(fold)
        return "minilm"

    out = maxsim_with_folds(ranked, questions, {"q1": 0, "q2": 1}, model_of_fold,
                            lambda k: windows[k], TrainConfig(max_seq_length=64,
                                                              precision="fp32"), n=2)
    assert asked == [0, 1]  # one model per fold, in fold order
    # the page that holds the answer moves up; the page past n keeps its place, below
    assert [k for k, _ in out["q1"]] == [("A", 1), ("A", 0), ("A", 2)]
    assert [k for k, _ in out["q2"]] == [("B", 0), ("B", 1)]
    assert out["q1"][2][1] < out["q1"][1][1]  # page order keeps the reranked order


def test_a_fold_scorer_that_trained_on_a_question_document_is_refused(tmp_path):
    write_json(tmp_path / "fingap_fold.json", {"fold": 2, "test_docs": ["A"],
                                               "train_docs": ["B"]})
    check_fold_model(tmp_path, 2, {"A"}, "hard-negative page scorer")
    with pytest.raises(FoldLeak, match="hard-negative page scorer fold 2 was trained on"):
        check_fold_model(tmp_path, 2, {"A", "B"}, "hard-negative page scorer")
    with pytest.raises(RuntimeError, match="fold 2, not 3"):
        check_fold_model(tmp_path, 3, {"A"}, "hard-negative page scorer")


def test_candidates_must_be_a_positive_integer():
    assert maxsim_candidates({"page_maxsim": {"candidates": 20}}) == 20
    with pytest.raises(ValueError, match="page_maxsim.candidates"):
        maxsim_candidates({"page_maxsim": {"candidates": 0}})


def test_page_heads_are_only_for_the_reordering_methods():
    from fingap.core.params import ParamError
    from fingap.steps.zoo import run_page_heads

    with pytest.raises(ParamError, match="not a page-head method"):
        run_page_heads("dense", {}, None)
