"""Period phrases in a question: the words that say *when*, never *what*.

"over the first half of 2023", "during the 52 weeks ended January 28, 2023", "over the prior
fiscal year", "year over year", "a year earlier": English names a period with a small, closed
grammar (a preposition, a determiner, a duration or a period noun, an optional end date or
year), the same one statement headers print ("Six Months Ended", "52 Weeks Ended"). A period
phrase is no part of a line item's name, and its "over" is no division: "dividends over the
first half" is the dividends of the half, while "net income over total assets" divides.

``strip_period_phrases`` removes them before the parser splits an expression at its operators
and reads line items, keeping the years they name (an operand's year is read from its own
words); durations are read elsewhere from the whole question.
"""

from __future__ import annotations

import re

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_NUMBER = r"(?:\d{1,3}|one|two|three|four|five|six|nine|twelve|thirteen|twenty[- ]six|" \
          r"thirty[- ]nine|fifty[- ]two|fifty[- ]three)"
# a period's length or kind: "six months", "52 weeks", "quarter", "half", "fiscal year"
_DURATION = (rf"(?:{_NUMBER}[- ](?:(?:fiscal|calendar)\s+)?(?:months?|weeks?|years?|quarters?)|"
             r"(?:half[- ]year|half|quarter|year|period|months|weeks|fiscal\s+years?|"
             r"calendar\s+years?|twelve\s+months))")
# what may stand before it: "the same", "the prior fiscal", "its first", "the full"
_DETERMINER = (r"(?:(?:the|its|their|that|those|these|this|a|an)\s+)?"
               r"(?:(?:same|prior|previous|preceding|comparable|current|latest|last|final|"
               r"most\s+recent|first|second|third|fourth|full|whole|entire|fiscal|calendar|"
               r"corresponding)\s+)*")
# what may follow: "ended June 30, 2023", "of 2023", "of fiscal 2023", "a year earlier"
_DATE = rf"{_MONTH}(?:\s+\d{{1,2}})?(?:,?\s+(?:19|20)\d{{2}})?"
_TAIL = (rf"(?:\s+(?:ended|ending|to|through|thru)\s+{_DATE})?"
         r"(?:\s+of\s+(?:the\s+)?(?:fiscal\s+|calendar\s+)?(?:(?:19|20)\d{2}|fy\s*\d{2,4}|"
         r"(?:prior|previous|preceding)\s+(?:fiscal\s+)?year))?"
         r"(?:\s+(?:a|one)\s+year\s+(?:earlier|before|ago))?")
# a period phrase led by a preposition of time: "over the first half of 2023"; not a year
# that is a possessive or part of a balance ("over the prior year's revenue", "over the
# year-end balance"), which names a line item
# "due within one year", "within twelve months" is a maturity (current, not long-term), part of
# a line item's name: no period
_MATURITY = (r"(?!within\s+(?:(?:a|one|1|the|next|coming)\s+)*"
             r"(?:year|twelve\s+months|12\s+months)\b)")
_LED = re.compile(
    rf"\b{_MATURITY}(?:over|during|in|for|across|throughout|within)\s+{_DETERMINER}{_DURATION}"
    rf"{_TAIL}"
    r"(?!['\u2019]s\b|[- ]end\b|\s+end\b)(?=[\s,.;:?)]|$)", re.I)
# a period named from another: "a year earlier", "from a year before"
_RELATIVE = re.compile(r"\b(?:from\s+|than\s+)?(?:a|one|the)\s+year\s+(?:earlier|before|ago)\b",
                       re.I)
# "year over year" names a comparison (the formula library's growth terms spell it with
# hyphens); its "over" divides nothing
_OVER_PERIOD = re.compile(r"\b(year|quarter|period)\s+over\s+(year|quarter|period)\b", re.I)


def period_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each period phrase in ``text``, in order, not overlapping."""
    return _spans(_OVER_PERIOD.sub(r"\1-over-\2", text))   # same length: spans stay in place


def _spans(text: str) -> list[tuple[int, int]]:
    spans = sorted((m.start(), m.end()) for p in (_LED, _RELATIVE) for m in p.finditer(text)
                   if m.end() > m.start())
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


_YEAR = re.compile(r"\b(?:fy\s*)?(?:19|20)\d{2}\b", re.I)


def strip_period_phrases(text: str) -> str:
    """``text`` with each period phrase replaced by the years it names ("dividends over the
    first half of 2023" -> "dividends 2023")."""
    text = _OVER_PERIOD.sub(r"\1-over-\2", text)
    out, last = [], 0
    for a, b in _spans(text):
        out.append(text[last:a])
        out.append(" " + " ".join(m.group(0) for m in _YEAR.finditer(text, a, b)) + " ")
        last = b
    out.append(text[last:])
    return re.sub(r"[ \t]{2,}", " ", "".join(out))
