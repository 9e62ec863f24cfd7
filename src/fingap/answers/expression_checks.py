"""Checks of a calculator expression's structure that need no page: does the formula the parse
built add like to like, count each line item once, and read every period the question names?

- ``dimension_reason``: amounts in dollars, per-share amounts and pure numbers only add to their
  own kind; the result's kind is the unit asked (an amount for ``usd``, a pure number for a
  ratio, percent or days). "365 x payables / cost of sales + the change in inventory" adds days
  to dollars: the parse put a parenthesis in the wrong place.
- ``weight_reason``: in a sum or difference of line items, every line item weighs the same
  ("A - B" or "(A + B) / 2", never "A - B - B"): a definition applied twice counts an item twice.
- ``period_reason``: every year the question names is read by some input ("over fiscal 2017
  through 2019" answered from 2019 alone is another question).
- ``arithmetic_reason``: an operation the question states in words ("A plus B", "divided by")
  is one the formula takes: a definition the parse did not read ("taking D&A as the
  depreciation add-back plus the amortization add-back") is not answered by one line item.
- ``year_end_reason``: balances the question takes at a year's end are not averaged.
- ``change_reason``: "the change in inventory" is a difference of two years' inventory.
- ``complement_reason``: what is kept "rather than" paid out is what is left after it.
- ``self_difference_reason``: no sub-expression is subtracted from itself (always 0).
- ``stated_factor_reason``: a factor the question states ("multiply by 182.5", "a 360-day
  year") is one the formula takes, not the library's own.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable

from .calculator import CalcError, names_in, parse_expression
from .formulas import split_input_name
from .question import (
    AVERAGE_ASKED,
    AVERAGED,
    ParsedQuestion,
    fiscal_years,
    reconciliation_as_source,
    takes_year_end,
)

Dim = tuple[tuple[str, int], ...]
_NONE: Dim = ()
_USD: Dim = (("usd", 1),)
_PER_SHARE: Dim = (("share", -1), ("usd", 1))
UNIT_DIMENSIONS = {"usd": _USD, "usd_per_share": _PER_SHARE, "ratio": _NONE, "percent": _NONE,
                   "days": _NONE}


def _combine(a: Dim, b: Dim, sign: int) -> Dim:
    exp = Counter(dict(a))
    for k, v in b:
        exp[k] += sign * v
    return tuple(sorted((k, v) for k, v in exp.items() if v))


def _dimension(node: ast.expr, dims: dict[str, Dim]) -> Dim:
    if isinstance(node, ast.Constant):
        return _NONE
    if isinstance(node, ast.Name):
        return dims.get(node.id, _USD)
    if isinstance(node, ast.UnaryOp):
        return _dimension(node.operand, dims)
    if isinstance(node, ast.BinOp):
        left, right = _dimension(node.left, dims), _dimension(node.right, dims)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            if left != right:
                raise ValueError(f"adds {_name(left)} to {_name(right)}")
            return left
        return _combine(left, right, 1 if isinstance(node.op, ast.Mult) else -1)
    raise ValueError(f"{type(node).__name__} in an expression")


def _name(dim: Dim) -> str:
    return {_NONE: "a pure number", _USD: "an amount", _PER_SHARE: "a per-share amount"}.get(
        dim, str(dim))


def dimension_reason(expression: str, unit: str, per_share: set[str]) -> str | None:
    """Why the expression's kinds do not add up, or None. ``per_share``: input names that are
    per-share amounts; every other input is an amount in dollars."""
    tree = parse_expression(expression)
    dims = {n: _PER_SHARE for n in per_share}
    try:
        result = _dimension(tree, dims)
    except ValueError as e:
        return f"the formula {e}"
    wanted = UNIT_DIMENSIONS.get(unit)
    if wanted is not None and result != wanted:
        return f"the formula gives {_name(result)}, a {unit} is asked"
    return None


def _exponents(node: ast.expr, fresh: list[int]) -> Dim:
    """The power of each line item (its name without the year) in a product or quotient; a sum
    of different line items counts as one new quantity of its own."""
    if isinstance(node, ast.Constant):
        return _NONE
    if isinstance(node, ast.Name):
        return ((node.id.split("__fy")[0], 1),)
    if isinstance(node, ast.UnaryOp):
        return _exponents(node.operand, fresh)
    if isinstance(node, ast.BinOp):
        left, right = _exponents(node.left, fresh), _exponents(node.right, fresh)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            if left == right or not right:
                return left
            if not left:
                return right
            fresh.append(len(fresh))
            return ((f"#sum{fresh[-1]}", 1),)
        return _combine(left, right, 1 if isinstance(node.op, ast.Mult) else -1)
    return _NONE


def repeat_reason(expression: str) -> str | None:
    """A line item raised to a power ("days payables x payables / cost of sales" is
    payables squared over cost of sales squared): a definition applied on top of the
    library's formula for the same metric. No financial metric squares a line item."""
    powers = _exponents(parse_expression(expression), [])
    twice = sorted(k for k, v in powers if abs(v) >= 2 and not k.startswith("#"))
    if twice:
        return "the formula takes " + ", ".join(twice) + " twice over (a definition applied " \
            "twice)"
    return None


def _summands(node: ast.expr) -> list[str]:
    """The terms of a sum or difference, its nested sums flattened, each without its sign."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _summands(node.left) + _summands(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _summands(node.operand)
    return [ast.dump(node)]


def repeated_term_reason(expression: str) -> str | None:
    """One term taken twice in a sum ("DIO + DSO - DPO + DSO - DPO"): a definition's parts
    added on top of the library's formula that already holds them. No metric adds a term to
    itself (a half year is annualised by "times 2")."""
    for node in ast.walk(parse_expression(expression)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            terms = _summands(node)
            if len(set(terms)) < len(terms):
                return "the formula adds one term twice (a definition applied twice)"
    return None


def self_difference_reason(expression: str) -> str | None:
    """A difference of one sub-expression with itself ("X in 2020 - X in 2020"), which is 0
    whatever the pages print: the parse read a change where the question names none."""
    for node in ast.walk(parse_expression(expression)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and \
                ast.dump(node.left) == ast.dump(node.right):
            return "the formula subtracts a quantity from itself"
    return None


def _scale_kind(node: ast.expr) -> str | None:
    """"percent" for a term scaled by 100, "days" for one scaled by 365 or 360, else None."""
    if isinstance(node, ast.BinOp):
        left, right = _scale_kind(node.left), _scale_kind(node.right)
        if isinstance(node.op, ast.Mult):
            for side in (node.left, node.right):
                if isinstance(side, ast.Constant) and side.value == 100:
                    return "percent"
                if isinstance(side, ast.Constant) and side.value in (365, 360):
                    return "days"
        if isinstance(node.op, (ast.Add, ast.Sub)) and left and right and left != right:
            raise ValueError(f"adds {left} to {right}")
        return left or right
    if isinstance(node, ast.UnaryOp):
        return _scale_kind(node.operand)
    return None


def scale_reason(expression: str) -> str | None:
    """A sum of a percent and a day count ("365 x payables / cost of sales + the growth of
    inventory in percent"): a change read as a growth rate inside a definition."""
    try:
        _scale_kind(parse_expression(expression))
    except ValueError as e:
        return f"the formula {e}"
    return None


def _additive_leaves(node: ast.expr, sign: int, out: Counter) -> None:
    """Net coefficients of the input names that stand alone in a sum (scaled by constants)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        _additive_leaves(node.left, sign, out)
        _additive_leaves(node.right, sign if isinstance(node.op, ast.Add) else -sign, out)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        _additive_leaves(node.operand, -sign, out)
    elif isinstance(node, ast.UnaryOp):
        _additive_leaves(node.operand, sign, out)
    elif isinstance(node, ast.Name):
        out[node.id] += sign


def _sums(node: ast.AST):
    """The maximal sums and differences of an expression tree."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield node
        stack = [node.left, node.right]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
                stack += [n.left, n.right]
            elif isinstance(n, ast.UnaryOp):
                stack.append(n.operand)
            else:
                yield from _sums(n)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _sums(child)


def weight_reason(expression: str) -> str | None:
    for node in _sums(parse_expression(expression)):
        coef: Counter = Counter()
        _additive_leaves(node, 1, coef)
        if len(coef) < 2 and not any(abs(v) > 1 for v in coef.values()):
            continue
        sizes = {abs(v) for v in coef.values()}
        if 0 in sizes or len(sizes) > 1:
            odd = sorted(n for n, v in coef.items() if abs(v) != min(sizes - {0}, default=1)
                         or v == 0)
            return "the formula counts " + ", ".join(f"{n} {coef[n]:+d} times" for n in odd)
    return None


def years_reason(question: str, pq: ParsedQuestion, inputs: list[dict] = ()) -> str | None:
    """``inputs``: the rows read, whose header year and fiscal year both count as read (a
    retailer's fiscal 2024 quarter is printed under 2023)."""
    named = set(fiscal_years(question))
    used = {y for _, y in pq.inputs} | {inp[k] for inp in inputs for k in ("year", "fiscal_year")
                                        if inp.get(k) is not None}
    # a dated fiscal period is named twice: "fiscal 2022 (52 weeks ended January 28, 2023)"
    used |= {pq.fiscal_of[y] for y in used if y in pq.fiscal_of} | \
        {y for y, fiscal in pq.fiscal_of.items() if fiscal in used}
    # ... or with the date beside it: a balance read at the date named ("January 28, 2023, the
    # end of fiscal 2022") reads the fiscal year that ends early in the next calendar year
    for inp in inputs:
        end = inp.get("end_date")
        if end and end[:10] in pq.dates and int(end[5:7]) <= 2:
            used.add(int(end[:4]) - 1)
    left = sorted(named - used)
    if left:
        return "no input is read for " + ", ".join(map(str, left)) + ", which the question names"
    return None




def average_reason(question: str, expression: str) -> str | None:
    """A question that asks for an average ("using the average of the opening and closing
    balances", "averaged over 2015-2017") gets a formula that takes one: a mean over years or
    over two balances (the calculator's ``(...) / n``)."""
    if AVERAGE_ASKED.search(question) and not AVERAGED.search(expression):
        return "the question asks for an average, which the formula does not take"
    return None


# "(not annualised)", "without annualizing" ask for the period's own figure
_ANNUALIZE = re.compile(r"(?<!not\s)(?<!without\s)\bannuali[sz](?:e|ed|es|ing|ation)\b", re.I)
# times 4 (a quarter), 2 (a half), 12 / months or 52 / weeks; not the percent's 100
_SCALED = re.compile(r"\*\s*\(?\s*(?:4|2|12|52)(?:\.0)?\b")


def annualize_reason(question: str, pq: ParsedQuestion) -> str | None:
    """A question that annualizes a shorter period's figure ("annualized return on equity in
    the first quarter") gets a formula that scales it to a year (times 4, 2, 12 / n ...)."""
    if _ANNUALIZE.search(question) and pq.duration != "12M" and \
            not _SCALED.search(pq.expression):
        return "the question annualizes a shorter period's figure; the formula does not"
    return None


_YEAR_DAYS = re.compile(r"(?<![\w.])(?:365|360)(?:\.0)?(?![\w.])")


def period_days_reason(question: str, expression: str, duration: str) -> str | None:
    """A day count over a period shorter than a year ("days of inventory in the 12 weeks ended
    March 25") counts that period's days: a year's 365 (a library metric's) answers another
    question, unless the question states it or annualizes."""
    if duration == "12M" or not _YEAR_DAYS.search(expression) or \
            _YEAR_DAYS.search(question) or _ANNUALIZE.search(question):
        return None
    return f"a {duration} period is asked; the formula counts a year's days"


# arithmetic stated in words; "less" and "over" are left out, since English uses them for
# other things ("less than", "over the year")
_STATED_OPERATIONS = {
    # ... and a list of parts "taken together" ("cash, investments and receivables, taken
    # together"), which the parser reads as their sum (``question.LISTED_TOGETHER``)
    # ("the sum of its current liabilities" names one total, "add back to earnings" and
    # "adding to plant and equipment" describe one line item: no addition of two)
    # ("depreciation-plus-amortization", hyphen-bound, names one line item; "the sum of its
    # short-term liabilities and round to ..." goes on to an instruction, no second part)
    # ("combine the charge for A with the add-back for B": their sum)
    ast.Add: ("adds", re.compile(r"(?<!-)\bplus\b(?!-)|\badded\s+to\b|\s\+\s|"
                                 r"\bcombin(?:e|es|ed|ing)\b[^.?;]{1,80}?\bwith\b|"
                                 r"\bsum\s+of\s+[^.?;,]*?\band\b(?!\s+(?:then\s+)?(?:round|give|"
                                 r"answer|express|report|state|show)\w*\b)|"
                                 r"\bsum\s+of\s+[^.?;,]+,\s+[^.?;,]+?,?\s+and\b|"
                                 r"\badd(?:s|ing)?\s+(?!to\b|back\s+to\b)\S.{0,80}?\bto\b|"
                                 r",\s+[^,.?;:()]+?,?\s+and\s+[^,.?;:()]+?,?\s+(?:taken\s+"
                                 r"together|added\s+(?:together|up)|combined|together|"
                                 r"in\s+total)\b", re.I | re.S)),
    ast.Sub: ("subtracts", re.compile(r"\bminus\b|\bsubtract(?:s|ed|ing)?\b|"
                                      r"\bdeduct(?:s|ed|ing)?\b|"
                                      r"\b(?:excess|surplus)\s+of\b.{1,80}?\bover\b", re.I | re.S)),
    ast.Div: ("divides", re.compile(r"\bdivided\s+by\b|\bdivid(?:e|ing)\b.{1,80}?\bby\b|\s/\s",
                                    re.I | re.S)),
}


def operations_not_taken(question: str, expression: str) -> dict[type, str]:
    """{operation: the question's words for it} of the operations the question states in words
    that the formula never takes."""
    ops = {type(node.op) for node in ast.walk(parse_expression(expression))
           if isinstance(node, ast.BinOp)}
    # words in parentheses qualify a line item ("operating cash flow (continuing plus
    # discontinued operations)") rather than build the formula
    question = re.sub(r"\([^()]*\)", " ", question)
    # "add back when reconciling its profit to operating cash flow": where the item sits
    question = reconciliation_as_source(question)
    out = {}
    for op, (_, pattern) in _STATED_OPERATIONS.items():
        m = pattern.search(question)
        if m and op not in ops:
            out[op] = " ".join(m.group(0).split())[:40]
    return out


def arithmetic_reason(question: str, expression: str,
                      printed: Callable[[type], bool] | None = None) -> str | None:
    """An operation the question states in words that the formula never takes, or None.
    ``printed(op)``: whether the page prints that operation's result as the row read (a
    definition that restates a printed total, "everything it owned minus everything it owed",
    answered from the equity row, whose page prints the two totals it is the difference of)."""
    for op, words in operations_not_taken(question, expression).items():
        if printed is None or not printed(op):
            return f"the question {_STATED_OPERATIONS[op][0]} ({words!r}); the formula does not"
    return None


def year_end_reason(question: str, expression: str) -> str | None:
    """Balances the question takes at a year's end ("using balances at the end of fiscal 2020")
    are read as printed, not averaged with the year before."""
    if takes_year_end(question) and AVERAGED.search(expression):
        return "the question takes year-end balances, the formula averages them"
    return None


_CHANGE_IN = re.compile(r"\bchange\s+in\s+(?:the\s+)?(?:its\s+)?(?P<item>[a-z][a-z &'-]{2,40}?)"
                        r"(?=\s+(?:from|between|over|during|in|for|at|balances?)\b|[,.;)?]|$)",
                        re.I)


def _differenced(node: ast.expr, concept: str) -> bool:
    """Whether a subtraction in the tree takes two years of ``concept`` apart (one year on
    both sides, as "DIO - DPO" holds the same year's cost of sales, is no change)."""
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):
            left = {x.id for x in ast.walk(n.left) if isinstance(x, ast.Name)
                    and x.id.startswith(concept + "__")}
            right = {x.id for x in ast.walk(n.right) if isinstance(x, ast.Name)
                     and x.id.startswith(concept + "__")}
            if any(a != b for a in left for b in right):
                return True
    return False


def change_reason(question: str, expression: str, vocab) -> str | None:
    """"The change in inventory" the question uses is a difference of two years' inventory in
    the formula (``vocab``: the finance vocabulary, which reads the item as a concept)."""
    tree = parse_expression(expression)
    for m in _CHANGE_IN.finditer(question):
        concepts = [c for _, _, c in vocab.find_terms(m["item"])]
        # an item in words the vocabulary does not know ("the change in stock on hand"): some
        # line item's two years must still be taken apart
        if (concepts and not all(_differenced(tree, c) for c in concepts)) or \
                (not concepts and not any(_differenced(tree, split_input_name(n)[0])
                                          for n in names_in(expression))):
            return f"the question takes the change in {m['item'].strip()}, which the " \
                "formula does not"
    return None


# "by how much did X shrink between January 28, 2023 and July 29, 2023": an amount of change
# between two periods the question names, whatever the verb
_BY_HOW_MUCH = re.compile(r"\bby\s+how\s+much\b", re.I)
_TWO_PERIODS = re.compile(r"\b(?:between|from)\b(?P<a>[^?.;]{0,40}?\b(?:19|20)\d{2})\s+"
                          r"(?:and|to|through)\b(?P<b>[^?.;]{0,40}?\b(?:19|20)\d{2})\b", re.I)


def between_reason(question: str, expression: str) -> str | None:
    """A question that asks by how much a figure moved between two periods it names gets a
    formula that takes two periods of one line item apart."""
    m = _TWO_PERIODS.search(question)
    if not _BY_HOW_MUCH.search(question) or m is None or \
            " ".join(m["a"].lower().split()) == " ".join(m["b"].lower().split()):
        return None
    try:
        tree = parse_expression(expression)
    except CalcError:
        return None
    if any(_differenced(tree, split_input_name(n)[0]) for n in names_in(expression)):
        return None
    return f"the question asks by how much a figure moved between{m['a']} and{m['b']}; the " \
        "formula takes no two periods of a line item apart"


_COVERS = re.compile(r"\bcover(?:s|ed|ing|age)?\b", re.I)


def covered_input(question: str, expression: str) -> str | None:
    """The input a coverage divides by ("how many times did operating profit cover its net
    interest charge": the charge), read as an amount whatever sign its row prints; None when
    the question asks no coverage or the divisor is not one input."""
    if not _COVERS.search(question):
        return None
    try:
        tree = parse_expression(expression)
    except CalcError:
        return None
    while isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Mult) and \
            isinstance(tree.right, ast.Constant):
        tree = tree.left                               # "... * 100"
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Div) and \
            isinstance(tree.right, ast.Name):
        return tree.right.id
    return None


# a verb of keeping, then "rather than" in the same clause: "kept in the business rather than
# paid out" (not a contrast of two parts, "came from services rather than from products", nor
# of forms, "as a decimal rather than a percent")
_KEPT_RATHER_THAN = re.compile(
    r"\b(?:keep|keeps|kept|keeping|retain\w*|hold|holds|held|left|leave|leaves|save|saves|"
    r"saved|reinvest\w*|plough\w*|plow\w*)\b[^.?;:]{0,60}?\b(?:rather\s+than|instead\s+of)\b",
    re.I)


def complement_reason(question: str, expression: str) -> str | None:
    """What a company keeps "rather than" pays out is what is left after it: the formula
    takes something away."""
    if _KEPT_RATHER_THAN.search(question) and not any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
            for n in ast.walk(parse_expression(expression))):
        return "the question asks for what is left rather than paid out; the formula " \
            "subtracts nothing"
    return None


# a factor stated in words: "multiply (it) by N", "times N", "N times", "N x", "an N-day year"
_STATED_FACTOR = re.compile(
    r"\bmultipl(?:y|ied|ying)\s+(?:(?:it|that|this|the\s+(?:result|ratio|quotient))\s+)?by\s+"
    r"(?P<a>\d+(?:\.\d+)?)\b|\btimes\s+(?P<b>\d+(?:\.\d+)?)\b|"
    r"(?<![\d.])(?P<c>\d+(?:\.\d+)?)\s*(?:times|x|\u00d7)\s|"
    r"\b(?P<d>\d+(?:\.\d+)?)\s*-?\s*days?\s+(?:year|period)\b", re.I)
_CONSTANT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def stated_factor_reason(question: str, expression: str) -> str | None:
    """A factor the question states ("multiply by 182.5 days", "using a 360-day year") is a
    constant of the formula: a library metric's own 365 answers another question."""
    constants = {float(c) for c in _CONSTANT.findall(expression)}
    stated = [(m.lastgroup, float(m[m.lastgroup])) for m in _STATED_FACTOR.finditer(question)]
    # a factor to multiply by, where one is stated, is the factor ("multiply by 182.5 days, half
    # a 365-day year"); else the day count of the year named
    multipliers = [n for g, n in stated if g != "d"]
    for n in multipliers or [n for _, n in stated]:
        if not 1900 <= n <= 2100 and n not in constants:
            return f"the question states a factor of {n:g}, which the formula does not take"
    return None

