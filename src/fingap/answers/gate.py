"""The number-verification gate's text checks: every number that goes out is traced to a cited
page. (What the numbers mean is checked on top of these by ``fingap.answers.meaning``.)

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
from ..ingestion.statement_tables import CASH_RECONCILIATION, TOTAL_SUFFIX, statement_kind
from .labels import normalise_label

_YEAR = re.compile(r"(?<![\d/])((?:19|20)\d{2})(?![\d/])|\b\d{1,2}/\d{1,2}/((?:19|20)?\d{2})\b")
# what else a header line may say around its years: "At December 31, 2019", "Fiscal 2022",
# "Three Months Ended June 30, 2023", "Dec. 28, 2019 Dec. 29, 2018"
_DATE_WORDS = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|\b(?:at|as|of|on|year|years|"
    r"ended|ending|fiscal|fy|quarter|months|weeks|three|six|nine|twelve|period|and)\b|"
    r"\b\d{1,2}\b|\(\w\)|[,.:'\u2019]", re.I)
# "$ 1,065" is one number; a dash cell above a number ("-\n1,065") is two cells, not -1,065
_NUMBER_TOKEN = re.compile(r"\(?-?\$?[ \t]?\d[\d,]*(?:\.\d+)?\)?%?")


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
    labels: dict[str, float] = field(default_factory=dict)  # input -> label-match score
    confidence: float = 0.0   # lowest label score when passed, else 0 (fingap.answers.meaning)

    def to_dict(self) -> dict:
        return {"passed": self.passed, "reasons": self.reasons, "n_claimed": self.n_claimed,
                "n_traced": self.n_traced, "labels": self.labels, "confidence": self.confidence,
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


def page_items(text: str) -> list[str]:
    """Text lines with currency signs dropped ("5,777 $" -> "5,777", "($4,935)" -> "(4,935)")."""
    items = (" ".join(re.sub(r"\(\s*\$\s*", "(", ln).replace("$", " ").split())
             for ln in text.splitlines())
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


_DURATIONS = [
    ("6M", re.compile(r"\bsix\s+months|\b6\s+months|\b(?:24|26|28)\s+weeks|twenty[- ]six\s+weeks|"
                      r"first\s+half|\bhalf[- ]year|\bh1\b|year[- ]to[- ]date", re.I)),
    ("9M", re.compile(r"\bnine\s+months|\b9\s+months|\b(?:36|39|40)\s+weeks|thirty[- ]nine\s+"
                      r"weeks", re.I)),
    ("12M", re.compile(r"\btwelve\s+months|\b12\s+months|\byears?\s+ended|\bfiscal\s+years?\b|"
                       r"\bfull[- ]year|\b(?:52|53)\s+weeks|fifty[- ]t\w+\s+weeks|\bannual\b",
                       re.I)),
    ("3M", re.compile(r"\bthree\s+months|\b3\s+months|\bquarters?\b|\bq[1-4]\b|\b(?:12|13|16|17|"
                      r"twelve|thirteen|sixteen)\s+weeks", re.I)),
]
_MONTH = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?", re.I)
TITLE_LINES = 15            # a page's title block, read for a duration stated once for all columns
PAGE_HEAD_LINES = 10        # a page's first lines, read for its statement title


def duration_of(text: str, shortest_first: bool = False) -> str | None:
    """The period length a header phrase states ("Six Months Ended" -> 6M), or None. In a
    question, a quarter wins over the fiscal year it is named by ("the third quarter of fiscal
    year 2023"): ``shortest_first``."""
    order = sorted(_DURATIONS, key=lambda d: d[0] == "12M") if shortest_first else _DURATIONS
    for dur, pattern in order:
        if pattern.search(text):
            return dur
    return None


@dataclass
class ColumnHeader:
    """A value column as the page's own header text states it."""
    year: int
    duration: str | None = None      # 3M | 6M | 9M | 12M; None: not stated (a balance)
    month: str | None = None         # "Jun": the month of the column's end date


@dataclass
class RowHit:
    """One printed row whose label matches, with the columns its values sit in."""
    columns: list[ColumnHeader]      # the header of each value of the row, in order
    hits: list[int]                  # positions of the value asked for
    statement: str                   # the statement title nearest above the row ("table": none)


def row_hits(text: str, label: str, value: float, magnitude: bool = False) -> list[RowHit]:
    """Every row of the page text printed as ``label`` whose values include ``value``, with
    the header (year, duration, end month) of each of its columns, read in text order."""
    items = page_items(text)
    if label.endswith(TOTAL_SUFFIX):
        return _section_total_hits(items, text, label[:-len(TOTAL_SUFFIX)], value, magnitude)
    target = normalise_label(label)
    if not target:
        return []
    out = []
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
        columns = _header_columns(items[:j]) or _trailing_header(items)
        if not values or not columns:
            continue
        if len(values) != len(columns) and len(pcts) == len(values):
            # "Amount | % of sales" layouts: percent cells are no period column
            kept = [v for v, pct in zip(values, pcts, strict=True) if not pct]
            if len(kept) == len(columns):
                values = kept
        if len(values) in (2 * len(columns), 2 * len(columns) + 1) and \
                sum(it.strip().lower() == "amount" for it in items[:j]) == len(columns):
            # "Amount | Percent to Sales" heads with the percents printed without "%" (and a
            # change column after them): each period's amount is the first of its two cells
            values = values[0:2 * len(columns):2]
        if len(values) != len(columns):
            # quarterly layouts repeat the years (three months, six months): align modulo
            if len(values) % len(columns) != 0:
                continue
            columns = columns * (len(values) // len(columns))
        hits = [k for k, v in enumerate(values) if abs(v - value) < 1e-9 or (
            magnitude and abs(abs(v) - abs(value)) < 1e-9)]
        if hits:
            out.append(RowHit(columns, hits, _statement_above(items[:j], text)))
    return out


def _section_total_hits(items: list[str], text: str, section: str, value: float,
                        magnitude: bool) -> list[RowHit]:
    """The unlabelled total row of the section headed ``section`` (the parser's "<section>
    (total)"): after the heading, the first run of numbers holding a part's row and then as
    many values again, the last of them the total's."""
    target = normalise_label(section)
    out = []
    for i, item in enumerate(items):
        if not target or normalise_label(item) != target:
            continue
        columns = _header_columns(items[:i]) or _trailing_header(items)
        if not columns:
            continue
        n = len(columns)
        run: list[float] = []
        for it in [*items[i + 1:], ""]:
            cells = [parse_value(tok) for tok in it.split()]
            if it and _years_of(it) is None and all(c is not None for c in cells):
                run.extend(c.value for c in cells)
                continue
            if len(run) >= 2 * n and len(run) % n == 0:
                totals = run[-n:]
                hits = [k for k, v in enumerate(totals) if abs(v - value) < 1e-9 or (
                    magnitude and abs(abs(v) - abs(value)) < 1e-9)]
                if hits:
                    out.append(RowHit(columns, hits, _statement_above(items[:i], text)))
                break
            if _years_of(it) is not None:
                break
            run = []
    return out


def period_position(text: str, label: str, value: float, year: int,
                    magnitude: bool = False) -> bool | None:
    """Does ``value`` sit in the ``year`` column of the row ``label``, reading the page text in
    order? None when the row or its header years cannot be found in the text."""
    rows = row_hits(text, label, value, magnitude)
    if not rows:
        return None
    return any(row.columns[k].year == year for row in rows for k in row.hits)


_TITLE_START = re.compile(r"\s*(?:[A-Z][\w.,&'-]*\s+){0,6}?(?:condensed\s+|consolidated\s+|"
                          r"combined\s+)*(?:statements?|balance|income|cash)", re.I)


def _statement_above(items: list[str], text: str) -> str:
    """The statement whose title stands nearest above a row (two statements can share a
    page), else one titled in the page's first lines; "table" when no title names one (a
    note that mentions "the balance sheet" in its prose is no balance sheet)."""
    for it in [*reversed(items), *page_items(text)[:PAGE_HEAD_LINES]]:
        # ("Reconciliation of net income to net cash provided by operating activities:")
        # (a substring test first: this runs for every line above every row the gate reads)
        if "econcil" in it and len(it) <= 120 and \
                CASH_RECONCILIATION.match(re.sub(r"\s+", "", it).lower()):
            return "cash_flow"
        # a title line: short, and naming the statement at its start ("Consolidated
        # Statements of Cash Flows (continued)"), not a sentence that mentions one nor a
        # section of a summary table ("Balance sheet data:")
        if len(it) <= 80 and _TITLE_START.match(it) and not it.rstrip().endswith(":"):
            kind = statement_kind(it)
            if kind not in ("table", "segment"):
                return kind
    return "table"


def _header_group(items: list[str]) -> tuple[int, list[int]]:
    """Where the nearest group of header lines above a row starts, and the indices of its
    year lines (a number line ends the search)."""
    start, year_items = len(items), []
    for k in range(len(items) - 1, -1, -1):
        it = items[k]
        if _years_of(it):
            year_items.insert(0, k)
            start = k
        elif year_items and _DATE_WORDS.sub(" ", it).strip():
            # the nearest group of header lines only (not a title's "years ended ..."); lines
            # of date words between the years ("November 27,") belong to the group
            break
        elif year_items:
            start = k
    return start, year_items


def _header_like(item: str) -> bool:
    """A title or header line, not prose ("... included in this Annual Report ...")."""
    return len(item) <= 80 and not item.rstrip().endswith(".")


def _trailing_header(items: list[str]) -> list[ColumnHeader]:
    """The header of a page whose text gives it last, after every row of numbers (the PDF
    drew its column heads after the table): its columns, or [] when none closes the page."""
    last = max((k for k, it in enumerate(items) if _is_number_item(it) and not _years_of(it)),
               default=-1)
    return _header_columns(items[last + 1:])


def _header_columns(items: list[str]) -> list[ColumnHeader]:
    """The columns of the nearest header group above a row: each year with the duration and
    end month its header lines state. Durations printed before all the years ("Three Months
    Ended | Six Months Ended | 2023 2022 2023 2022") take equal runs of years; a duration
    printed between them applies to the years that follow it. With none in the group, a
    duration in the page's title block ("Years Ended December 31") applies to every column."""
    start, year_items = _header_group(items)
    if not year_items:
        return []
    columns: list[ColumnHeader] = []
    durations: list[tuple[int, str]] = []
    month = None
    # the lines just above the group may state the durations ("Full Year" is no date word)
    # or the end month ("MAY 31," over "(Dollars in millions)")
    for k in range(max(0, start - 3), year_items[-1] + 1):
        it = items[k]
        if k < start and not _header_like(it):
            continue
        years = _years_of(it) if k >= start else None
        dur = duration_of(it)
        if dur and not years:
            durations.append((len(columns), dur))
        m = _MONTH.search(it)
        if years:
            for y in years:
                columns.append(ColumnHeader(y, durations[-1][1] if durations else None,
                                            m.group(1).capitalize() if m else month))
        elif m:
            month = m.group(1).capitalize()
    if len(durations) > 1 and all(at == 0 for at, _ in durations):
        run, rest = divmod(len(columns), len(durations))
        for n, col in enumerate(columns):
            col.duration = None if rest else durations[n // run][1]
    if not durations:
        title = duration_of(" ".join(it for it in items[:min(TITLE_LINES, start)]
                                     if _header_like(it)))
        for col in columns:
            col.duration = title
    return columns


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
