"""The number-verification gate: every number that goes out is traced to a cited page.

The gate re-reads the cited pages' *text* (the ``extract`` stage's PyMuPDF text), not the table
parser's output, so a parser mistake cannot vouch for itself. For the structured path, each
input must pass two checks on its cited page:

1. *printed*: the input's value appears in the page text in a printed form ("1,577", "1577",
   "(1,577)"; magnitudes of outflows may be printed either way);
2. *period*: the row is found by its label in the text, the values that follow the label are
   read in text order, and the input's value must sit at the position of its fiscal year in the
   page's header years (the last run of year-only lines above the row), so a value from the
   wrong year's column fails.

The answer's number must then equal the calculator's result over the verified inputs. For the
LLM path, every number in the answer that is not copied from the question must appear on one of
the context pages (after scale words are read: "1.5 billion" may be printed as 1,500 millions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ingestion.numbers import DASHES, parse_value
from .labels import normalise_label

_YEAR = re.compile(r"(?<![\d/])((?:19|20)\d{2})(?![\d/])|\b\d{1,2}/\d{1,2}/((?:19|20)?\d{2})\b")
# what else a header line may say around its years: "At December 31, 2019", "Fiscal 2022",
# "Three Months Ended June 30, 2023", "Dec. 28, 2019 Dec. 29, 2018"
_DATE_WORDS = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|\b(?:at|as|of|on|year|years|"
    r"ended|ending|fiscal|fy|quarter|months|weeks|three|six|nine|twelve|period|and)\b|"
    r"\b\d{1,2}\b|\(\w\)|[,.:'\u2019]", re.I)
_NUMBER_TOKEN = re.compile(r"\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?")


@dataclass
class InputCheck:
    name: str
    printed: bool
    period: bool | None           # None: the row or header could not be read from the text
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.printed and self.period is not False


@dataclass
class GateResult:
    passed: bool
    checks: list[InputCheck] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    n_claimed: int = 0        # numbers the answer cites (structured inputs, or LLM numbers)
    n_traced: int = 0         # ... of which the cited pages really print

    def to_dict(self) -> dict:
        return {"passed": self.passed, "reasons": self.reasons, "n_claimed": self.n_claimed,
                "n_traced": self.n_traced,
                "inputs": [c.__dict__ | {"ok": c.ok} for c in self.checks]}


def _page_numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER_TOKEN.finditer(text):
        pv = parse_value(m.group(0).replace(" ", ""))
        if pv is not None:
            out.append(pv.value)
    return out


def value_on_page(value: float, text: str, magnitude: bool = False) -> bool:
    """Is ``value`` printed on the page (exactly, as a table cell or a number in prose)?"""
    for v in _page_numbers(text):
        if abs(v - value) < 1e-9 or (magnitude and abs(abs(v) - abs(value)) < 1e-9):
            return True
    return False


def _items(text: str) -> list[str]:
    """Text lines with currency signs dropped ("5,777 $" -> "5,777")."""
    items = (" ".join(ln.replace("$", " ").split()) for ln in text.splitlines())
    return [it for it in items if it]


def _years_of(item: str) -> list[int] | None:
    """The years of a header line, in order; None when the line says anything else."""
    years = [int(a) if a else (int(b) if len(b) == 4 else 2000 + int(b))
             for a, b in _YEAR.findall(item)]
    if not years or _DATE_WORDS.sub(" ", _YEAR.sub(" ", item)).strip():
        return None
    return years


def _is_number_item(item: str) -> bool:
    return parse_value(item) is not None or item in DASHES


def period_position(text: str, label: str, value: float, year: int,
                    magnitude: bool = False) -> bool | None:
    """Does ``value`` sit in the ``year`` column of the row ``label``, reading the page text in
    order? None when the row or its header years cannot be found in the text."""
    items = _items(text)
    target = normalise_label(label)
    if not target:
        return None
    verdict = None
    for i, item in enumerate(items):
        norm = normalise_label(item)
        if not norm or not target.endswith(norm):
            continue
        # the label may wrap over several text lines: join backwards until it matches
        joined, j = norm, i
        while joined != target and j > 0 and len(joined) < len(target):
            j -= 1
            prev = normalise_label(items[j])
            if not prev or _is_number_item(items[j]):
                break
            joined = f"{prev} {joined}"
        if joined != target:
            continue
        values, pcts = [], []
        for it in items[i + 1:]:
            if _years_of(it) is not None:
                break
            cells = [parse_value(tok) for tok in it.split()]  # "1,603,451 1,499,218"
            if not cells or any(c is None for c in cells):
                break
            values.extend(c.value for c in cells)
            pcts.extend(c.percent for c in cells)
        years = _header_years(items[:j])
        if not values or not years:
            continue
        hits = [k for k, v in enumerate(values) if abs(v - value) < 1e-9 or (
            magnitude and abs(abs(v) - abs(value)) < 1e-9)]
        if not hits:
            continue
        if len(values) != len(years) and len(pcts) == len(values):
            # "Amount | % of sales" layouts: percent cells are no period column
            kept = [v for v, pct in zip(values, pcts, strict=True) if not pct]
            if len(kept) == len(years):
                values = kept
                hits = [k for k, v in enumerate(values) if abs(v - value) < 1e-9 or (
                    magnitude and abs(abs(v) - abs(value)) < 1e-9)]
        if len(values) != len(years):
            # quarterly layouts repeat the years (three months, six months): align modulo
            if len(values) % len(years) == 0:
                years = years * (len(values) // len(years))
            else:
                continue
        ok = any(years[k] == year for k in hits)
        if ok:
            return True
        verdict = False
    return verdict


def _header_years(items: list[str]) -> list[int]:
    """The last run of year-only lines before a row (a number line ends the search)."""
    run: list[int] = []
    for it in reversed(items):
        years = _years_of(it)
        if years:
            run[:0] = years
        elif run and _DATE_WORDS.sub(" ", it).strip():
            # the nearest group of header lines only (not a title's "years ended ..."); lines
            # of date words between the years ("November 27,") belong to the group
            break
    return run


def check_inputs(inputs: list[dict], page_texts: dict[tuple[str, int], str]) -> list[InputCheck]:
    """Inputs are dicts with name, doc, page, label, value, year (the header year) and
    magnitude (bool)."""
    checks = []
    for inp in inputs:
        text = page_texts.get((inp["doc"], inp["page"]))
        if text is None:
            checks.append(InputCheck(inp["name"], False, None, "cited page not found"))
            continue
        mag = bool(inp.get("magnitude"))
        printed = value_on_page(inp["value"], text, mag)
        if not printed and inp["value"] == 0:
            # a dash in the row's column: its row and header say where it stands
            printed = period_position(text, inp["label"], 0.0, inp["year"]) is True
        period = period_position(text, inp["label"], inp["value"], inp["year"], mag) \
            if printed else None
        reason = "" if printed else "value not printed on the cited page"
        if period is False:
            reason = f"value is not in the {inp['year']} column of its row"
        checks.append(InputCheck(inp["name"], printed, period, reason))
    return checks


def gate_structured(inputs: list[dict], page_texts: dict[tuple[str, int], str],
                    answer_value: float, recomputed: float) -> GateResult:
    checks = check_inputs(inputs, page_texts)
    reasons = [f"{c.name}: {c.reason}" for c in checks if not c.ok]
    if abs(answer_value - recomputed) > 1e-6 * max(1.0, abs(recomputed)):
        reasons.append("answer differs from the calculator's result")
    return GateResult(not reasons, checks, reasons, len(checks),
                      sum(c.printed for c in checks))


_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def gate_text(answer: str, question: str, context_texts: list[str]) -> GateResult:
    """LLM path: each number of the answer, not copied from the question, must be on a page."""
    from ..evaluation.answer_metrics import extract_numbers

    asked = set(extract_numbers(question))
    numbers = [n for n in extract_numbers(answer) if n not in asked]
    if not numbers:
        return GateResult(True, [], [], 0, 0)
    pages = [set(_page_numbers(t)) for t in context_texts]
    page_values = set().union(*pages) if pages else set()
    reasons = []
    for n in numbers:
        candidates = {n, -n}
        for s1 in _SCALE_WORDS.values():
            for s2 in (1e3, 1e6, 1e9):
                candidates.add(round(n * s1 / s2, 6))
        if not any(any(abs(c - v) < 1e-6 * max(1.0, abs(v)) for v in page_values)
                   for c in candidates):
            reasons.append(f"{n:g} is not on any cited page")
    return GateResult(not reasons, [], reasons, len(numbers), len(numbers) - len(reasons))
