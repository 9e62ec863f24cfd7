"""Deterministic query expansion (for retrieval only): finance acronyms and period labels.

Rules live in ``data/expansion_rules.yaml``. An expansion is appended to the query, so the
original wording is kept: ``"FY18 CAPEX"`` -> ``"FY18 CAPEX fiscal year 2018 capital expenditure
purchases of property plant and equipment"``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import yaml

_QUARTERS = {"1": "first", "2": "second", "3": "third", "4": "fourth"}
_HALVES = {"1": "first", "2": "second"}


@lru_cache(maxsize=1)
def load_rules() -> dict[str, str]:
    text = resources.files("fingap").joinpath("data/expansion_rules.yaml").read_text()
    return {k.lower(): v for k, v in yaml.safe_load(text)["acronyms"].items()}


def _year(y: str) -> str:
    return y if len(y) == 4 else f"20{y}"


_PERIODS = [
    (re.compile(r"\bFY\s?'?(\d{4}|\d{2})\b", re.I), lambda m: f"fiscal year {_year(m[1])}"),
    (re.compile(r"\bQ([1-4])\s?(?:FY)?'?(\d{4}|\d{2})?\b", re.I),
     lambda m: f"{_QUARTERS[m[1]]} quarter" + (f" {_year(m[2])}" if m[2] else "")),
    (re.compile(r"\b([1-4])Q\s?'?(\d{4}|\d{2})?\b", re.I),
     lambda m: f"{_QUARTERS[m[1]]} quarter" + (f" {_year(m[2])}" if m[2] else "")),
    (re.compile(r"\b(?:H([12])|([12])H)\s?'?(\d{4}|\d{2})?\b", re.I),
     lambda m: f"{_HALVES[m[1] or m[2]]} half" + (f" {_year(m[3])}" if m[3] else "")),
]


def expansions(query: str) -> list[str]:
    """The expansion phrases a query triggers, in order of first appearance, without repeats."""
    found: list[tuple[int, str]] = []
    for pattern, render in _PERIODS:
        found += [(m.start(), render(m)) for m in pattern.finditer(query)]
    for term, expansion in load_rules().items():
        for m in re.finditer(rf"(?<![\w&]){re.escape(term)}(?![\w&])", query, re.I):
            found.append((m.start(), expansion))
    out: list[str] = []
    for _, phrase in sorted(found):
        if phrase not in out:
            out.append(phrase)
    return out


def expand(query: str) -> str:
    extra = expansions(query)
    return query if not extra else f"{query} {' '.join(extra)}"
