"""Statement tables from PDF pages: PyMuPDF words, grouped into lines and value columns.

Why words and not ``page.find_tables``: on these filings ``find_tables`` costs ~0.65 s a page
(~110 min for the corpus) and still needs the period headers resolved; word positions give the
rows, the right-aligned value columns and the header years in milliseconds a page.

How a page becomes facts:
1. words are grouped into visual lines by their vertical centre;
2. a line's *values* are the numeric tokens at its end (a "$" or a split-off ")" or "%" is
   merged; footnote marks and "n/m" cells among them are dropped), separated from the label by
   a gap or dot leaders; a wide gap inside the label starts another text cell of the row (a
   maturity date, a rate), which is not part of the label;
3. a *header* line holds years (1990-2040) in the value area, and change columns ("% Change",
   "2017 vs. 2016") that take a column's place but give no facts. Month words, full dates and
   duration phrases ("Three Months Ended", "Q4", "Full Year") on the header line or on caption
   lines above it give each column its duration and end date: a phrase holds the columns of its
   head cell; a date head beside it ("June 30, 2023") holds balance columns with no duration;
   a full date ("December 25, 2021") names its year's column; sentences above are ignored;
4. a table ends at a new header, at a line of running text across its columns (a footnote, the
   next paragraph) and at text heads over its columns after its rows (another table's heads);
   rows after it without a header of their own are skipped, never given borrowed periods;
5. each row's values are mapped to the header's columns: in order when the counts agree,
   otherwise by nearest horizontal position (a change head may stand over two cells);
6. a label that wraps over two or three lines is joined; a dash is zero; parentheses are
   negative; a page's last line holding one bare integer is its page number;
7. scale: a row's own "(in billions)", else its table's caption (above the header or right
   under it), else the nearest declaration above the table. Per-share amounts (by label, by an
   "... per share" section, and the cents items that follow "Diluted EPS"), ratios and
   percentages carry none; counts (stores, employees) carry only their own table's scale; a
   table of one-decimal figures framed by "%" rows (a tax rate reconciliation) is percentage
   points.

Malformed tables are skipped with a reason, never raised: no period header, more values than
header columns, text between values (tables side by side), or more than ``MAX_COLUMNS`` period
columns.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import pymupdf

from .numbers import PrintedValue, decimals_of, detect_scale, parse_value
from .table_headers import YEAR, Column, end_date, header_cells
from .table_headers import columns as header_columns
from .table_lines import (
    CONNECTOR,
    LABEL_GAP,
    MARKER,
    Line,
    Word,
    continues,
    page_lines,
    running_text,
    split_values,
)

PCT_NONE = PrintedValue(0.0, False, "")
MAX_COLUMNS = 8          # wider "tables" are almost always two tables side by side
MIN_VALUE_ROWS = 2       # a page needs this many value rows to be read as a table page

# a direct-method filer prints the reconciliation of profit to operating cash that ASC 230
# requires as a schedule of its own, under this title (whitespace removed, lower case)
CASH_RECONCILIATION = re.compile(r"reconciliationofnet[a-z()/]{0,30}?tonetcash[a-z()/]{0,40}?"
                                 r"operatingactivities")
# matched against the page head with all whitespace removed: PyMuPDF splits spaced-out titles
# into fragments ("Consolidated Balance Shee t")
_STATEMENTS = [
    ("cash_flow", re.compile(r"statements?of(consolidated)?cashflows?|cashflows?statements?|"
                             + CASH_RECONCILIATION.pattern)),
    ("balance_sheet", re.compile(r"balancesheets?|statements?of(consolidated)?financial"
                                 r"(position|condition)")),
    ("income", re.compile(r"statements?of(consolidated)?(comprehensive)?(income|operations|"
                          r"earnings)|incomestatements?")),
    ("equity", re.compile(r"statements?of(changesin)?(shareholders|stockholders|shareowners|"
                          r"equity)")),
    ("segment", re.compile(r"segment")),
]


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
    period_end: str | None   # the month of the column's end ("Dec"), as printed
    end_date: str | None     # "2022-12-31" when the header prints month and day
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


TOTAL_SUFFIX = " (total)"   # the label of a section's unlabelled total row: "<section> (total)"


def statement_kind(text: str) -> str:
    head = re.sub(r"\s+", "", text[:800]).lower()
    for kind, pattern in _STATEMENTS:
        if pattern.search(head):
            return kind
    return "table"


# rows whose values are no money amount even under an "(in millions)" caption: per-share
# amounts and ratios ("except per share data and financial ratios")
_PER_SHARE = re.compile(r"per\s+(?:common\s+|diluted\s+|basic\s+)?share|\beps\b", re.I)
_NOT_MONEY = re.compile(_PER_SHARE.pattern + r"|\bratios?\b|\bturns\b|\bturnover\b", re.I)
# a row that counts things: no money scale unless its own table or label prints one
_COUNT = re.compile(r"\b(?:stores|employees|customers|accounts|locations|restaurants|"
                    r"warehouses|clubs|members|subscribers|headcount|number\s+of)\b", re.I)
# a row of percentages or percentage points, printed without "%" on its cells
_PERCENT_LABEL = re.compile(r"^%|\bpercent(?:age)?s?\b|%\s+of\b", re.I)


def _year_label(line: Line, left_margin: float) -> None:
    """A year printed as a row label at the left margin ("2021   650" in a maturity
    schedule) is the label, not a value: header years never sit where labels start."""
    if line.label or len(line.values) < 2:
        return
    first, second = line.values[0], line.values[1]
    if YEAR.match(first.text) and first.x0 <= left_margin + 20 and \
            second.x0 - first.x1 > 6 * LABEL_GAP:
        line.label, line.values = first.text, line.values[1:]


def _page_number(line: Line, is_last: bool) -> bool:
    """The page's last line holding one bare integer and no label: a page number."""
    return is_last and not line.label and len(line.values) == 1 and \
        re.fullmatch(r"\d{1,4}", line.values[0].text) is not None


def _is_prose(line: Line, columns: list[Column]) -> bool:
    """A long line of running text across the value columns (a footnote, the next paragraph)
    ends the table above it: its header must not be borrowed by a table further down."""
    # from the label column across the values (a page's other text column is no part of it)
    ws = line.words
    return running_text(line) and ws[0].x0 < min(c.x for c in columns) and \
        ws[-1].x1 > max(c.x for c in columns)


def _column_heads(line: Line, columns: list[Column]) -> bool:
    """Text cells over the value columns ("Pension Benefits  Other Benefits", "Amount"),
    standing apart from any label: after value rows, the heads of another table."""
    if any(parse_value(w.text) is not None for w in line.words):
        return False  # a row whose values did not parse
    left, right = min(c.x for c in columns) - 30, max(c.x for c in columns) + 30
    for k, w in enumerate(line.words):
        apart = w.x0 >= left if k == 0 else w.x0 - line.words[k - 1].x1 > 2 * LABEL_GAP
        # over the columns: a text cell beside them (a line item's location, a page's
        # other text column) is no head
        if apart and left <= w.xc <= right \
                and re.search(r"[A-Za-z]{2}", w.text) and not MARKER.match(w.text):
            return True
    return False


def _sums_rows(line: Line, rows: list[list[PrintedValue | None]]) -> bool:
    """Whether ``line``'s values are, column by column, the sums of two or more ``rows`` of as
    many values, within the rounding of the printed parts."""
    total = [parse_value(w.text) for w in line.values]
    if len(rows) < 2 or not total or any(v is None or v.percent for v in total) or \
            any(len(r) != len(total) or any(v is None or v.percent for v in r) for r in rows):
        return False
    if all(v.value == 0 for v in total):
        return False
    for j, t in enumerate(total):
        unit = 10.0 ** -max(decimals_of(r[j].text) for r in rows)
        if abs(sum(r[j].value for r in rows) - t.value) > unit * len(rows) / 2 + 1e-9:
            return False
    return True


def _percent_table(rows: list[list[Fact]]) -> bool:
    """A table of percentage points (an effective tax rate reconciliation): a row printed with
    "%" frames rows of one-decimal figures under 100, and no cell is a money amount."""
    pct = [r for r in rows if all(f.percent for f in r)]
    other = [f for r in rows for f in r if not f.percent]
    return bool(pct) and bool(other) and all(
        f.value == 0 or (decimals_of(f.printed) == 1 and abs(f.value) < 100) for f in other)


def page_tables(doc: str, page: int, raw_words: list[tuple], text: str) -> PageTables:
    """Facts of every table on one page (``raw_words`` from ``page.get_text("words")``)."""
    words = [Word(float(w[0]), float(w[1]), float(w[2]), float(w[3]), str(w[4]))
             for w in raw_words if str(w[4]).strip()]
    lines = page_lines(words)
    for ln in lines:
        split_values(ln)
    if words:
        left_margin = min(w.x0 for w in words)
        for ln in lines:
            _year_label(ln, left_margin)
    value_lines = [ln for ln in lines if ln.values]
    skipped: Counter = Counter()
    kind = statement_kind(text)
    if len(value_lines) < MIN_VALUE_ROWS:
        return PageTables([], skipped, 0, kind)
    value_left = min(w.x0 for ln in value_lines for w in ln.values) - 5
    facts: list[Fact] = []
    columns: list[Column] | None = None
    n_tables = 0
    section = ""
    open_section, parts = "", 0
    block_rows: list[list[PrintedValue | None]] = []   # the labelled rows since the section
    section_line: Line | None = None   # the text line that named the section
    amount_x: list[float] = []
    previous: Line | None = None
    table_kind = kind
    table_start = 0          # first line after the previous table's header
    after_rows = 0           # first line after the previous table's last value row
    table_scale: str | None = None
    own_caption: str | None = None   # the scale this table's own caption prints
    rows_in_table = 0
    per_share_run = False    # inside an EPS block: "Diluted EPS" and its reconciling items
    text_run: list[Line] = []    # the text-only lines since the last value row
    rows_of: dict[int, list[list[Fact]]] = {}
    captioned: set[int] = set()    # tables with a scale caption of their own
    for i, ln in enumerate(lines):
        years = None if running_text(ln) else header_cells(
            ln, value_left, in_table=columns is not None and rows_in_table > 0)
        if years is not None and not ln.label.strip(" ,") or (
                years is not None and len(years) >= 2):
            # a title between the previous table and this header names this table's statement
            titled = statement_kind(" ".join(x.text for x in lines[table_start:i]
                                             if not x.values))
            table_kind = titled if titled != "table" else (kind if n_tables == 0 else "table")
            table_start = i + 1
            # a scale caption between the previous table and this header is this table's
            caption = detect_scale(" ".join(x.text for x in lines[after_rows:i + 1]))
            # else the nearest declaration above it; one printed below heads another table
            inherited = next(
                (sc for x in reversed(lines[:after_rows]) if (sc := detect_scale(x.text))), None)
            table_scale = caption or inherited
            cols = header_columns(ln, years, lines[max(0, i - 4):i])
            if sum(not c.change for c in cols) > MAX_COLUMNS:
                skipped["more than 8 header columns (tables side by side?)"] += 1
                columns = None
            else:
                columns = cols
                n_tables += 1
                if caption:
                    captioned.add(n_tables - 1)
            own_caption = caption
            previous = ln
            section, open_section, amount_x, block_rows = "", "", [], []
            section_line = None
            rows_in_table, per_share_run, text_run = 0, False, []
            continue
        if not ln.values:
            if columns is not None and (_is_prose(ln, columns) or
                                        rows_in_table and _column_heads(ln, columns)):
                # a paragraph, or the column heads of a table with no period header
                columns = None
            if columns is not None and not rows_in_table and detect_scale(ln.text):
                # "(In millions except per share data)" printed under the years
                table_scale = detect_scale(ln.text)
                captioned.add(n_tables - 1)
                own_caption = table_scale
            # "Amount | Percent to Sales" column heads under the years
            amounts = [w.xc for w in ln.words if w.x1 >= value_left and
                       w.text.lower().strip(":") in ("amount", "amounts")]
            if amounts:
                amount_x = amounts
            text_run.append(ln)
            if ln.label and not detect_scale(ln.text):  # a scale caption is no section
                wrapped = previous is not None and not previous.values and \
                    previous.label and CONNECTOR.search(previous.label)
                # "Earnings per common share attributable to" / "Corning Incorporated"
                section = (f"{section} {ln.label}" if wrapped else ln.label)[:120]
                # "Inventories:" over its parts: an unlabelled row after the parts is its total
                open_section = ln.label if ln.text.rstrip().endswith(":") else ""
                parts, block_rows, section_line = 0, [], ln
            previous = ln
            continue
        after_rows = i + 1
        rows_in_table += 1
        if _page_number(ln, i == len(lines) - 1):
            skipped["page number"] += 1
            continue
        label = ln.label
        if not label and open_section and parts and previous is not None and \
                len(previous.values) == len(ln.values) >= 2:
            # as many values as the part right above it: no page number or stray figure
            label = f"{open_section}{TOTAL_SUFFIX}"
            open_section, section_line, block_rows = "", None, []
        elif not label and section_line is not None and \
                section.count("(") == section.count(")") and _sums_rows(ln, block_rows):
            # "Revenues" over its parts and an unlabelled row adding them up: the section's
            # total, known by the sum itself since no colon marks the section open (an open
            # parenthesis: the "section" is a label wrapped onto the row below, no heading)
            label = f"{section}{TOTAL_SUFFIX}"
            section_line, block_rows = None, []     # the section is closed
        elif label and section_line is not None:
            block_rows.append([parse_value(w.text) for w in ln.values])
        parts += 1
        if previous is not None and continues(previous, ln, label):
            label = (previous.label + " " + label).strip()
            if previous is section_line:
                # the "section" was the first line of this row's wrapped label: no section
                section_line, block_rows = None, []
            # a label wrapped over three lines ("Total long-term" / "unsecured funding -" /
            # "issuance  13,538"): walk up while each line continues the one above it
            k = len(text_run) - 1
            while k > 0 and text_run[k] is previous and continues(
                    text_run[k - 1], text_run[k], text_run[k].label) and \
                    text_run[k].y - text_run[k - 1].y <= 2.2 * (
                        text_run[k].words[0].y1 - text_run[k].words[0].y0):
                label = f"{text_run[k - 1].label} {label}"
                previous, k = text_run[k - 1], k - 1
        text_run = []
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
        if len(values) > len(columns) and \
                len(amount_x) == sum(not c.change for c in columns):
            # percent cells printed without "%" beside each amount: keep the amount columns
            # (a change column beside them, "Percent Increase (Decrease)", gives no fact)
            near = [min(values, key=lambda w: abs(w.xc - x)) for x in amount_x]
            if len({id(w) for w in near}) == len(near) and \
                    all(abs(w.xc - x) < 40 for w, x in zip(near, amount_x, strict=True)):
                values = near
        changes = any(c.change for c in columns)
        if len(values) > len(columns) and not changes:
            skipped["more values than header columns"] += 1
            continue
        if not label:
            skipped["value row without a label"] += 1
            continue
        if len(values) == len(columns):
            mapped = list(zip(values, range(len(columns)), strict=True))
        else:
            # by position; a change head ("Increase/(Decrease)") may stand over two cells,
            # an amount and a percent, while a period column holds one value
            mapped = [(w, min(range(len(columns)), key=lambda j: abs(columns[j].x - w.x1)))
                      for w in values]
            taken = [j for _, j in mapped if not columns[j].change]
            if len(set(taken)) != len(taken):
                skipped["values do not align with header columns"] += 1
                continue
        # "Earnings per share:" over "Basic" / "Diluted"; share counts stay counts
        shares = re.search(r"\bshares\b", label, re.I) is not None
        cells = [pv for w, _ in mapped if (pv := parse_value(w.text)) is not None]
        # per-share amounts print cents: a row of dashes is no evidence either way
        cents = any(pv.value != 0 for pv in cells) and all(
            pv.value == 0 or (decimals_of(pv.text) == 2 and abs(pv.value) < 100) for pv in cells)
        per_share = not shares and (bool(_NOT_MONEY.search(label)) or
                                    (bool(_PER_SHARE.search(section)) and cents))
        # the items under "Diluted EPS" in a reconciliation are per-share amounts too
        per_share_run = (per_share or per_share_run) and cents
        not_money = per_share or per_share_run
        percent_row = bool(_PERCENT_LABEL.search(label))
        # "Servicer advances (in billions)": a row's own scale overrides the table's; a count
        # (stores, employees) takes only a scale printed for its own table
        scale = detect_scale(label) or (own_caption if _COUNT.search(label) else table_scale)
        periods = [c for c in columns if not c.change]
        row: list[Fact] = []
        for w, j in mapped:
            pv = parse_value(w.text)
            col = columns[j]
            if pv is None or col.change:
                continue
            row.append(Fact(
                doc=doc, page=page, table=n_tables - 1, statement=table_kind, section=section,
                label=label, year=col.year, duration=col.duration, period_end=col.month,
                end_date=end_date(col),
                column=periods.index(col), n_columns=len(periods), value=pv.value,
                printed=w.text, percent=pv.percent or percent_row,
                scale=None if (pv.percent or not_money or percent_row) else scale))
        if row:
            facts.extend(row)
            rows_of.setdefault(n_tables - 1, []).append(row)
    for t, rows in rows_of.items():
        if t not in captioned and _percent_table(rows):
            for r in rows:
                for f in r:
                    f.percent, f.scale = True, None
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


class DocFactsTask:
    """A compute task (``fingap.core.compute``): (PDF file name, document, its page texts) ->
    ``doc_facts`` of each, the PDFs read from ``corpus_dir``."""

    def __init__(self, corpus_dir: str):
        self.corpus_dir = Path(corpus_dir)

    def __call__(self, items: list[tuple[str, str, dict[int, str]]]) -> list[tuple]:
        return [doc_facts(self.corpus_dir / name, doc, texts) for name, doc, texts in items]

