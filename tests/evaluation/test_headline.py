"""The headline metrics (fingap.evaluation.headline): the few numbers DVC shows."""

import pytest

from fingap.core.params import ParamError
from fingap.evaluation.headline import headline_metrics

METRICS = {"dense": {"standard": {"PageRec@5": 0.21714, "DocRec@5": 0.74}},
           "fingap_best": {"standard": {"PageRec@5": 0.50258, "DocRec@5": 0.86047},
                           "oracle_doc": {"PageRec@5": 0.68346}}}
ANSWERS = {"runs": {"fingap_best": {"standard": {"StrictAcc": 0.93333, "Reliability": 0.95}}},
           "heldout": {"oracle_page": {"StrictAcc": 0.82143, "Reliability": 0.92}}}


def test_headline_keys_and_rounding():
    out = headline_metrics(METRICS, ANSWERS, {"dense": "dense", "best": "fingap_best"},
                           {"best": "fingap_best"}, {"best": ["fingap_best", "standard"]}, 5)
    assert out == {"dense.PageRec@5": 0.2171, "best.PageRec@5": 0.5026,
                   "best.DocRec@5": 0.8605, "best.PageRec@5.oracle_doc": 0.6835,
                   "best.StrictAcc": 0.9333, "heldout.StrictAcc": 0.8214,
                   "heldout.Reliability": 0.92}
    # before the answer stage has run: retrieval headlines only
    assert "best.StrictAcc" not in headline_metrics(METRICS, None, {"best": "fingap_best"},
                                                    {}, {}, 5)


def test_unknown_rows_fail_naming_the_parameter():
    with pytest.raises(ParamError, match="headline.rows: 'splade'"):
        headline_metrics(METRICS, None, {"s": "splade"}, {}, {}, 5)
    with pytest.raises(ParamError, match=r"no answered run \[dense, oracle_doc\]"):
        headline_metrics(METRICS, ANSWERS, {}, {}, {"d": ["dense", "oracle_doc"]}, 5)


def test_a_corpus_without_gold_evidence_has_no_retrieval_headline():
    metrics = {"fingap_best": {"standard": {"n": 0}, "oracle_doc": {"n": 0}}}
    answers = {"runs": {"fingap_best": {"standard": {"StrictAcc": None, "n": 0}}}}
    assert headline_metrics(metrics, answers, {"best": "fingap_best"}, {"best": "fingap_best"},
                            {"best": ["fingap_best", "standard"]}, 5) == {}
