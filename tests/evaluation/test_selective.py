from fingap.evaluation.selective import aurc, risk_coverage, selective_metrics, wilson_interval


def _row(qid, answered, correct, verified, confidence):
    return {"question_id": qid, "answered": answered, "correct": correct, "verified": verified,
            "confidence": confidence}


def test_wilson_interval_known_values():
    assert wilson_interval(0, 0) is None
    lo, hi = wilson_interval(19, 20)
    assert (lo, hi) == (0.7639, 0.9911)
    assert wilson_interval(20, 20)[1] == 1.0


def test_risk_coverage_orders_by_confidence_and_stops_at_coverage():
    rows = [_row("a", True, False, False, 0.2), _row("b", True, True, True, 0.9),
            _row("c", False, False, False, 0.0), _row("d", True, True, True, 0.9)]
    points = risk_coverage(rows)
    # b and d tie at 0.9: broken by id; the wrong answer comes last; c never enters
    assert [p["coverage"] for p in points] == [0.25, 0.5, 0.75]
    assert [p["risk"] for p in points] == [0.0, 0.0, 0.3333]
    assert aurc(points) == round((0 + 0 + 0.3333) / 3, 4)


def test_selective_metrics_counts_verified_precision():
    rows = [_row("a", True, False, True, 0.5), _row("b", True, True, True, 0.9),
            _row("c", False, False, False, 0.0), _row("d", True, True, False, 0.1)]
    m = selective_metrics(rows)
    assert (m["Coverage"], m["Reliability"], m["StrictAcc"]) == (0.75, 0.6667, 0.5)
    assert (m["verified"], m["verified_correct"], m["verified_wrong"]) == (2, 1, 1)
    assert m["VerifiedPrecision"] == 0.5
    # a confident wrong answer ranks first: the first prefix has risk 0 only if it is right
    assert m["curve"][0]["risk"] == 0.0 and m["curve"][1]["risk"] == 0.5


def test_the_curve_ranks_withheld_candidates_after_the_given_answers():
    rows = [_row("a", True, True, True, 0.9),
            # withheld by the gate (confidence 0), but its structured path had a number
            _row("b", False, False, False, 0.0) | {"candidate": True, "candidate_correct": False},
            _row("c", False, False, False, 0.0) | {"candidate": False, "candidate_correct": False}]
    m = selective_metrics(rows)
    assert m["Coverage"] == 0.3333 and m["Reliability"] == 1.0
    assert [(p["coverage"], p["risk"]) for p in m["curve"]] == [(0.3333, 0.0), (0.6667, 0.5)]
    assert m["AURC"] == 0.25
