"""Answer-quality metrics: generated answer vs FinanceBench's gold answer.

- Answer ROUGE-L = ``fingap.evaluation.metrics.rouge_l(gold, prediction)`` (rouge-score's
  ROUGE-L F-measure; lower-cased alphanumeric tokens). Empty text on either side scores 0.
- Numeric match = 1 if some number in the prediction is close to some number in the gold answer,
  i.e. ``numpy.isclose(pred, gold, atol=0.03, rtol=0.03)`` holds for any (pred, gold) pair, which
  is ``|pred - gold| <= 0.03 + 0.03 * |gold|`` (the tolerance scales with the gold value): a
  prediction of "$1577" matches a gold "$1,600" (23 <= 48.03) but not "$1,700" (123 > 51.03).
  If either text contains no number, it is 0.

How numbers are read from a text:
- Currency symbols ($ € £ ¥ ₹) are dropped, and a comma is dropped when it is a thousands
  separator (a digit before it, exactly three digits after it): "$1,577.00" -> 1577.0. Other
  commas separate numbers: "2019,2020" -> 2019 and 2020.
- A number in parentheses is negative, as in financial statements: "(1,234)" -> -1234;
  "$(12.5)" and "(3.2%)" likewise, and so is a bare year in parentheses, "(2022)". A leading
  minus ("-" or "−") is negative too, unless it directly follows a letter, digit or dot
  ("2019-2020" is 2019 and 2020, "10-K" is 10).
- A percentage is read in percent points as written: "21.5%" -> 21.5. It is not converted to a
  fraction, so "21.5%" does not match "0.215".
- Scale words are ignored: "1,577 million" -> 1577, so "$1.577 billion" does not match
  "$1,577 million". Every digit run counts, including ones inside labels ("FY2022" -> 2022,
  "Q2" -> 2), which is the price of a simple, predictable rule.
"""

from __future__ import annotations

import re

import numpy as np

from .metrics import rouge_l

ATOL = 0.03
RTOL = 0.03

_CURRENCY = re.compile(r"[$€£¥₹]")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_UNSIGNED = r"(?:\d+(?:\.\d+)?|\.\d+)"
_NUMBER = re.compile(
    rf"\(\s*(?P<paren>{_UNSIGNED})\s*%?\s*\)"  # (1234) or (3.2%): accounting negative
    rf"|(?:(?<![\w.])(?P<minus>[-\u2212]))?(?P<plain>{_UNSIGNED})"
)


def extract_numbers(text: str) -> list[float]:
    """All numbers in ``text``, in order, read with the module's conventions."""
    cleaned = _THOUSANDS_COMMA.sub("", _CURRENCY.sub("", text))
    numbers: list[float] = []
    for m in _NUMBER.finditer(cleaned):
        if m["paren"] is not None:
            numbers.append(-float(m["paren"]))
        else:
            value = float(m["plain"])
            numbers.append(-value if m["minus"] else value)
    return numbers


def numeric_match(gold: str, prediction: str, atol: float = ATOL, rtol: float = RTOL) -> bool:
    """True if any number in ``prediction`` is np.isclose to any number in ``gold``."""
    gold_numbers, pred_numbers = extract_numbers(gold), extract_numbers(prediction)
    if not gold_numbers or not pred_numbers:
        return False
    pred = np.asarray(pred_numbers)[:, None]
    ref = np.asarray(gold_numbers)[None, :]
    return bool(np.isclose(pred, ref, atol=atol, rtol=rtol).any())


def answer_rouge_l(gold: str, prediction: str) -> float:
    return rouge_l(gold, prediction)


def answer_scores(gold: str, prediction: str) -> dict[str, float]:
    """Both answer metrics for one question, as floats so they average directly."""
    return {
        "answer_rouge_l": answer_rouge_l(gold, prediction),
        "numeric_match": float(numeric_match(gold, prediction)),
    }
