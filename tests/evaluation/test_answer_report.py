"""reports/answers.md (fingap.evaluation.answer_report): the own question sets the report lists."""

from fingap.evaluation.answer_report import render_answers_report


def test_own_sets_are_rendered_in_the_order_the_report_lists_them():
    own = {"n": 2, "StrictAcc": 0.5, "Coverage": 1.0, "Reliability": 0.5, "verified": 2,
           "verified_correct": 1, "verified_wrong": 1, "VerifiedPrecision": 0.5,
           "VerifiedPrecision_CI95": [0.0950, 0.9060], "AURC": 0.25}
    report = {"params": {"gate": "abstain"}, "runs": {}, "breakdown": {},
              "own_sets": ["heldout", "dev3"], "heldout": {"oracle_page": own},
              "dev3": {"oracle_page": own | {"n": 3}},
              "dev": {"oracle_page": own}}  # not listed: not rendered
    md = render_answers_report(report)
    assert ("| heldout (own set) | 2 | 1.000 | 0.500 | 0.500 | 1/2 = 0.500 [0.095, 0.906] | "
            "1 | 0.250 |") in md
    assert "| dev3 (own set) | 3 |" in md and "| dev (own set) |" not in md
    assert md.index("| heldout (own set) |") < md.index("| dev3 (own set) |")
    assert "`answer.gate: abstain`" in md
