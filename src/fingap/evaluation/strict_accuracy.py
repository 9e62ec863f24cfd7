"""StrictAcc: one value per answer against the gold answer, with written-down conventions.

Conventions (one value per answer, never "any number in the text"):
- the answer's value is the answer record's ``value``; for an LLM answer, the first number of
  the text that is not copied from the question (``first_new_number``); none -> wrong;
- the gold value is the first number of the gold answer once years and FY/quarter labels are
  removed (``gold_numbers``);
- scale words ("million", "billion", "thousand") after a number multiply it out, on both
  sides, before comparing; a percent gold ("1.9%") also matches the same value as a fraction
  (0.019), with the tolerance scaled alike;
- correct when |value - gold| <= max(half a unit of the gold's last printed decimal,
  1% of |gold|): "$8.70" accepts 8.613-8.787, "24.26" accepts 24.0174-24.5026. This is tighter
  than NumMatch's atol = 0.03, which lets 0 match 0.01.
"""

from __future__ import annotations

import re

from .answer_metrics import extract_numbers

# a year is no amount: "$2014.3", "2019.5 days" and "$2010 million" keep their numbers
_YEAR_LABEL = re.compile(r"\b(?:FY|fiscal\s+(?:year\s+)?)?'?(?<![$\d.,])(?:19|20)\d{2}\b(?![.,]\d)|"
                         r"\bFY\s?'?\d{2}\b|\bQ[1-4]\b|\bH[12]\b", re.I)
_SCALED_NUMBER = re.compile(
    r"\(?-?[$€£]?\s?\d[\d,]*(?:\.\d+)?\)?\s*(?:%|percent)?(?:\s*(?P<scale>thousand|million|"
    r"billion|trillion|[kmb]n?)\b)?", re.I)
_SCALE_FACTORS = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6,
                  "billion": 1e9, "b": 1e9, "bn": 1e9, "trillion": 1e12}


def _numbers_with_scale(text: str) -> list[tuple[float, float, int, bool]]:
    """(value, scale factor, printed decimals, percent) for each number of ``text``."""
    out = []
    for m in _SCALED_NUMBER.finditer(text):
        raw = m.group(0)
        number = re.match(r"\(?-?[$€£]?\s?\d[\d,]*(?:\.\d+)?\)?", raw)
        nums = extract_numbers(number.group(0).replace(" ", "")) if number else []
        if not nums:
            continue
        digits = re.search(r"\d[\d,]*(?:\.(\d+))?", raw)
        decimals = len(digits.group(1)) if digits and digits.group(1) else 0
        scale = _SCALE_FACTORS.get((m["scale"] or "").lower(), 1.0)
        out.append((nums[0], scale, decimals, "%" in raw or "percent" in raw.lower()))
    return out


def gold_numbers(gold: str) -> list[tuple[float, float, int, bool]]:
    """Numbers of a gold answer once years and FY/quarter labels are removed."""
    return _numbers_with_scale(_YEAR_LABEL.sub(" ", gold))


def single_number_gold(gold: str) -> bool:
    """True when the gold answer holds exactly one number besides years and period labels."""
    return len(gold_numbers(gold)) == 1


def first_new_number(answer: str, question: str) -> float | None:
    """The first number of ``answer`` not copied from ``question`` (years and labels count as
    copied only when the question has them), with its scale word multiplied out."""
    asked = set(extract_numbers(question))
    for value, scale, _, _ in _numbers_with_scale(answer):
        if value not in asked:
            return value * scale
    return None


def strict_match(value: float | None, gold: str, value_scale: float = 1.0) -> bool:
    """StrictAcc for one answer (see the conventions above). ``value_scale`` multiplies the
    predicted value out when the answer states its scale separately ("in millions")."""
    if value is None:
        return False
    golds = gold_numbers(gold)
    if not golds:
        return False
    g, g_scale, decimals, percent = golds[0]
    pred = value * value_scale
    candidates = [(g * g_scale, 0.5 * 10 ** (-decimals) * g_scale)]
    if g_scale != 1.0:
        candidates.append((g, 0.5 * 10 ** (-decimals)))  # scale word on the gold side only
    if percent:
        candidates.append((g / 100, 0.5 * 10 ** (-decimals) / 100))
    for target, half_unit in candidates:
        if abs(pred - target) <= max(half_unit, 0.01 * abs(target)):
            return True
    return False
