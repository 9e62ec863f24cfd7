"""Visual lines of a PDF page: PyMuPDF words grouped by their vertical centre, each line split
into a row label and the values at its end (the first steps of
``fingap.ingestion.statement_tables``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .numbers import parse_value

LABEL_GAP = 12.0         # points between a label's last word and the first value
LINE_TOLERANCE = 3.0     # points of vertical-centre difference within one visual line
TEXT_CELL_GAP = 30.0     # points between two text cells of one row (label | maturity | rate)
CELL_GAP = 9.0           # points between two header cells ("... three months  As of ...")
PROSE_WORDS = 8          # a text line this long, with no wide gap, is running text

# cells that are no number: footnote markers and "not meaningful" marks. They sit among the
# values ("(35) *", "1,234 (a)"); dropped, the remaining values still map to their columns by
# position
MARKER = re.compile(r"^(?:\*{1,3}|[\u2020\u2021]+|\([a-z]\)|n/?m|n\.m\.|n/?a|np|nmf)$", re.I)

# a number inside a label's own sentence: "$9,151", "(489", "$(15),", "0.45%"
_ASIDE = re.compile(r"^\(?\$|^\(\d|.*\d%[,;)]?$")


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


def page_lines(words: list[Word]) -> list[Line]:
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
        if out and w.text in {")", "%", ")%", "%)"} and w.x0 - out[-1].x1 < 6:
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


def split_values(line: Line) -> None:
    """Fill ``line.label`` / ``line.values``: the numeric tokens at the end of the line.
    Footnote markers among or after them ("(35) *", "1,234 (a)") are dropped; a marker before
    the first value stays in the label ("Revenue (a)")."""
    words = [w for w in _merge_split_tokens(line.words) if w.text != "$"]
    i = len(words)
    while i > 0 and (parse_value(words[i - 1].text) is not None or
                     MARKER.match(words[i - 1].text)):
        i -= 1
    while i < len(words) and MARKER.match(words[i].text):
        i += 1
    tail = [w for w in words[i:] if not MARKER.match(w.text)]
    if not tail:  # markers only: a text line
        i, tail = len(words), []
    words = words[:i] + tail
    # values must stand apart from the label: "December 31, 2018" keeps its year; dot leaders
    # ("Net income.........  $ 629,551") are a separator of their own
    while i < len(words) and i > 0 and words[i].x0 - words[i - 1].x1 < LABEL_GAP and \
            not words[i - 1].text.endswith("..."):
        i += 1
    line.values = words[i:]
    label_words = words[:i]
    # a numeric token followed by text inside the value area means two tables side by side;
    # where every such token is an aside of the label (a dollar amount, a count in
    # parentheses, a rate: "net of allowances of $9,151 and $6,214, respectively") the text
    # after it must stand apart as a cell of its own, since the label runs on at word spacing
    line.text_between_values = False
    if label_words and line.values:
        first_value = line.values[0].x0
        tail = [w for w in label_words if parse_value(w.text) is not None]
        asides = all(_ASIDE.match(w.text) for w in tail)
        line.text_between_values = bool(tail) and any(
            w.x0 > tail[0].x1 + LABEL_GAP * 3 and
            (not asides or w.x0 - label_words[k - 1].x1 > LABEL_GAP)
            for k, w in enumerate(label_words)
            if k and parse_value(w.text) is None and w.x0 > tail[0].x0) and \
            tail[0].x0 > first_value / 2
    # a wide gap inside the label starts another text cell of the row (a maturity date, an
    # indication, a rate): the row's label is its first cell
    for k in range(1, len(label_words)):
        if label_words[k].x0 - label_words[k - 1].x1 > TEXT_CELL_GAP:
            label_words = label_words[:k]
            break
    line.label = " ".join(w.text for w in label_words).strip(" .:\u2026")


def line_cells(words: list[Word]) -> list[tuple[int, int]]:
    """Word index ranges of a line's cells: runs of words with no gap wider than CELL_GAP."""
    cells, start = [], 0
    for k in range(1, len(words) + 1):
        if k == len(words) or words[k].x0 - words[k - 1].x1 > CELL_GAP:
            cells.append((start, k))
            start = k
    return cells


def running_text(line: Line) -> bool:
    """A sentence ("... for the six months ended June 30, 2022 and 2021"), not a header."""
    ws = line.words
    words = sum(1 for w in ws if re.search(r"[A-Za-z]{2}", w.text))
    return len(ws) >= PROSE_WORDS and words >= 0.75 * len(ws) and \
        all(b.x0 - a.x1 < 2 * LABEL_GAP for a, b in zip(ws, ws[1:], strict=False))


CONNECTOR = re.compile(r"(?:\b(?:of|and|to|for|the|in|from|by|on|or|less|net|including|"
                        r"attributable|excluding|with)|[,\u2014\u2013-])$", re.I)


def continues(previous: Line, line: Line, label: str) -> bool:
    """Is ``line``'s label the second half of a label wrapped from the text-only line above?
    Yes when the value line's label starts in lower case ("equipment (PP&E)"), or when the
    line above ends on a connecting word ("... SHAREOWNERS OF" / "THE COCA-COLA COMPANY") and
    sits right above it, at the same or a smaller indent."""
    if previous.values or not previous.label:
        return False
    close = line.y - previous.y <= 2.2 * (line.words[0].y1 - line.words[0].y0)
    if not label:
        return close  # values wrapped onto the next line; a far-off number is no part of it
    if label[:1].islower():
        return True
    return close and bool(CONNECTOR.search(previous.label)) and \
        previous.words[0].x0 <= line.words[0].x0 + 2
