"""The formula library (``fingap/data/formulas.yaml``) and its expansion into calculator input.

A library formula is arithmetic over concept names with two time helpers:
``avg(x)`` = (x in the period + x one fiscal year earlier) / 2, ``prev(x)`` = x one year
earlier (or in the earlier year the question names) and ``years()`` = the years between the
two. Expanding it for a fiscal year gives a plain calculator expression over input names
``<concept>__fy<year>`` (see ``input_name``), plus the list of inputs it needs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from .calculator import CalcError
from .labels import normalise_phrase

_INPUT = re.compile(r"^(?P<concept>[a-z_]+?)__fy(?P<year>\d{4})$")


@dataclass(frozen=True)
class Metric:
    name: str
    terms: tuple[str, ...]
    expr: str
    unit: str                  # ratio | percent | days | usd
    # plausible range of the result, (low, high), either None for open; None: no bound
    bounds: tuple[float | None, float | None] | None = None


def metric_term_spans(text: str, metrics) -> list[tuple[int, int]]:
    """The (start, end) of every whole-word mention of a term of ``metrics`` in the
    normalised ``text``."""
    spans = []
    for metric in metrics:
        for term in metric.terms:
            t = normalise_phrase(term)
            spans += [m.span() for m in
                      re.finditer(rf"(?<![a-z0-9]){re.escape(t)}s?(?![a-z0-9])", text)]
    return spans


def input_name(concept: str, year: int) -> str:
    return f"{concept}__fy{year}"


def split_input_name(name: str) -> tuple[str, int]:
    m = _INPUT.match(name)
    if not m:
        raise CalcError(f"not an input name: {name!r}")
    return m["concept"], int(m["year"])


@lru_cache(maxsize=1)
def load_library() -> dict[str, Metric]:
    raw = yaml.safe_load(resources.files("fingap").joinpath("data/formulas.yaml")
                         .read_text(encoding="utf-8"))
    return {name: Metric(name, tuple(spec["terms"]), spec["expr"], spec["unit"],
                         tuple(spec["bounds"]) if spec.get("bounds") else None)
            for name, spec in raw.items()}


def expand(expr: str, year: int, x: str | None = None, prev_year: int | None = None) -> str:
    """Calculator expression for ``expr`` in fiscal ``year`` (``{x}`` replaced by concept x);
    ``prev(x)`` is x in ``prev_year`` (default: the year before)."""
    if "{x}" in expr:
        if x is None:
            raise CalcError(f"formula {expr!r} needs the concept it applies to")
        expr = expr.replace("{x}", x)
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError as e:
        raise CalcError(f"bad formula {expr!r}: {e.msg}") from None

    def walk(node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            return input_name(node.id, year)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return repr(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            c = node.args[0].id
            if node.func.id == "avg":
                return f"(({input_name(c, year)} + {input_name(c, year - 1)}) / 2)"
            if node.func.id == "prev":
                return input_name(c, year - 1 if prev_year is None else prev_year)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "years" and not node.args:
            return repr(year - (year - 1 if prev_year is None else prev_year))
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
                  ast.Pow: "**"}.get(type(node.op))
            if op:
                return f"({walk(node.left)} {op} {walk(node.right)})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{walk(node.operand)})"
        raise CalcError(f"unsupported construct in formula {expr!r}")

    return walk(tree)


def mean_over_years(expr: str, years: list[int], x: str | None = None) -> str:
    """The average of ``expr`` over several fiscal years ("3 year average of ...")."""
    parts = [expand(expr, y, x) for y in years]
    return f"(({' + '.join(parts)}) / {len(parts)})"
