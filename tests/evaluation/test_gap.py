from fingap.evaluation.gap import classify, gap_records, render, summarise
from fingap.ingestion.corpus import Evidence, Question


def _q(qid, pages, qtype="metrics-generated"):
    evidence = [Evidence("D", p, "", "") for p in pages]
    return Question(qid, "", "D", "10K", qtype, "", "?", "", evidence)


def test_classify_each_stage():
    top = [("D", 3), ("E", 1)]
    assert classify(("D", 3), top) == "not_in_final_k"
    assert classify(("D", 9), top) == "not_in_top_P"
    assert classify(("F", 0), top) == "wrong_document"


def test_records_and_summary_hand_counted():
    qs = [_q("a", [1, 2]), _q("b", [5], "novel-generated")]
    final = {"a": {("D", 1)}, "b": set()}
    top = {"a": [("D", 1), ("D", 2)], "b": [("X", 0)]}
    recs = gap_records(qs, final, top)
    assert [r["outcome"] for r in recs] == ["found", "not_in_final_k", "wrong_document"]
    s = summarise(recs)
    assert s["overall"] == {"found": 1, "wrong_document": 1, "not_in_top_P": 0,
                            "not_in_final_k": 1, "n_gold_pages": 3}
    assert s["question_type"]["novel-generated"]["wrong_document"] == 1
    assert "| all | 3 | 1 | 1 | 0 | 1 |" in render(s, "m", 20)
