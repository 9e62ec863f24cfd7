"""Statement tables from PDF pages: PyMuPDF words, grouped into lines and value columns.

Why words and not ``page.find_tables``: on these filings ``find_tables`` costs ~0.65 s a page
(~110 min for the corpus) and still needs the period headers resolved; word positions give the
rows, the right-aligned value columns and the header years in milliseconds a page.

How a page becomes facts:
1. words are grouped into visual lines by their vertical centre;
2. a line's *values* are the numeric tokens at its end (a "$" or a split-off ")" or "%" is
   merged), separated from the label by a gap; the rest of the line is the row label;
3. a *header* line holds only years (1990-2040) in the value area; month words ("December
   31,") and duration phrases ("Three Months Ended") in the lines just above it are attached to
   the nearest year by horizontal position. A new header starts a new table, so two
   statements stacked on one page each get their own periods;
4. each row's values are mapped to the header's columns: in order when the counts agree,
   otherwise by nearest horizontal position, so columns printed oldest-first resolve right;
5. a label that wraps ("Purchases of property, plant and" / "equipment  (1,577)") is joined
   when the value line's label starts in lower case; a dash is zero; parentheses are negative.

Malformed tables are skipped with a reason, never raised: no period header, more values than
header columns, text between values (tables side by side), or more than ``MAX_COLUMNS`` columns.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pymupdf

from .numbers import DASHES, PrintedValue, detect_scale, parse_value

PCT_NONE = PrintedValue(0.0, False, "")
MAX_COLUMNS = 8          # wider "tables" are almost always two tables side by side
LABEL_GAP = 12.0         # points between a label's last word and the first value
LINE_TOLERANCE = 3.0     # points of vertical-centre difference within one visual line
MIN_VALUE_ROWS = 2       # a page needs this many value rows to be read as a table page

_YEAR = re.compile(r"^(?:FY|Fiscal)?'?((?:19|20)\d{2})[,.:]?(?:\(\w\))?$", re.I)
_DATE = re.compile(r"^(\d{1,2})/\d{1,2}/((?:19|20)?\d{2})[,.]?$")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH = re.compile(r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?$", re.I)
_DURATION = [
    # retailers and bottlers report 12-, 13- or 16-week quarters: all count as a quarter
    (re.compile(r"\bthree\s+months|\b3\s+months|\bquarter\b|\b(?:12|13|16|17|twelve|"
                r"thirteen|sixteen)\s+weeks", re.I), "3M"),
    (re.compile(r"\bsix\s+months|\b6\s+months|\b(?:24|26|28)\s+weeks|twenty[- ]six\s+weeks"
                r"|\bfirst\s+half", re.I), "6M"),
    (re.compile(r"\bnine\s+months|\b9\s+months|\b(?:36|39|40)\s+weeks|thirty[- ]nine\s+weeks",
                re.I), "9M"),
    (re.compile(r"\btwelve\s+months|\byears?\s+ended|\bfiscal\s+years?|\bfull\s+year"
                r"|\b(?:52|53)\s+weeks", re.I), "12M"),
]
# matched against the page head with all whitespace removed: PyMuPDF splits spaced-out titles
# into fragments ("Consolidated Balance Shee t")
_STATEMENTS = [
    ("cash_flow", re.compile(r"statements?of(consolidated)?cashflows?|cashflows?statements?")),
    ("balance_sheet", re.compile(r"balancesheets?|statements?of(consolidated)?financial"
                                 r"(position|condition)")),
    ("income", re.compile(r"statements?of(consolidated)?(comprehensive)?(income|operations|"
                          r"earnings)|incomestatements?")),
    ("equity", re.compile(r"statements?of(changesin)?(shareholders|stockholders|shareowners|"
                          r"equity)")),
    ("segment", re.compile(r"segment")),
]


@dataclass
class Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def xc(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass
class Line:
    words: list[Word]
    label: str = ""
    values: list[Word] = field(default_factory=list)
    text_between_values: bool = False

    @property
    def y(self) -> float:
        return self.words[0].yc

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Column:
    x: float                 # horizontal centre of the header year
    year: int
    month: str | None = None
    duration: str | None = None


@dataclass
class Fact:
    doc: str
    page: int
    table: int               # index of the table (header) on its page
    statement: str
    section: str
    label: str
    year: int
    duration: str | None
    period_end: str | None
    column: int
    n_columns: int
    value: float
    printed: str
    percent: bool
    scale: str | None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class PageTables:
    facts: list[Fact]
    skipped: Counter           # reason -> count of rows or tables skipped
    n_tables: int
    statement: str


def _lines(words: list[Word]) -> list[Line]:
    words = sorted(words, key=lambda w: (w.yc, w.x0))
    lines: list[list[Word]] = []
    for w in words:
        if lines and abs(lines[-1][0].yc - w.yc) <= LINE_TOLERANCE:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [Line(sorted(ws, key=lambda w: w.x0)) for ws in lines]


def _merge_split_tokens(words: list[Word]) -> list[Word]:
    """Join "$" + "1,234", "(370" + ")", "12.5" + "%" that PyMuPDF returns as separate words."""
    out: list[Word] = []
    for w in words:
        if out and w.text in {")", "%", ")%", "%)"} and w.x0 - out[-1].x1 < 3:
            p = out[-1]
            out[-1] = Word(p.x0, p.y0, w.x1, w.y1, p.text + w.text)
        elif out and out[-1].text in {"$", "($", "(", "$("} and w.x0 - out[-1].x1 < 25 and \
                parse_value(w.text) is not None:
            p = out[-1]
            prefix = "(" if "(" in p.text else ""
            out[-1] = Word(p.x0, p.y0, w.x1, w.y1, prefix + w.text)
        else:
            out.append(w)
    return out


def _split_values(line: Line) -> None:
    """Fill ``line.label`` / ``line.values``: the numeric tokens at the end of the line."""
    words = [w for w in _merge_split_tokens(line.words) if w.text != "$"]
    i = len(words)
    while i > 0 and parse_value(words[i - 1].text) is not None:
        i -= 1
    # values must stand apart from the label: "December 31, 2018" keeps its year
    while i < len(words) and i > 0 and words[i].x0 - words[i - 1].x1 < LABEL_GAP:
        i += 1
    line.values = words[i:]
    label_words = words[:i]
    # a numeric token followed by text inside the value area means two tables side by side
    line.text_between_values = False
    if label_words and line.values:
        first_value = line.values[0].x0
        tail = [w for w in label_words if parse_value(w.text) is not None]
        line.text_between_values = bool(tail) and any(
            w.x0 > tail[0].x1 + LABEL_GAP * 3 for w in label_words
            if parse_value(w.text) is None and w.x0 > tail[0].x0) and tail[0].x0 > first_value / 2
    line.label = " ".join(w.text for w in label_words).strip(" .:\u2026")


def _year_tokens(line: Line, value_left: float) -> list[tuple[Word, int]] | None:
    """The header years of a line, or None if the line is not a header line."""
    years = []
    for w in line.words:
        if w.x1 < value_left:
            continue
        m = _YEAR.match(w.text)
        d = _DATE.match(w.text)
        if m:
            years.append((w, int(m.group(1))))
        elif d:
            y = int(d.group(2))
            years.append((w, y if y > 99 else 2000 + y))
        elif parse_value(w.text) is not None and w.text not in DASHES:
            return None  # another number in the value area: a data row
    if not years or not all(1990 <= y <= 2040 for _, y in years):
        return None
    # "$ 2019" in the value area is a data row; a "($ million)" caption left of the years is not
    if any("$" in w.text for w in line.words if w.x1 >= value_left):
        return None
    return years


def _span_distance(x: float, span: tuple[float, float]) -> float:
    return 0.0 if span[0] <= x <= span[1] else min(abs(x - span[0]), abs(x - span[1]))


def _columns(header: Line, years: list[tuple[Word, int]], above: list[Line]) -> list[Column]:
    cols = [Column(w.xc, y) for w, y in years]
    for c, (w, _) in zip(cols, years, strict=True):
        d = _DATE.match(w.text)
        if d and 1 <= int(d.group(1)) <= 12:
            c.month = _MONTHS[int(d.group(1)) - 1]
    # durations: the lowest line that names them, the header line itself first ("Three Months
    # Ended June 30, 2023  Three Months ..."), then the lines above it. A phrase spans its
    # words up to the next phrase ("Three Months Ended June 30," over two year columns), and a
    # column takes the phrase whose span holds it, else the nearest span
    groups: list[int] = []
    for ln in [header, *reversed(above[-4:])]:
        text = ln.text
        starts = []
        for pattern, dur in _DURATION:
            for m in pattern.finditer(text):
                starts.append((len(text[:m.start()].split()), dur))
        if not starts:
            continue
        starts.sort()
        spans = []
        for i, (start, dur) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(ln.words)
            ws = ln.words[start:end] or ln.words
            spans.append(((ws[0].x0, ws[-1].x1), dur))
        for c in cols:
            g = min(range(len(spans)), key=lambda j: _span_distance(c.x, spans[j][0]))
            c.duration = spans[g][1]
            groups.append(g)
        break
    # months: "December 31," / "June 30," printed above or beside each year; one month over a
    # group of columns ("Three Months Ended June 30," then "2023 2022") holds for the group
    for ln in [header, *above[-2:]]:
        for w in ln.words:
            if _MONTH.match(w.text):
                nearest = min(cols, key=lambda c: abs(c.x - w.xc))
                if nearest.month is None:
                    nearest.month = w.text.rstrip(".")[:3].capitalize()
    if groups:
        for c, g in zip(cols, groups, strict=True):
            if c.month is None:
                c.month = next((o.month for o, h in zip(cols, groups, strict=True)
                                if h == g and o.month), None)
    return cols


_CONNECTOR = re.compile(r"(?:\b(?:of|and|to|for|the|in|from|by|on|or|less|net|including|"
                        r"attributable|excluding|with)|[,\u2014\u2013-])$", re.I)


def _continues(previous: Line, line: Line, label: str) -> bool:
    """Is ``line``'s label the second half of a label wrapped from the text-only line above?
    Yes when the value line's label starts in lower case ("equipment (PP&E)"), or when the
    line above ends on a connecting word ("... SHAREOWNERS OF" / "THE COCA-COLA COMPANY") and
    sits right above it, at the same or a smaller indent."""
    if previous.values or not previous.label:
        return False
    if not label or label[:1].islower():
        return True
    close = line.y - previous.y <= 2.2 * (line.words[0].y1 - line.words[0].y0)
    return close and bool(_CONNECTOR.search(previous.label)) and \
        previous.words[0].x0 <= line.words[0].x0 + 2


def statement_kind(text: str) -> str:
    head = re.sub(r"\s+", "", text[:800]).lower()
    for kind, pattern in _STATEMENTS:
        if pattern.search(head):
            return kind
    return "table"


def _is_per_share(label: str) -> bool:
    return bool(re.search(r"per\s+(common\s+|diluted\s+|basic\s+)?share|\beps\b", label, re.I))


def page_tables(doc: str, page: int, raw_words: list[tuple], text: str) -> PageTables:
    """Facts of every table on one page (``raw_words`` from ``page.get_text("words")``)."""
    words = [Word(float(w[0]), float(w[1]), float(w[2]), float(w[3]), str(w[4]))
             for w in raw_words if str(w[4]).strip()]
    lines = _lines(words)
    for ln in lines:
        _split_values(ln)
    value_lines = [ln for ln in lines if ln.values]
    skipped: Counter = Counter()
    kind = statement_kind(text)
    if len(value_lines) < MIN_VALUE_ROWS:
        return PageTables([], skipped, 0, kind)
    value_left = min(w.x0 for ln in value_lines for w in ln.values) - 5
    scale = detect_scale(text)
    facts: list[Fact] = []
    columns: list[Column] | None = None
    n_tables = 0
    section = ""
    open_section, parts = "", 0
    amount_x: list[float] = []
    previous: Line | None = None
    table_kind = kind
    table_start = 0          # first line after the previous table's header
    for i, ln in enumerate(lines):
        years = _year_tokens(ln, value_left)
        if years is not None and not ln.label.strip(" ,") or (
                years is not None and len(years) >= 2):
            # a title between the previous table and this header names this table's statement
            titled = statement_kind(" ".join(x.text for x in lines[table_start:i]
                                             if not x.values))
            table_kind = titled if titled != "table" else (kind if n_tables == 0 else "table")
            table_start = i + 1
            cols = _columns(ln, years, lines[max(0, i - 4):i])
            if len(cols) > MAX_COLUMNS:
                skipped["more than 8 header columns (tables side by side?)"] += 1
                columns = None
            else:
                columns = cols
                n_tables += 1
            previous = ln
            section, open_section, amount_x = "", "", []
            continue
        if not ln.values:
            # "Amount | Percent to Sales" column heads under the years
            amounts = [w.xc for w in ln.words if w.x1 >= value_left and
                       w.text.lower().strip(":") in ("amount", "amounts")]
            if amounts:
                amount_x = amounts
            if ln.label:
                section = ln.label[:80]
                # "Inventories:" over its parts: an unlabelled row after the parts is its total
                open_section = ln.label if ln.text.rstrip().endswith(":") else ""
                parts = 0
            previous = ln
            continue
        label = ln.label
        if not label and open_section and parts and previous is not None and \
                len(previous.values) == len(ln.values) >= 2:
            # as many values as the part right above it: no page number or stray figure
            label = f"{open_section} (total)"
            open_section = ""
        parts += 1
        if previous is not None and _continues(previous, ln, label):
            label = (previous.label + " " + label).strip()
        previous = ln
        if columns is None:
            skipped["value row without a period header"] += 1
            continue
        if ln.text_between_values:
            skipped["text between values (tables side by side)"] += 1
            continue
        values = ln.values
        if len(values) > len(columns):
            # "Amount | % of sales" layouts: the percent cells are no period column
            values = [w for w in values if not (parse_value(w.text) or PCT_NONE).percent]
        if len(values) > len(columns) and len(amount_x) == len(columns):
            # percent cells printed without "%" beside each amount: keep the amount columns
            near = [min(values, key=lambda w: abs(w.xc - x)) for x in amount_x]
            if len({id(w) for w in near}) == len(near) and \
                    all(abs(w.xc - x) < 40 for w, x in zip(near, amount_x, strict=True)):
                values = near
        if len(values) > len(columns):
            skipped["more values than header columns"] += 1
            continue
        if not label:
            skipped["value row without a label"] += 1
            continue
        if len(values) == len(columns):
            mapped = list(zip(values, range(len(columns)), strict=True))
        else:
            mapped = [(w, min(range(len(columns)), key=lambda j: abs(columns[j].x - w.x1)))
                      for w in values]
            if len({j for _, j in mapped}) != len(mapped):
                skipped["values do not align with header columns"] += 1
                continue
        per_share = _is_per_share(label)
        for w, j in mapped:
            pv = parse_value(w.text)
            if pv is None:
                continue
            col = columns[j]
            facts.append(Fact(
                doc=doc, page=page, table=n_tables - 1, statement=table_kind, section=section,
                label=label, year=col.year, duration=col.duration, period_end=col.month,
                column=j, n_columns=len(columns), value=pv.value, printed=w.text,
                percent=pv.percent, scale=None if (pv.percent or per_share) else scale))
    return PageTables(facts, skipped, n_tables, kind)


STATEMENT_KINDS = ("income", "balance_sheet", "cash_flow")
_DOC_YEAR = re.compile(r"_(\d{4})(?:Q[1-4])?_")


def doc_year(doc: str) -> int | None:
    """The fiscal year in a FinanceBench document name: 3M_2018_10K -> 2018."""
    m = _DOC_YEAR.search(doc + "_")
    return int(m.group(1)) if m else None


def fiscal_year_offset(doc: str, header_years: Iterable[int]) -> int:
    """Fiscal year minus header year for a document: 0 for most filings, 1 when the fiscal year
    is named after the calendar year it ends in but the header prints the period-end year of
    the year before (a 10-Q of fiscal 2024 whose quarter ended July 2023). Taken from the
    document name's year and the latest header year of its statements; anything but 0 or 1
    falls back to 0."""
    year = doc_year(doc)
    years = list(header_years)
    if year is None or not years:
        return 0
    offset = year - max(years)
    return offset if offset in (0, 1) else 0


def doc_facts(pdf: Path, doc: str, texts: dict[int, str]) -> tuple[list[dict], Counter, dict]:
    """Facts of one PDF, with fiscal years resolved; a broken PDF gives no facts and a reason."""
    facts: list[dict] = []
    skipped: Counter = Counter()
    info = {"pages_with_tables": 0, "statements": Counter(), "error": None}
    try:
        with pymupdf.open(pdf) as d:
            for i, page in enumerate(d):
                text = texts.get(i)
                if text is None:
                    continue  # page failed in extract; already reported there
                pt = page_tables(doc, i, page.get_text("words"), text)
                skipped.update({(i, r): n for r, n in pt.skipped.items()})
                if pt.facts:
                    info["pages_with_tables"] += 1
                    info["statements"][pt.statement] += 1
                    facts.extend(f.to_dict() for f in pt.facts)
    except Exception as e:  # a PDF that extract could read but PyMuPDF now cannot
        info["error"] = f"cannot read words: {e}"
        return [], skipped, info
    headers = [f["year"] for f in facts if f["statement"] in STATEMENT_KINDS] or \
        [f["year"] for f in facts]
    offset = fiscal_year_offset(doc, headers)
    for f in facts:
        f["fiscal_year"] = f["year"] + offset
    info["fiscal_year_offset"] = offset
    return facts, skipped, info
