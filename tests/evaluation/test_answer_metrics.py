import pytest

from fingap.evaluation.answer_metrics import (
    answer_rouge_l,
    answer_scores,
    extract_numbers,
    numeric_match,
)
from fingap.evaluation.metrics import rouge_l


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("$1577.00", [1577.0]),
        ("1,577 million", [1577.0]),
        ("$1,234,567.89", [1234567.89]),
        ("a loss of (1,234)", [-1234.0]),
        ("$(12.5) and (3.2%)", [-12.5, -3.2]),
        ("-5 and \u22127.5", [-5.0, -7.5]),
        ("2019-2020 10-K", [2019.0, 2020.0, 10.0]),  # hyphens between tokens are not minus
        ("2019,2020", [2019.0, 2020.0]),  # not a thousands separator
        ("21.5%", [21.5]),
        ("EPS of .5", [0.5]),
        ("FY2022 Q2", [2022.0, 2.0]),
        ("no numbers here", []),
    ],
)
def test_extract_numbers(text, numbers):
    assert extract_numbers(text) == pytest.approx(numbers)


def test_numeric_match_examples():
    assert numeric_match("$1577.00", "Capex was 1,577 million in FY2022.")
    # |1700 - 1577| = 123 > 0.03 + 0.03 * 1700 = 51.03
    assert not numeric_match("$1,700", "$1577")
    assert not numeric_match("$1577", "$1,700")  # 123 > 0.03 + 0.03 * 1577 = 47.34
    # The spec's tolerance is wide: |1600 - 1577| = 23 <= 0.03 + 0.03 * 1600 = 48.03.
    assert numeric_match("$1,600", "$1577")
    assert not numeric_match("$1,600", "$1577", rtol=0.01)  # 23 > 0.03 + 16 = 16.03


def test_numeric_match_any_pair_sign_and_percent():
    assert numeric_match("$32,765 million; $9.09", "EPS was 9.1 and sales 30,000")  # 9.1 ~ 9.09
    assert numeric_match("(1,234)", "a loss of -1,250")  # 16 <= 0.03 + 37.02
    assert not numeric_match("(1,234)", "1,234")  # the sign matters
    assert numeric_match("21.5%", "21.5 percent")
    assert not numeric_match("21.5%", "0.215")  # percent points, not fractions
    # atol matters for small values: |0.44 - 0.42| = 0.02 <= 0.03 + 0.0126
    assert numeric_match("$0.42 per share", "$0.44")
    assert not numeric_match("$0.42 per share", "$0.50")  # 0.08 > 0.0426


def test_no_numbers_is_not_a_match():
    assert not numeric_match("Yes, it did.", "Yes, it did.")
    assert not numeric_match("$1577.00", "The company invested heavily.")
    assert not numeric_match("The margin improved.", "21.5%")
    assert not numeric_match("", "")


def test_answer_rouge_l_reuses_metrics():
    # gold tokens: net income was 5 363 million (6); prediction: net income 5 363 (4).
    # LCS = 4, P = 4/4, R = 4/6, F = 2 * 1 * (2/3) / (5/3) = 0.8
    assert answer_rouge_l("Net income was $5,363 million", "net income: 5,363") == pytest.approx(
        0.8
    )
    assert answer_rouge_l("a b", "a b") == rouge_l("a b", "a b") == 1.0
    assert answer_rouge_l("gold", "") == 0.0


def test_answer_scores():
    scores = answer_scores("$1577.00", "1,577")
    assert scores == {"answer_rouge_l": 0.0, "numeric_match": 1.0}
    # gold tokens 1577 00; prediction tokens 1577 -> LCS 1, P 1, R 1/2, F = 2/3
    assert answer_scores("$1577.00", "1577")["answer_rouge_l"] == pytest.approx(2 / 3)
