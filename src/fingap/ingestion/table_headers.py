"""Table headers: the period columns a header line and the caption lines above it describe
(years, change columns, durations, end dates), for ``fingap.ingestion.statement_tables``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .numbers import DASHES, parse_value
from .table_lines import LABEL_GAP, Line, Word, line_cells, running_text

YEAR = re.compile(r"^(?:FY|Fiscal)?'?((?:19|20)\d{2})[,.:]?(?:\(\w\))?$", re.I)
_DATE = re.compile(r"^(\d{1,2})/\d{1,2}/((?:19|20)?\d{2})[,.]?$")
# column heads of a change column: "% Change", "Percent Change", "2017 vs. 2016"
_CHANGE_WORD = re.compile(r"^(?:%|percent|change|chg\.?|vs\.?|versus|variance|increase|"
                          r"\(?decrease\)?|inc\.?/\(?dec\.?\)?)$", re.I)
_VERSUS = re.compile(r"^(?:vs\.?|versus|to|compared)$", re.I)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAY = re.compile(r"^(\d{1,2}),?$")
_FULL_DATE = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
                        r"(\d{1,2}),?\s+((?:19|20)\d{2})\b", re.I)
_PERIOD_WORDS = re.compile(r"\b(?:ended|ending|as\s+of|at)\b", re.I)
# a month's name or its abbreviation, never a word that starts like one ("Marketable")
_MONTH = re.compile(r"^(?:january|february|march|april|may|june|july|august|september|october|"
                    r"november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?,?$",
                    re.I)
_DURATION = [
    # retailers and bottlers report 12-, 13- or 16-week quarters: all count as a quarter
    (re.compile(r"\bthree\s+months|\b3\s+months|\bquarter\b|\bQ[1-4]\b|\b(?:12|13|16|17|twelve|"
                r"thirteen|sixteen)\s+weeks", re.I), "3M"),
    (re.compile(r"\bsix\s+months|\b6\s+months|\b(?:24|26|28)\s+weeks|twenty[- ]six\s+weeks"
                r"|\bfirst\s+half", re.I), "6M"),
    (re.compile(r"\bnine\s+months|\b9\s+months|\b(?:36|39|40)\s+weeks|thirty[- ]nine\s+weeks",
                re.I), "9M"),
    (re.compile(r"\btwelve\s+months|\byears?\s+ended|\bfiscal\s+years?|\bfull\s+year"
                r"|\b(?:52|53)\s+weeks", re.I), "12M"),
]

@dataclass
class Column:
    x: float                 # horizontal centre of the header year
    year: int
    month: str | None = None
    day: int | None = None   # "December 31," -> 31: with month and year, the period's end
    end_year: int | None = None  # a full date's own year ("January 1, 2023" over fiscal 2022)
    duration: str | None = None
    change: bool = False     # a change column ("% Change", "2017 vs. 2016"): no period value


# a run of this many words, started left of the values, is a label's text
LABEL_RUN_WORDS = 5


def header_cells(line: Line, value_left: float, in_table: bool = False
                 ) -> list[tuple[Word, int | None]] | None:
    """The header cells of a line, or None if the line is not a header line: each a word and
    its year, or None for a change column ("% Change", "2017 vs. 2016", whose years are the
    compared periods, not a column's own). ``in_table``: the line sits among a table's rows,
    where years inside a label's own words ("net of refunds of $24, $30 and $22 in 2020,
    2019"), in a run of text that starts left of the values and reaches into their area, are
    part of that label, not the header of a new table."""
    in_label = {id(line.words[k]) for a, b in line_cells(line.words)
                if in_table and b - a >= LABEL_RUN_WORDS and line.words[a].x0 < value_left
                for k in range(a, b)}
    area = [w for w in line.words if w.x1 >= value_left and id(w) not in in_label]
    cells: list[tuple[Word, int | None]] = []
    k = 0
    while k < len(area):
        w = area[k]
        m = YEAR.match(w.text)
        d = _DATE.match(w.text)
        year = int(m.group(1)) if m else None
        if d:
            y = int(d.group(2))
            year = y if y > 99 else 2000 + y
        if year is not None and k + 2 < len(area) and _VERSUS.match(area[k + 1].text) and \
                YEAR.match(area[k + 2].text):
            last = area[k + 2]
            cells.append((Word(w.x0, w.y0, last.x1, last.y1, f"{w.text} vs {last.text}"), None))
            k += 3
            continue
        if year is not None:
            cells.append((w, year))
        elif _CHANGE_WORD.match(w.text):
            # "% Change" is one column: join change words printed side by side
            if cells and cells[-1][1] is None and w.x0 - cells[-1][0].x1 < LABEL_GAP:
                p = cells[-1][0]
                cells[-1] = (Word(p.x0, p.y0, w.x1, w.y1, p.text + " " + w.text), None)
            else:
                cells.append((w, None))
        elif parse_value(w.text) is not None and w.text not in DASHES:
            return None  # another number in the value area: a data row
        k += 1
    years = [y for _, y in cells if y is not None]
    if not years or not all(1990 <= y <= 2040 for y in years):
        return None
    # "$ 2019" in the value area is a data row; a "($ million)" caption left of the years is not
    if any("$" in w.text for w in area):
        return None
    return cells


def _span_distance(x: float, span: tuple[float, float]) -> float:
    return 0.0 if span[0] <= x <= span[1] else min(abs(x - span[0]), abs(x - span[1]))


def columns(header: Line, cells: list[tuple[Word, int | None]],
             above: list[Line]) -> list[Column]:
    everything = [Column(w.xc, y or 0, change=y is None) for w, y in cells]
    cols = [c for c in everything if not c.change]
    years = [(w, y) for w, y in cells if y is not None]
    for c, (w, _) in zip(cols, years, strict=True):
        d = _DATE.match(w.text)
        if d and 1 <= int(d.group(1)) <= 12:
            c.month = _MONTHS[int(d.group(1)) - 1]
            c.day = int(w.text.split("/")[1])
    # durations: the lowest line that names them, the header line itself first ("Three Months
    # Ended June 30, 2023  Three Months ..."), then the lines above it. A phrase spans its
    # words up to the next phrase ("Three Months Ended June 30," over two year columns), and a
    # column takes the phrase whose span holds it, else the nearest span
    groups: list[int] = []
    left = min((c.x for c in cols), default=0.0) - 60
    for ln in [header, *reversed(above[-4:])]:
        if ln is not header and running_text(ln) and ln.words[0].x0 < left:
            continue  # a sentence above the table ("... in the first quarter of fiscal 2016")
        text = ln.text
        starts = []
        for pattern, dur in _DURATION:
            for m in pattern.finditer(text):
                starts.append((len(text[:m.start()].split()), dur))
        if not starts:
            continue
        starts.sort()
        heads = line_cells(ln.words)
        spans = []
        for i, (start, dur) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(ln.words)
            # the phrase's header cell: "As of or for the six months" starts at "As"
            c0, c1 = next(((a, b) for a, b in heads if a <= start < b), (start, end))
            lo = c0 if i == 0 or starts[i - 1][0] < c0 else start
            ws = ln.words[lo:min(end, c1)] or ln.words[start:end] or ln.words
            spans.append(((ws[0].x0, ws[-1].x1), dur))
        # where the phrases stand over their columns, a head cell of the same line that names
        # a date and no duration ("June 30, 2023" beside "Three months ended June 30,
        # average") holds the columns under it: balances, no duration
        phrase_cells = {next((k for k, (a, b) in enumerate(heads) if a <= st < b), -1)
                        for st, _ in starts}
        over = any(x1 >= left for (_, x1), _ in spans)  # phrases over the columns
        others = [(ln.words[a].x0, ln.words[b - 1].x1) for k, (a, b) in enumerate(heads)
                  if over and k not in phrase_cells and ln.words[b - 1].x1 >= left and
                  any(_MONTH.match(w.text) for w in ln.words[a:b])]
        for c in cols:
            g = min(range(len(spans)), key=lambda j: _span_distance(c.x, spans[j][0]))
            near = _span_distance(c.x, spans[g][0])
            if not any(_span_distance(c.x, o) < near for o in others):
                c.duration = spans[g][1]
            groups.append(g)
        break
    # months: "December 31," / "June 30," printed above or beside each year; one month over a
    # group of columns ("Three Months Ended June 30," then "2023 2022") holds for the group
    # "Fiscal years ended December 31, 2022, December 25, 2021 and December 26, 2020": a line
    # whose full dates name the columns' years one to one, in order, dates each column
    for ln in [header, *above[-4:]]:
        if ln is not header and not _PERIOD_WORDS.search(ln.text):
            continue
        dates = list(_FULL_DATE.finditer(ln.text))
        if dates and [int(m.group(3)) for m in dates] == [c.year for c in cols]:
            for c, m in zip(cols, dates, strict=True):
                c.month, c.day = m.group(1)[:3].capitalize(), int(m.group(2))
                c.end_year = int(m.group(3))
            break
    n_months = 0
    for ln in [header, *above[-2:]]:
        for k, w in enumerate(ln.words):
            # above the header, only a caption over the columns; prose there names other dates
            if _MONTH.match(w.text) and cols and (ln is header or w.x1 >= left):
                n_months += 1
                full = _FULL_DATE.match(" ".join(x.text for x in ln.words[k:k + 3]))
                # the nearest column still without a date ("July 2," over the column beside
                # "December 31, 2022"); a full date, the nearest of its own year if any
                open_cols = [c for c in cols if c.month is None] or cols
                if full:
                    open_cols = [c for c in open_cols if c.year == int(full.group(3))] or \
                        open_cols
                nearest = min(open_cols, key=lambda c: abs(c.x - w.xc))
                if nearest.month is None:
                    nearest.month = w.text.rstrip(".")[:3].capitalize()
                    day = _DAY.match(ln.words[k + 1].text) if k + 1 < len(ln.words) else None
                    nearest.day = int(day.group(1)) if day else None
                    nearest.end_year = int(full.group(3)) if full else None
    if n_months == 1:
        # one "December 31," over all the years ("December 31, / 2022  2021")
        dated = next(c for c in cols if c.month)
        for c in cols:
            if c.month is None:
                c.month, c.day = dated.month, dated.day
    elif groups:
        for c, g in zip(cols, groups, strict=True):
            if c.month is None:
                c.month, c.day = next(((o.month, o.day) for o, h in zip(cols, groups, strict=True)
                                       if h == g and o.month), (None, None))
    return everything


def end_date(col: Column) -> str | None:
    """The column's period end as an ISO date, when its header prints month and day."""
    if col.month is None or col.day is None or not 1 <= col.day <= 31:
        return None
    return f"{col.end_year or col.year:04d}-{_MONTHS.index(col.month) + 1:02d}-{col.day:02d}"
