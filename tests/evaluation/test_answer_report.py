"""reports/answers.md (fingap.evaluation.answer_report): the own question sets the report lists."""

from fingap.evaluation.answer_report import render_answers_report


def test_own_sets_are_rendered_in_the_order_the_report_lists_them():
    own = {"n": 2, "StrictAcc": 0.5, "Coverage": 1.0, "Reliability": 0.5}
    report = {"runs": {}, "breakdown": {}, "own_sets": ["heldout", "dev3"],
              "heldout": {"oracle_page": own}, "dev3": {"oracle_page": own | {"n": 3}},
              "dev": {"oracle_page": own}}  # not listed: not rendered
    md = render_answers_report(report)
    assert "| heldout | 2 | 0.500 | 1.000 | 0.500 |" in md
    assert "| dev3 | 3 |" in md and "| dev |" not in md
    assert md.index("| heldout |") < md.index("| dev3 |")
