"""fingap.steps.answer: the answer stage's parameters and its scoring of withheld answers."""

import pytest

from fingap.core.params import ParamError
from fingap.steps.answer import candidate_of, candidate_scores, gate_params, validate_answer


def test_gate_params_fail_fast_with_the_parameter_name():
    assert gate_params({}).label_threshold == 0.7
    with pytest.raises(ParamError, match="answer.label_threshold"):
        gate_params({"label_threshold": 1.5})
    with pytest.raises(ParamError, match="answer.gate_matcher"):
        gate_params({"gate_matcher": ""})
    with pytest.raises(ParamError, match="answer.llm_figures"):
        validate_answer({"gate": "abstain", "max_follow_ups": 3, "k": 5, "llm_figures": "yes"},
                        {"runs": [["dense", "standard"]]})


def test_a_withheld_answer_keeps_its_candidate_for_the_risk_coverage_curve():
    given = {"value": 1577.0, "abstained": False, "scale": "millions", "steps": []}
    assert candidate_of(given) == {"value": 1577.0, "scale": "millions"}
    withheld = {"value": None, "abstained": True, "steps": [
        {"step": "plan"}, {"step": "compute", "value": 1.73, "scale": None}]}
    assert candidate_of(withheld) == {"value": 1.73, "scale": None}
    assert candidate_scores(withheld, "1.73") == {"candidate": True, "candidate_correct": True}
    nothing = {"value": None, "abstained": True, "steps": [{"step": "plan"}]}
    assert candidate_scores(nothing, "1.73") == {"candidate": False, "candidate_correct": False}
