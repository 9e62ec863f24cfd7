"""Printed numbers as they appear in filings, and the scale words around them.

Conventions (shared by the table parser and the verification gate):
- a value in parentheses is negative: "(1,234)" -> -1234; a leading "-" or "\u2212" too;
- thousands separators are dropped: "1,577" -> 1577; a "$" or "%" attached to the token is
  dropped from the value and kept as the unit ("12.5%" -> 12.5, percent);
- a lone dash ("-", "\u2013", "\u2014") in a value column means zero;
- scale words: "thousands" = 1e3, "millions" = 1e6, "billions" = 1e9 (singular "($ million)"
  too); values are stored as
  printed, with their scale beside them, never multiplied out in the store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCALES = {"units": 1.0, "thousands": 1e3, "millions": 1e6, "billions": 1e9}
DASHES = {"-", "\u2013", "\u2014", "\u2012", "\u2212", "--"}

_VALUE = re.compile(
    r"^(?P<open>\()?(?P<neg>[-\u2212])?\$?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<pct>%)?(?P<close>\))?(?P<pct2>%)?$"
)
_SCALE_TEXT = re.compile(
    r"(?:in|\(|\$\s*in|dollars\s+in|amounts\s+in|usd\s+in)\s*(?:\$\s*)?"
    r"(?P<scale>thousands?|millions?|billions?)\b", re.I)
_SCALE_PAREN = re.compile(
    r"\((?:(?:us)?\$\s*)?(?:in\s+)?(?P<scale>thousands?|millions?|billions?)\b", re.I)


@dataclass(frozen=True)
class PrintedValue:
    value: float
    percent: bool
    text: str


def parse_value(token: str) -> PrintedValue | None:
    """A table cell as a number, or None if the token is not one (see the module conventions)."""
    t = token.strip().replace("\u00a0", "").replace(" ", "")
    if t in DASHES:
        return PrintedValue(0.0, False, token)
    if t.startswith("$"):
        t = t[1:]
    m = _VALUE.match(t)
    if not m:
        return None
    if bool(m["open"]) != bool(m["close"]):
        # "(1,234" / "1,234)": PyMuPDF sometimes splits the parenthesis off; still a number
        if not (m["open"] or m["close"]):
            return None
    value = float(m["num"].replace(",", ""))
    negative = bool(m["open"] or m["close"] or m["neg"])
    return PrintedValue(-value if negative else value, bool(m["pct"] or m["pct2"]), token)


def detect_scale(text: str) -> str | None:
    """The scale a page declares ("in millions", "(Millions)", "$ in thousands"), or None.

    The first declaration on the page wins; statements declare it once under their title."""
    found = []
    for pattern in (_SCALE_TEXT, _SCALE_PAREN):
        m = pattern.search(text)
        if m:
            found.append((m.start(), m["scale"].lower()))
    if not found:
        return None
    scale = min(found)[1]
    return scale if scale.endswith("s") else scale + "s"  # "($ million)" -> millions


def decimals_of(text: str) -> int:
    """Decimal places printed in a number's text: "24.26" -> 2, "$1,577" -> 0."""
    m = re.search(r"\d+(?:,\d{3})*(?:\.(\d+))?", text)
    return len(m.group(1)) if m and m.group(1) else 0


def printed_forms(value: float, max_decimals: int = 2) -> set[str]:
    """Ways a value may be printed on a page, for text search: "1577", "1,577", "1,577.0"."""
    forms = set()
    a = abs(value)
    for d in range(0, max_decimals + 1):
        s = f"{a:.{d}f}"
        if float(s) != round(a, d) or abs(float(s) - a) > 1e-9 * max(1.0, a):
            continue
        forms.add(s)
        whole, _, frac = s.partition(".")
        forms.add(f"{int(whole):,}" + (f".{frac}" if frac else ""))
    return forms
