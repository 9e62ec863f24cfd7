"""Question understanding without an LLM: metric, formula, fiscal periods, unit and rounding.

What is read from a question:
- fiscal years ("FY2019", "fiscal 2019", "FY19", "2019"); the target year is the latest one
  named; "FY2017 - FY2019 3 year average" averages the metric over each year of the range;
- the period type: a quarter ("Q2", "second quarter", "three months ended") is 3M, "six months"
  6M, "nine months" 9M; otherwise a full fiscal year;
- the statements it points to ("cash flow statement", "balance sheet", "income statement");
- the metric, in this order: a definition the question gives ("X is defined as: A / B"), parsed
  into a formula over line items; else a metric of the formula library; else a single line item
  of the finance vocabulary (a directly extracted figure);
- the unit and rounding: "in USD billions", "in percent", "round to two decimal places".

A question that asks yes/no, or whose metric or year cannot be read, is not a figure question:
the reason is recorded and the agent sends it to the LLM path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .calculator import CalcError, names_in, parse_expression
from .formulas import Metric, expand, input_name, load_library, mean_over_years, split_input_name
from .labels import Vocabulary, normalise_phrase

_FY = re.compile(r"\b(?:fy|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})\b|\b((?:19|20)\d{2})\b", re.I)
_MULTI_YEAR = re.compile(r"\b(\d|two|three|four|five)[- ]year\s+average", re.I)
_WORD_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_DECIMALS = re.compile(r"\b(\d|zero|one|two|three|four)\s+decimal(?:\s+places?|\s+points?)?",
                       re.I)
_WHOLE = re.compile(r"nearest\s+(whole|integer|whole\s+number)|no\s+decimal", re.I)
_SCALE = re.compile(r"\b(?:in|into)\s+(?:units\s+of\s+)?(?:usd|us\$|\$|dollars)?\s*"
                    r"(thousands|millions|billions)\b|\b(?:usd|us\$|\$)\s*(thousands|millions|"
                    r"billions)\b", re.I)
_PERCENT = re.compile(r"percent|percentage|\bin\s+%|\bas\s+a\s+%|%\s*of\b|units\s+of\s+%", re.I)
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|did|has|have|was|were|can|could|should|will)\b",
                     re.I)
_QUARTER = [
    (re.compile(r"\bq[1-4]\b|\b(first|second|third|fourth)\s+(fiscal\s+)?quarter\b|"
                r"three\s+months|\bquarter(ly)?\b", re.I), "3M"),
    (re.compile(r"six\s+months|first\s+half|\bh1\b", re.I), "6M"),
    (re.compile(r"nine\s+months", re.I), "9M"),
]
_STATEMENT_WORDS = [
    ("cash_flow", re.compile(r"cash\s+flows?\s+statements?|statements?\s+of\s+cash\s+flows?",
                             re.I)),
    ("balance_sheet", re.compile(r"balance\s+sheets?|statements?\s+of\s+financial\s+position",
                                 re.I)),
    ("income", re.compile(r"income\s+statements?|statements?\s+of\s+(income|operations|"
                          r"earnings)|\bp&l\b|profit\s+and\s+loss", re.I)),
]
_DEFINITION = re.compile(r"\bdefined\s+as\s*:?\s*(?P<rhs>.+?)(?=\.\s+[A-Z]|\.\s*$|\?|$)",
                         re.I | re.S)
_OPERATORS = re.compile(r"(\s+-\s+|\s+minus\s+|\s+plus\s+|\s+divided\s+by\s+|\s+times\s+|"
                        r"\s+multiplied\s+by\s+|[/+*\u00d7\u00f7()])", re.I)
_OPERATOR_MAP = {"-": "-", "minus": "-", "plus": "+", "divided by": "/", "times": "*",
                 "multiplied by": "*", "/": "/", "+": "+", "*": "*", "\u00d7": "*",
                 "\u00f7": "/", "(": "(", ")": ")"}


@dataclass
class ParsedQuestion:
    figure: bool
    reason: str = ""                       # why it is not a figure question
    metric: str = ""                       # library metric, "definition", or a concept name
    expression: str = ""                   # calculator expression over input names
    inputs: list[tuple[str, int]] = field(default_factory=list)   # (concept, fiscal year)
    years: list[int] = field(default_factory=list)
    target_year: int | None = None
    duration: str = "12M"
    statements: list[str] = field(default_factory=list)
    unit: str = "usd"                      # usd | ratio | percent | days | usd_per_share
    out_scale: str | None = None           # requested scale of a usd answer
    decimals: int | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def fiscal_years(text: str) -> list[int]:
    years = []
    for m in _FY.finditer(text):
        raw = m.group(1) or m.group(2)
        y = int(raw) if len(raw) == 4 else 2000 + int(raw)
        if 1990 <= y <= 2040:
            years.append(y)
    return years


def _decimals(text: str) -> int | None:
    m = _DECIMALS.search(text)
    if m:
        w = m.group(1).lower()
        return int(w) if w.isdigit() else _WORD_NUMBERS[w]
    return 0 if _WHOLE.search(text) else None


def _strip_statement_names(text: str) -> str:
    for _, pattern in _STATEMENT_WORDS:
        text = pattern.sub(" ", text)
    return text


def _library_match(text: str, library: dict[str, Metric]) -> tuple[Metric, int, int] | None:
    norm = normalise_phrase(text)
    best = None
    for metric in library.values():
        for term in metric.terms:
            t = normalise_phrase(term)
            m = re.search(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", norm)
            if m and (best is None or len(t) > best[2] - best[1]):
                best = (metric, m.start(), m.end())
    return best


def _operand(phrase: str, target: int, vocab: Vocabulary,
             library: dict[str, Metric]) -> str:
    """One operand of a definition as a calculator sub-expression."""
    text = phrase.strip(" ,.:;")
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return text
    years = fiscal_years(text)
    averaged = re.search(r"\baverage\b|\bavg\b|\bmean\b", text, re.I) is not None
    text_wo_years = _FY.sub(" ", _strip_statement_names(text))
    lib = _library_match(text_wo_years, library)
    terms = vocab.find_terms(text_wo_years)
    if lib and (not terms or lib[2] - lib[1] >= max(b - a for a, b, _ in terms)) and \
            lib[0].name != "growth":
        year = max(years) if years else target
        return f"({expand(lib[0].expr, year)})"
    if not terms:
        raise CalcError(f"no line item recognised in {phrase.strip()!r}")
    concept = max(terms, key=lambda t: t[1] - t[0])[2]
    if averaged:
        ys = sorted(set(years)) if len(set(years)) >= 2 else [target - 1, target]
        if len(set(years)) == 1:
            ys = [years[0] - 1, years[0]]
        return "((" + " + ".join(input_name(concept, y) for y in ys) + f") / {len(ys)})"
    return input_name(concept, years[0] if years else target)


def parse_definition(rhs: str, target: int, vocab: Vocabulary,
                     library: dict[str, Metric] | None = None) -> str:
    """A definition's right-hand side ("FY2019 revenue / (average PP&E between FY2018 and
    FY2019)") as a calculator expression; ``CalcError`` if a part cannot be read."""
    library = library or load_library()
    out: list[str] = []
    pieces = _OPERATORS.split(rhs)
    for piece in pieces:
        if piece is None:
            continue
        key = " ".join(piece.split()).lower()
        if key in _OPERATOR_MAP:
            out.append(_OPERATOR_MAP[key])
        elif piece.strip(" ,.:;"):
            out.append(_operand(piece, target, vocab, library))
    expression = " ".join(out)
    parse_expression(expression)  # raises on unbalanced parentheses or dangling operators
    return expression


def parse_question(text: str, vocab: Vocabulary | None = None,
                   doc_type: str | None = None) -> ParsedQuestion:
    vocab = vocab or Vocabulary.load()
    library = load_library()
    if not text or not text.strip():
        return ParsedQuestion(False, "empty question")
    statements = [k for k, p in _STATEMENT_WORDS if p.search(text)]
    duration = "12M"
    for pattern, dur in _QUARTER:
        if pattern.search(text):
            duration = dur
            break
    if duration == "12M" and doc_type in ("10Q",) and not re.search(r"\bfy|fiscal\s+year|annual",
                                                                   text, re.I):
        duration = "3M"
    years = fiscal_years(text)
    base = ParsedQuestion(False, statements=statements, duration=duration, years=years,
                          decimals=_decimals(text))
    m = _SCALE.search(text)
    base.out_scale = (m.group(1) or m.group(2)).lower() if m else None
    if _YES_NO.match(text):
        base.reason = "yes/no question"
        return base
    if not years:
        base.reason = "no fiscal year in the question"
        return base
    target = max(years)
    base.target_year = target
    percent = _PERCENT.search(text) is not None
    multi = _MULTI_YEAR.search(text)
    span = list(range(min(years), max(years) + 1)) if multi and len(set(years)) >= 2 else None
    definition = _DEFINITION.search(text)
    try:
        if definition:
            expression = parse_definition(definition.group("rhs"), target, vocab, library)
            metric, unit = "definition", _definition_unit(expression, percent)
            if unit == "percent" and "100" not in expression:
                expression = f"({expression}) * 100"
        else:
            lib = _library_match(_strip_statement_names(text), library)
            concepts = vocab.find_terms(_strip_statement_names(text))
            x = None
            if lib and lib[0].name == "growth":
                after = [c for a, _, c in concepts if a >= lib[2]] or [c for _, _, c in concepts]
                x = after[0] if after else None
                if x is None:
                    lib = None
            if lib and concepts and lib[0].name != "growth" and \
                    max(b - a for a, b, _ in concepts) > lib[2] - lib[1]:
                lib = None  # a longer line-item name wins ("cost of sales" over "sales")
            if lib:
                metric, unit = lib[0].name, lib[0].unit
                expression = (mean_over_years(lib[0].expr, span, x) if span
                              else expand(lib[0].expr, target, x))
                if unit == "ratio" and percent:
                    expression, unit = f"({expression}) * 100", "percent"
            elif concepts:
                concept = max(concepts, key=lambda t: t[1] - t[0])[2]
                metric = concept
                unit = "usd_per_share" if concept == "eps_diluted" else "usd"
                expression = (mean_over_years(concept, span) if span
                              else input_name(concept, target))
            else:
                base.reason = "no metric or line item recognised"
                return base
        names = names_in(expression)
    except CalcError as e:
        base.reason = f"definition not understood: {e}"
        return base
    inputs = [split_input_name(n) for n in names]
    return ParsedQuestion(True, "", metric, expression, inputs, years, target, duration,
                          statements, unit, base.out_scale, base.decimals)


def _definition_unit(expression: str, percent: bool) -> str:
    if percent:
        return "percent"
    if "/" in expression:
        return "ratio"
    return "usd"
