import numpy as np
import pytest

from fingap.core.io import write_json
from fingap.ingestion.corpus import Evidence, Question
from fingap.retrieval.page_rerank import WindowPicker
from fingap.steps.page_reranker import check_reranker_fold, learning_curve, rerank_with_folds
from fingap.training.folds import FoldLeak


def _q(qid, doc):
    return Question(qid, "", doc, "10K", "t", "", f"question {qid}", "",
                    [Evidence(doc, 0, "", "")])


def test_learning_curve_averages_each_epoch_over_the_folds_that_ran_it():
    folds = [{"val_curve": [{"epoch": 1, "val_mrr@20": 0.4, "val_base_mrr@20": 0.5},
                            {"epoch": 2, "val_mrr@20": 0.6, "val_base_mrr@20": 0.5}]},
             {"val_curve": [{"epoch": 1, "val_mrr@20": 0.2, "val_base_mrr@20": 0.3}]}]
    assert learning_curve(folds, "val_mrr@20") == [
        {"epoch": 1, "folds": 2, "reranked": 0.3, "first_stage": 0.4},
        {"epoch": 2, "folds": 1, "reranked": 0.6, "first_stage": 0.5}]


def test_a_reranker_trained_on_a_question_document_is_refused(tmp_path):
    write_json(tmp_path / "fingap_fold.json", {"fold": 1, "test_docs": ["A"],
                                               "train_docs": ["B", "C"]})
    check_reranker_fold(tmp_path, 1, {"A"})
    with pytest.raises(FoldLeak, match="trained on \\['B'\\]"):
        check_reranker_fold(tmp_path, 1, {"A", "B"})
    with pytest.raises(RuntimeError, match="fold 1, not 0"):
        check_reranker_fold(tmp_path, 0, {"A"})


def test_each_question_is_reranked_by_its_own_fold_over_its_fold_scorer_windows():
    windows = {("A", 0): ["a0"], ("A", 1): ["a1"], ("B", 0): ["b0"], ("B", 1): ["b1"]}

    def picker():
        return WindowPicker(lambda ts: np.ones((len(ts), 1), np.float32), lambda k: windows[k])

    class Scorer:
        def __init__(self, fold):
            self.fold = fold

        def score(self, pairs):  # fold 0 prefers the second page, fold 1 keeps the order
            return [float(i) if self.fold == 0 else -float(i) for i in range(len(pairs))]

    seen = []

    def scorer_of(fold):
        seen.append(fold)
        return Scorer(fold)

    ranked = {"qa": [(("A", 0), 0.9), (("A", 1), 0.8)], "qb": [(("B", 0), 0.9), (("B", 1), 0.8)]}
    out = rerank_with_folds(ranked, [_q("qa", "A"), _q("qb", "B")], {"qa": 0, "qb": 1},
                            {0: picker(), 1: picker()}, {"qa": np.ones(1), "qb": np.ones(1)},
                            scorer_of, n=2)
    assert [k for k, _ in out["qa"]] == [("A", 1), ("A", 0)]
    assert [k for k, _ in out["qb"]] == [("B", 0), ("B", 1)]
    assert seen == [0, 1]
