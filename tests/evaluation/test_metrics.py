import random

import pytest
from rouge_score import rouge_scorer

from fingap.evaluation.metrics import (
    ascii_only,
    bleu,
    doc_recall,
    lcs_length,
    max_text_scores,
    page_recall,
    rouge_l,
)


def test_doc_recall():
    assert doc_recall(["A"], ["B", "A", "B"]) == 1.0
    assert doc_recall(["A"], ["B", "C"]) == 0.0
    assert doc_recall(["A"], []) == 0.0


def test_page_recall_multi_page_gold():
    gold = [("A", 3), ("A", 7)]
    assert page_recall(gold, [("A", 3), ("A", 4)]) == 0.5
    assert page_recall(gold, [("A", 7), ("A", 3)]) == 1.0


def test_page_recall_ignores_same_page_number_in_another_doc():
    assert page_recall([("A", 3)], [("B", 3), ("C", 3)]) == 0.0


def test_page_recall_duplicate_gold_pages_count_once():
    # FinanceBench lists the same (doc, page) twice for two questions: gold is a set
    assert page_recall([("A", 3), ("A", 3), ("A", 5)], [("A", 3)]) == 0.5
    assert page_recall([("A", 3), ("A", 3)], [("A", 3), ("A", 3)]) == 1.0


def test_page_recall_needs_gold():
    with pytest.raises(ValueError):
        page_recall([], [("A", 1)])


def test_rouge_l_hand_computed():
    # ref "a b c d", cand "a c e": LCS = 2, P = 2/3, R = 2/4, F = 2PR/(P+R) = 4/7
    assert rouge_l("a b c d", "a c e") == pytest.approx(4 / 7)
    assert rouge_l("Net income", "net INCOME!") == 1.0
    assert rouge_l("abc", "xyz") == 0.0
    assert rouge_l("", "xyz") == 0.0


def test_rouge_l_matches_rouge_score_package():
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    rng = random.Random(0)
    vocab = ["net", "income", "2018", "cash", "flow", "$", "1,577", "the", "of", "EPS"]
    for _ in range(200):
        ref = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 80)))
        cand = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 80)))
        expected = scorer.score(ref, cand)["rougeL"].fmeasure
        assert rouge_l(ref, cand) == pytest.approx(expected, abs=1e-12)


def test_lcs_length_hand_cases():
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(["a"] * 70, ["a"] * 65) == 65  # longer than a machine word


def test_bleu_bounds_and_identity():
    text = "Purchases of property, plant and equipment were 1,577 million in 2018."
    assert bleu(text, text) == pytest.approx(1.0)
    assert bleu("completely unrelated words here", text) == 0.0
    assert 0.0 < bleu("Purchases of property, plant and equipment were 1,373 million", text) < 1.0


def test_max_text_scores_takes_best_chunk_and_ascii_normalises():
    ref = "Costofgoodssold 1,234"
    chunks = ["unrelated text", "Cost\u00a0of\u00a0goods\u00a0sold 1,234"]
    s = max_text_scores(ref, chunks)
    assert s["ROUGE-L"] == 1.0  # non-ASCII dropped as in the gold text: words glued
    assert s["BLEU"] == pytest.approx(1.0)
    assert max_text_scores(ref, []) == {"BLEU": 0.0, "ROUGE-L": 0.0}
    assert ascii_only("a\u00a0b") == "ab"


def test_text_scores_are_memoised_per_string_pair():
    import sacrebleu

    ref = "Net revenue was 4,110 million in fiscal 2022, up from 3,871 million."
    cand = "Net revenue was 4,110 million in 2022"
    expected = sacrebleu.sentence_bleu(cand, [ref]).score / 100.0
    bleu.cache_clear()
    rouge_l.cache_clear()
    first = (bleu(cand, ref), rouge_l(ref, cand))
    again = (bleu(cand, ref), rouge_l(ref, cand))
    assert first == again and first[0] == expected  # the cache returns what was computed
    assert bleu.cache_info().hits == 1 and rouge_l.cache_info().hits == 1
    assert rouge_l(cand, ref) == first[1]  # F-measure is symmetric, though keyed by order
