import pytest

from fingap.evaluation.scoring import ChunkLookup, aggregate, breakdown, score_run
from fingap.ingestion.corpus import STATUS_MISSING_DOC, Evidence, Question


def _q(qid, doc, pages, qtype="metrics-generated", status="evaluated"):
    return Question(qid, "", doc, "10K", qtype, "", "?", "", [Evidence(doc, p, "net income 5", "")
                                                              for p in pages], status=status)


LOOKUP = ChunkLookup(["A0", "A1", "B0"], ["A", "A", "B"], [0, 1, 0],
                     ["net income 5", "cash flow", "net income 5"])


def test_score_run_hand_computed():
    questions = [_q("q1", "A", [0, 1]), _q("q2", "A", [1], qtype="novel-generated"),
                 _q("q3", "Z", [0], status=STATUS_MISSING_DOC)]
    run = {"q1": [("B0", 0.9), ("A0", 0.8)], "q2": [("B0", 0.9)]}
    records = score_run(questions, run, LOOKUP, k=5)
    assert [r["question_id"] for r in records] == ["q1", "q2"]  # missing-doc question not scored
    r1, r2 = records
    assert (r1["DocRec"], r1["PageRec"]) == (1.0, 0.5)
    assert (r2["DocRec"], r2["PageRec"]) == (0.0, 0.0)  # B page 0 is not A page 1
    # q1's reference is its two snippets joined (6 tokens); the chunk matches 3: P=1, R=1/2
    assert r1["ROUGE-L"] == pytest.approx(2 / 3)
    assert r2["ROUGE-L"] == 1.0  # text metrics do not care which document the chunk is from
    agg = aggregate(records, 5)
    assert agg["DocRec@5"] == 0.5 and agg["PageRec@5"] == 0.25 and agg["n"] == 2
    by = breakdown(records, "question_type", 5)
    assert by["metrics-generated"]["PageRec@5"] == 0.5 and by["novel-generated"]["n"] == 1


def test_only_top_k_counts():
    records = score_run([_q("q1", "A", [1])], {"q1": [("A0", 2.0), ("A1", 1.0)]}, LOOKUP, k=1)
    assert records[0]["PageRec"] == 0.0


def test_question_without_hits_scores_zero():
    records = score_run([_q("q1", "A", [1])], {}, LOOKUP, k=5)
    assert records[0]["PageRec"] == 0.0 and records[0]["BLEU"] == 0.0


def test_stale_chunk_id_is_an_error():
    with pytest.raises(KeyError, match="stale run"):
        score_run([_q("q1", "A", [1])], {"q1": [("A9", 1.0)]}, LOOKUP, k=5)


def test_chunk_lookup_of_the_chunk_stage_records():
    from fingap.evaluation.scoring import ChunkLookup

    lookup = ChunkLookup.of_chunks([{"chunk_id": "c1", "doc": "D", "page": 3, "text": "x"}])
    assert lookup["c1"] == ("D", 3, "x")


def test_recall_only_records_match_the_full_ones_without_text_scores():
    questions = [_q("q1", "A", [0, 1]), _q("q2", "A", [1])]
    run = {"q1": [("B0", 0.9), ("A0", 0.8)], "q2": [("A1", 0.7)]}
    full = score_run(questions, run, LOOKUP, k=5)
    lean = score_run(questions, run, LOOKUP, k=5, text=False)
    for f, r in zip(full, lean, strict=True):
        assert "BLEU" not in r and "ROUGE-L" not in r
        assert r == {key: v for key, v in f.items() if key not in ("BLEU", "ROUGE-L")}


def test_a_question_without_gold_gets_its_retrieval_but_no_score():
    from fingap.evaluation.scoring import unscored_records
    from fingap.ingestion.corpus import STATUS_NO_GOLD

    questions = [_q("q1", "A", [0]), Question("u1", "", "A", "10K", "", "", "?", "", [],
                                              status=STATUS_NO_GOLD)]
    run = {"q1": [("A0", 0.9)], "u1": [("A1", 0.7), ("B0", 0.5)]}
    assert [r["question_id"] for r in score_run(questions, run, LOOKUP, k=5)] == ["q1"]
    (u1,) = unscored_records(questions, run, LOOKUP, k=1)
    assert u1 == {"question_id": "u1", "question_type": "", "doc_type": "10K", "doc": "A",
                  "scored": False, "retrieved": [["A1", "A", 1, 0.7]]}
