"""The meaning gate: a figure goes out as ``verified`` only when what it was computed from is
what the question asks, checked independently of what chose the rows.

The text gate (``fingap.answers.gate``) proves that each input is printed on its cited page in
the column of its year. That is not enough: a wrong row or a wrong column printed on the right
page passes it. Here every input must also pass, read from the page's own text:

(a) **label**: its row's printed label means the operand. The operand's phrase (the question's
    own words for it, and the finance vocabulary's first term for a concept the question names
    only through a metric) is scored against the label by ``LabelMatcher``, a sentence embedder
    that takes no part in choosing rows by their labels. The score must reach
    ``label_threshold``, and no other row printed on the page may score more than
    ``label_margin`` above it: the neighbouring row is caught even when the chooser preferred
    it. An operand the question describes in its own words ("everything the company owned") is
    also scored against the plain-English meanings of the concept the vocabulary reads each
    row as (``fingap.answers.glossary``). That is the score the resolver read such a phrase
    by, so for it (a) adds only the page check: no row printed beside it, judged by its label
    or its meaning, may lead by ``label_margin``; (b)-(g) stay independent;
(b) **period**: its column's header states the duration the question asks (a six-month column
    for a six-month question; no quarter column for a year); a balance is read from a column
    with no duration, a flow from a column with one; where the question dates its period, the
    column's end month is a month it names;
(c) **statement**: where the question names statements, the row sits under one of them;
(d) **printed**: the value is printed there (the text gate).

And the question as a whole:

(e) **coverage**: every content word of what the question asks is accounted for by the parse
    (a line item, metric or label it resolved, a period, unit, statement or company word, or
    common English); "capital investment" left over when only "fixed assets" was read means the
    parse answered another question. A word that no printed row label of the corpus contains
    ("how much cash did its operations *throw off*") cannot name another line item, so it is
    left over only if it can change the figure some other way: a word that excludes,
    includes, adjusts, annualises or forecasts (``OPERATION_WORDS``), or a name (a capitalised
    word other than the company's own, "leaving out what it earned from *Starbucks*");
(f) **shape**: a question that asks for a percentage, a ratio or days does not get an amount,
    and one that asks for an amount in dollars does not get a ratio;
(g) **plausibility**: the result lies inside the bounds of its metric shape (``bounds`` in
    ``formulas.yaml``; a share of a total between 0 and 100% when its parts are non-negative);
(h) **structure**: what the question says of the formula's structure is in the formula
    (``fingap.answers.expression_checks``): an operation it states in words ("A plus B"; or,
    for an answer read from one row, two line items of its page that make that row by it), the
    change in a line item, year-end balances not averaged, a complement ("kept rather than paid
    out"); an including/excluding clause before its wh-word is in a row read; the words for one
    operand do not name another line item placed inside it ("the D&A add-back listed among
    operating cash flows"); two operands are not one printed row; a maturity the operand's
    words give is its row's where the page prints the line item with that maturity beside it;
    a row found by its label is not named by what it comes before
    ("Income before income taxes" for the tax charge); asked in so many words for the
    company's own shareholders' share, the row with the company's name beside the total is it.

The answer's ``confidence`` is the lowest label score of its inputs when everything passes,
and 0 otherwise.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..ingestion.documents import LEGAL_SUFFIXES, company_name_keys
from .expression_checks import (
    annualize_reason,
    arithmetic_reason,
    average_reason,
    between_reason,
    change_reason,
    complement_reason,
    dimension_reason,
    period_days_reason,
    repeat_reason,
    repeated_term_reason,
    scale_reason,
    self_difference_reason,
    stated_factor_reason,
    weight_reason,
    year_end_reason,
    years_reason,
)
from .fact_store import FactStore
from .formulas import load_library, metric_term_spans
from .gate import (
    PAGE_HEAD_LINES,
    ColumnHeader,
    GateResult,
    duration_of,
    gate_structured,
    gate_text,
    page_items,
    row_hits,
)
from .glossary import Glossary, GlossParams, load_meanings
from .label_match import LabelMatcher
from .labels import (
    Vocabulary,
    balance_side,
    charged,
    horizon,
    income_form,
    maturity_spans,
    moves_money,
    normalise_label,
    normalise_phrase,
)
from .periods import strip_period_phrases
from .question import (
    AVERAGED,
    LABEL_PREFIX,
    NET_OF_CONTRA,
    ParsedQuestion,
    asked_phrase,
    dates_named,
    definitions,
    diluted_per_share,
    every_input_statement,
    joined_terms,
    reconciliation_as_source,
    refers_back,
    stated_duration,
    statement_name_spans,
)
from .resolver import (
    content_stems,
    deducted_row,
    gloss_phrase,
    one_part_of_a_sum,
    read_described,
    stem,
    tax_side,
    taxes_side_conflict,
)

_PERIOD_WORDS = set(
    "fy fiscal calendar year years yearly annual annually annualize annualized annualise "
    "annualised full end ends ended ending period "
    "periods quarter quarters quarterly month months week weeks half first second third fourth "
    "last "
    "three six nine twelve q1 q2 q3 q4 h1 h2 as of at on during over in for the through to from "
    "between and ytd date jan january feb february mar march apr april may jun june jul july "
    "aug august sep sept september oct october nov november dec december".split())
_UNIT_WORDS = set(
    "usd us dollar dollars million millions billion billions thousand thousands mn bn k m b "
    "percent percentage percentages pct units unit decimal decimals place places point points "
    "round rounded rounding nearest whole integer number figure value amount money terms day days"
    .split())
_AVERAGE_WORDS = set("opening closing beginning ending start balance balances".split())
_COMMON = set(
    "a an the of for in on at to by with from and or its their his her our your company "
    "companys firm firms what whats which how much many is was were are be been being did does do "
    "has have had will would could can should that this these those it they them there "
    "according based using use used shown show shows per reported report reports reporting "
    "recorded record records total overall net gross unadjusted gaap stated state states "
    "give answer calculate compute determine find provide please approximately about "
    "statement statements sheet sheets balance income cash flow flows operations earnings "
    "financial position consolidated p l loss profit line item items primarily only "
    "respectively value level size generate generated support supported post posted book booked "
    # the shape words of the expression the parse built (checked by (f), not by name)
    "margin margins ratio ratios rate average averaged averages averaging avg mean across each "
    "every growth change dates "
    "decreased "
    "changed yoy percent % less plus minus times "
    "divide divided dividing over add added adding subtract subtracted sum x excess surplus "
    "multiply multiplied multiplying "
    "zero one two three four five "
    # whose share of a result: the row chosen names it ("attributable to shareholders")
    "attributable shareholders stockholders shareowners owners parent "
    # verbs and nouns that carry no line item ("how much did X spend on capex", "the D&A
    # expense", "capex, taken as ...", "in its earnings release")
    "spend spent pay paid hold held carry carried owe owed expense expenses charge charges "
    "taken defined measured computed calculated ie versus vs same basis trade release filing "
    "plc inc corp corporation co ltd llc group holdings share fraction proportion portion "
    # how an amount came about: the verb of "how much did X earn / invest / put into / hand
    # out / bring in / add back"; the line item is the noun it governs
    "earn earned earns invest invested invests put puts putting into hand hands handed out "
    "bring brings brought throw threw thrown off back keep keeps kept take took taken "
    "carrying "
    # how a question asks: "work out X", "what does X represent", "the result"
    "work then express expressed represent represents result results produce produced get "
    # how a statement presents a line item: "the assets it classifies as current", "across all
    # of its short-term liability lines" (the words after them name it)
    "classify classifies classified classifying lines "
    # ... and how a question asks for its figure: "what free cash flow does that leave", "as a
    # multiple of", "measuring fixed assets as the average ...", "buying new plant"
    "leave leaves multiple multiples measuring measure measures new "
    # whose share: "its own shareholders", "common stockholders" (checked by the variant check)
    "own common "
    # when: "at the close of fiscal 2017"
    "close up"
    .split())
_SHAPE_PERCENT = re.compile(r"%|\bpercent|\bmargin\b|\bshare\s+of\b|\bfraction\b|\bproportion\b|"
                            r"\bgrowth\b|\bgr[eo]w\b|\brate\b|\bhow\s+fast\b|\bcagr\b|\breturn\s+on\b",
                            re.I)
_SHAPE_RATIO = re.compile(r"\bratio\b|\bturnover\b|\bhow\s+many\s+times\b|\bper\s+dollar\b|"
                          r"\beach\s+dollar\b|\bhow\s+many\s+dollars\b|\bcoverage\b|\bmultiple\b",
                          re.I)
_SHAPE_DAYS = re.compile(r"\bdays?\b", re.I)
_SHAPE_AMOUNT = re.compile(r"\b(?:in|into)\s+(?:usd|us\$|\$|dollars)?\s*(?:millions?|billions?|"
                           r"thousands?)\b|\$\s*(?:mn|bn|m|b|k)\b", re.I)
# qualifiers that split one line item into variants printed side by side; a company's own
# figure is the one attributable to its shareholders unless the question includes the
# noncontrolling interests
_QUALIFIERS = {
    "parent": re.compile(r"attributable\s+to\s+(?!.*(?:non-?\s?controlling|minority|"
                         r"redeemable))", re.I),
    "continuing": re.compile(r"\bcontinuing\s+operations\b", re.I),
    "discontinued": re.compile(r"\bdiscontinued\s+operations\b", re.I),
}
# "... attributable to <whom>": whose share of a line item, not which line item
_WHOSE_SHARE = re.compile(r"\s+attributable\s+to\b.*$")
# an amount printed inside a label ("Accounts receivable, net of allowance of $60 and $75,
# respectively") is a disclosure aside: the line item is what comes before its clause
_AMOUNT_IN_LABEL = re.compile(r"\$\s?\d")
_CLAUSE_START = re.compile(r",\s|\s\(|\s[-\u2013\u2014]\s")
# "including noncontrolling interests", "including the portion attributable to minority
# owners": the consolidated figure, the minority's share in it
_INCLUDING_NCI = re.compile(r"\binclud(?:ing|es?)\s+(?:[\w'\u2019-]+\s+){0,5}?"
                            r"(?:non-?\s?controlling|minority)", re.I)


def qualifiers_asked(question: str) -> set[str]:
    """The variant of a line item the question asks: its own shareholders' share by default;
    a question naming both continuing and discontinued operations asks for their total."""
    asked = {"parent"} if not _INCLUDING_NCI.search(question) else set()
    cont = re.search(r"\bcontinuing\b", question, re.I)
    disc = re.search(r"\bdiscontinued\b", question, re.I)
    if cont and not disc:
        asked.add("continuing")
    if disc and not cont:
        asked.add("discontinued")
    return asked


def qualifiers_of(label: str) -> set[str]:
    return {name for name, pattern in _QUALIFIERS.items() if pattern.search(label)}


_NON_GAAP_PAGE = re.compile(r"\breconciliations?\b|\bnon-?\s?gaap\b", re.I)
_ASKS_ADJUSTED = re.compile(r"(?<!un)adjusted|non-?\s?gaap|organic|pro\s+forma", re.I)


def period_end_reason(question: str, columns: list[ColumnHeader]) -> str | None:
    """Where the question dates its period ("six months ended July 29, 2023"), the latest column
    read must end then (a neighbouring month's turn allowed for 52/53-week years): a fiscal
    year's columns printed under the year before (a retailer's fiscal 2024 half ends in July
    2023) cannot stand for it."""
    dated = [(int(d[:4]), int(d[5:7]) - 1) for d in dates_named(question)]
    if not dated or not columns:
        return None
    year, month = max(dated)
    col = max(columns, key=lambda c: (c.year, _MONTHS.index(c.month) if c.month else 0))
    if col.month:
        if abs((col.year * 12 + _MONTHS.index(col.month)) - (year * 12 + month)) <= 1:
            return None
    elif col.year == year or (month == 0 and col.year == year - 1):
        return None
    end = f"{col.month + ' ' if col.month else ''}{col.year}"
    return f"the latest column read ends in {end}, the question's period in " \
        f"{_MONTHS[month]} {year}"


def dated_balance_reason(dates: list[str], column: ColumnHeader) -> str | None:
    """Where the question dates two or more instants (``dates``: the parse's ISO dates, "equity
    at January 28, 2023 and July 29, 2023"), a balance read must stand at one of them (a
    neighbouring month's turn allowed for 52/53-week years): a 10-Q's balance sheet prints the
    year-ago quarter-end beside the two, and its month matches one named."""
    dated = sorted({(int(d[:4]), int(d[5:7]) - 1) for d in dates})
    if len(dated) < 2 or not column.month:
        return None
    at = column.year * 12 + _MONTHS.index(column.month)
    if any(abs(at - (year * 12 + month)) <= 1 for year, month in dated):
        return None
    named = ", ".join(f"{_MONTHS[m]} {y}" for y, m in dated)
    return f"the balance read stands at {column.month} {column.year}, the question dates {named}"


# a row that is the noncontrolling (minority) interests' share of a line item, and a question
# that asks about that share
# another party's share of a figure: the minority's, or the affiliates' and investees' own
# (a note's summary of equity-method investees prints "Net income attributable to the
# affiliated companies", which is none of the company's)
_MINORITY_SHARE = re.compile(r"\b(?:attributable|applicable|allocated)\s+to\s+(?:the\s+)?"
                             r"(?:non-?\s?controlling|minority|affiliat|(?:equity[- ]method\s+)?"
                             r"investees?\b|joint\s+ventures?\b)|^\s*(?:non-?\s?controlling|"
                             r"minority)\s+interests?\b", re.I)
_MINORITY_ASKED = re.compile(r"\bnon-?\s?controlling|\bminority", re.I)
# a balance a cash flow statement prints: the cash at the period's ends
_BALANCE_ROW = re.compile(r"\b(?:end|beginning|start|close)\s+of\b|\bending\b|\bbeginning\b|"
                          r"\bclosing\b|\bopening\b", re.I)
_NEGATED = re.compile(r"\b(?:not|unpaid)\b", re.I)
_OTHER_PARTY_ASKED = re.compile(r"\bnon-?\s?controlling|\bminority|\baffiliat|\binvestees?\b|"
                                r"\bjoint\s+ventures?\b", re.I)
_RESIDUAL = re.compile(r"\b(?:other|all\s+other|miscellaneous|remaining)\b", re.I)
_SHARE = re.compile(r"\bshare\b|\bfraction\b|\bproportion\b|\bportion\b|\bas\s+an?\s+%|"
                    r"\bpercentage\s+of\b|%\s+of\b", re.I)


# words that make an operand a flow of cash over the period (spending, paying, buying,
# generating): never a balance read at an instant
# a label's words after these name what the row is measured before, after or without, not the
# row: "Income before income taxes" is income, not income taxes
_LABEL_TAIL = re.compile(r"\b(?:before|after|excluding|net\s+of)\b", re.I)
# a figure the question asks explicitly for the company's own shareholders' share of
_PARENT_ASKED = re.compile(
    r"\b(?:leaving\s+out|leave\s+out|excluding|excludes?|without|net\s+of|other\s+than|after)\s+"
    r"(?:the\s+)?"
    r"(?:stakes?\s+\w+\s+(?:by\s+)?)?(?:non-?\s?controlling|minority)|"
    r"\b(?:belonging|belongs|attributable)\s+to\s+(?:[\w.&'\u2019-]+\s+){0,4}?(?:own\s+)?"
    r"(?:share|stock)holders\b|\bown\s+(?:share|stock)holders\b", re.I)
# a clause before the question's wh-word that includes or excludes something ("Including the
# slice that matures within twelve months, how much ...")
_LEADING_CLAUSE = re.compile(r"^(?P<lead>[^?]{3,160}?),\s+(?:how|what|by\s+how|by\s+what|which)\b",
                             re.I)
_INCLUDE_EXCLUDE = re.compile(r"\b(?:includ\w*|exclud\w*|count(?:s|ed|ing)?|leav\w+\s+out|"
                              r"except\w*|apart\s+from|aside\s+from|other\s+than|net\s+of|"
                              r"together\s+with)\b", re.I)
_NCI = re.compile(r"non-?\s?controlling|minority", re.I)
# words that place one line item inside another's figure
_PLACED_IN = re.compile(r"\b(?:among|within|inside|listed|shown|included|reported|part)\b")


def same_row_reason(inputs: list[dict]) -> str | None:
    """Two operands of one formula read from the same printed row ("depreciation plus
    amortization" answered with the "Depreciation and amortization" row twice) count it
    twice."""
    seen: dict[tuple, str] = {}
    for inp in inputs:
        key = (inp["doc"], inp["page"], normalise_label(inp["label"]), inp["year"], inp["value"])
        if key in seen and seen[key] != inp["name"]:
            return f"{seen[key]} and {inp['name']} are the same printed row ({inp['label']!r})"
        seen.setdefault(key, inp["name"])
    return None


# the statements a concept of the vocabulary lives on, beside notes' tables ("table")
PRIMARY_STATEMENTS = ("income", "balance_sheet", "cash_flow")


def two_statements_reason(inputs: list[dict]) -> str | None:
    """Inputs of one answer read from two printings of the same primary statement in a filing,
    pages apart (a statement runs over at most two facing pages): the second is another
    entity's or period's statement (a parent-only or guarantor balance sheet, a segment's)."""
    pages: dict[tuple[str, str], dict[int, str]] = {}
    for inp in inputs:
        if inp.get("statement") in PRIMARY_STATEMENTS:
            pages.setdefault((inp["doc"], inp["statement"]), {}).setdefault(inp["page"],
                                                                             inp["name"])
    for (_, statement), named in sorted(pages.items()):
        first, last = min(named), max(named)
        if last - first > 1:
            name = statement.replace("_", " ")
            return (f"{named[first]} and {named[last]} are read from two {name}s, pages "
                    f"{first} and {last}")
    return None


def named_statement_reason(statements: Sequence[str], inputs: list[dict]) -> str | None:
    """The one statement the question names ("use only the cash flow statement") holds none of
    the inputs read: the figure asked is not what was read ("the money it poured into plant"
    read from the balance sheet's net plant)."""
    if len(statements) != 1 or not inputs or \
            any(inp.get("statement") == statements[0] for inp in inputs):
        return None
    return f"the question names the {statements[0].replace('_', ' ')}; no input is read from it"


def every_input_reason(question: str, inputs: list[dict]) -> str | None:
    """The question reads every input from one statement ("both from the cash flow
    statement"); an input read elsewhere is another figure (the income statement's net income
    attributable to the parent, where the cash flow statement starts from consolidated profit)."""
    statement = every_input_statement(question)
    for inp in inputs:
        if statement and inp.get("statement") != statement:
            return (f"{inp['name']}: the question reads every input from the "
                    f"{statement.replace('_', ' ')}; this one is read from the "
                    f"{str(inp.get('statement')).replace('_', ' ')}")
    return None


def label_tail_reason(phrase: str, label: str) -> str | None:
    """A row found by its label whose words the phrase shares sit mostly after "before",
    "after", "excluding" or "net of" in the label: the row is what comes before them ("what
    it charged for taxes" is not "Income before income taxes")."""
    m = _LABEL_TAIL.search(label)
    if not m or _LABEL_TAIL.search(phrase) or tax_side(phrase, leading=True):
        return None     # "earnings before taxes", "pre-tax profit" name it so
    asked = content_stems(normalise_phrase(phrase))
    head = content_stems(normalise_label(label[:m.start()]))
    tail = content_stems(normalise_label(label[m.end():]))
    if len(asked & tail) > len(asked & head):
        return f"{label!r} is {label[:m.start()].strip()!r}, measured {m.group(0).lower()} " \
            f"what the question names"
    return None


# what the subtotals of an income statement are measured before (EBT, EBIT, EBITDA)
_SUBTOTAL_ITEMS = content_stems("interest taxes depreciation amortization")
# ("pre-tax profit": "pre" qualifies the one word after it)
_BEFORE_ITEMS = re.compile(r"\bbefore\s+(?P<x>[^,;()]+)|\bpre\s+(?P<y>\w+)")


def before_items_reason(phrase: str, label: str) -> str | None:
    """A row measured before fewer items than the phrase names ("earnings before interest and
    taxes" read from "Income before income taxes"): another subtotal, not the one asked."""
    asked, printed = _BEFORE_ITEMS.search(normalise_phrase(phrase)), \
        _BEFORE_ITEMS.search(normalise_label(label))
    if not asked or not printed:
        return None
    items = [(m["x"] or m["y"]).strip() for m in (asked, printed)]
    missing = (content_stems(items[0]) & _SUBTOTAL_ITEMS) - content_stems(items[1])
    if not missing:
        return None
    return f"{label!r} is measured before {items[1]!r}; the question's words " \
        f"exclude {' '.join(sorted(missing))} too"


def leading_clause_reason(question: str, inputs: list[dict]) -> str | None:
    """A clause before the question's wh-word that includes or excludes something changes the
    figure; it is accounted for only by the label of a row read (its operation word or one of
    its content words: "Net of the reserve for bad debts" by "Accounts receivable, net"), or
    by the variant check when it names the noncontrolling interests."""
    m = _LEADING_CLAUSE.match(question.strip())
    if not m or not _INCLUDE_EXCLUDE.search(m["lead"]) or _NCI.search(m["lead"]):
        return None
    lead = m["lead"]
    op = normalise_phrase(_INCLUDE_EXCLUDE.search(lead).group(0)).split()[0]
    words = content_stems(normalise_phrase(_INCLUDE_EXCLUDE.sub(" ", lead))) - \
        {stem(w) for w in _PERIOD_WORDS}
    for inp in inputs:
        label = normalise_label(inp["label"])
        if op in label.split() or words & content_stems(label):
            return None
    return f"the question's clause {lead.strip()!r} is in no row read"


def horizon_reason(phrase: str, label: str) -> str | None:
    """Why a row does not have the maturity the question's words give its line item
    ("obligations due within a year" read from "Total liabilities"), or None."""
    asked = horizon(phrase)
    if asked is None or horizon(label) == asked:
        return None
    said = {"short": "due within a year", "long": "due after a year"}
    return (f"the question asks for a line item {said[asked]}; {label!r} "
            f"{'says ' + said[horizon(label)] if horizon(label) else 'gives no maturity'}")


@dataclass
class GateParams:
    matcher: str = "minilm"
    label_threshold: float = 0.7
    label_margin: float = 0.1
    # a row the vocabulary reads as a concept is also judged by the concept's plain-English
    # meanings (``fingap.answers.glossary``) for an operand the question describes in its own
    # words; None: by its label alone
    gloss: GlossParams | None = field(default_factory=GlossParams)


@dataclass
class MeaningChecks:
    """What the meaning gate found, per input and for the question."""
    labels: dict[str, float] = field(default_factory=dict)    # input name -> label score
    reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.reasons


def asked_shape(question: str) -> set[str]:
    """What kind of number the question asks for, from its asked phrase (its own definitions
    and instructions aside): any of percent, ratio, days, amount. A question sentence that
    only refers back ("..., expressed as a multiple of Y: what is it?") asks what the words
    before it describe, so the whole question is read."""
    asked = question if refers_back(question) else asked_phrase(question) or question
    out = set()
    if _SHAPE_PERCENT.search(asked):
        out.add("percent")
    if _SHAPE_RATIO.search(asked):
        out.add("ratio")
    if _SHAPE_DAYS.search(asked):
        out.add("days")
    if _SHAPE_AMOUNT.search(question):
        out.add("amount")
    return out


def shape_reason(question: str, unit: str) -> str | None:
    shape = asked_shape(question)
    if unit in ("usd", "usd_per_share") and shape & {"percent", "ratio", "days"} and \
            "amount" not in shape:
        return f"the question asks for a {'/'.join(sorted(shape))}, the answer is an amount"
    if unit in ("percent", "ratio", "days") and shape == {"amount"}:
        return f"the question asks for an amount, the answer is a {unit}"
    if unit == "percent" and _DIVISION_SPELT.search(question) and \
            not _PERCENT_WORDS.search(question):
        # "Divide net profit by average assets": the quotient as the question spells it, not
        # the library's percent of the same metric
        return "the question's own division gives a quotient, the answer is a percent"
    return None


_DIVISION_SPELT = re.compile(r"\bdivid(?:e|es|ed|ing)\b", re.I)
# ... and a margin, which is a percent by convention ("EBITDA margin ... divide by revenue")
_PERCENT_WORDS = re.compile(r"%|\bper\s*cent|\bpercent(?:age)?s?\b|\bpct\b|\bbasis\s+points?\b|"
                            r"\bmargins?\b", re.I)


def company_key(doc: str) -> str:
    """A document's company as letters: AMERICANWATERWORKS_2020_10K -> americanwaterworks."""
    return "".join(ch for ch in re.split(r"_(?:19|20)\d\d", doc)[0].lower() if ch.isalnum())


def printed_forms(label: str) -> list[str]:
    """The ways a page prints a row's line item: its label, and the label before a clause
    that prints amounts ("Long-term debt (included $78,609 ... at fair value)": "Long-term
    debt"). (A bare label read with its section, "Diluted" under "Earnings per share", was
    tried: it let corrupted rows from other statements pass, benchmarks/gate_quality.py.)
    A loss-headed label prints its income line too ("Net loss": "net income")."""
    out = [label]
    amount = _AMOUNT_IN_LABEL.search(label)
    if amount:
        cuts = [m.start() for m in _CLAUSE_START.finditer(label, 0, amount.start())]
        if cuts and label[:cuts[-1]].strip():
            out.append(label[:cuts[-1]].strip())
    # "Net loss" is the net income line of a year with a loss ("Net income (loss)")
    income = income_form(label)
    if income:
        out.append(income)
    return out


def company_keys(doc: str, companies: Mapping[str, str] | None = None,
                 key: Callable[[str], str] = company_key) -> set[str]:
    """The ways a question may spell a document's company: the one its name spells (``key``)
    and, where the corpus names its company (``FactStore.companies``), that name with and
    without its legal form ("ACME Corporation": acmecorporation, acme)."""
    keys = {key(doc)}
    if companies and companies.get(doc):
        keys |= company_name_keys(companies[doc])
        # its first words, two or more, as people shorten a name ("American Water" for
        # American Water Works Company, Inc.)
        core = [w for w in re.findall(r"[a-z0-9]+", companies[doc].lower())
                if w not in LEGAL_SUFFIXES]
        keys |= {"".join(core[:n]) for n in range(2, len(core))}
        # the initials of a name of two joined by "&" ("J&J" for Johnson & Johnson)
        named = [w for w in re.findall(r"[a-z0-9]+|&", companies[doc].lower())
                 if w not in LEGAL_SUFFIXES]
        if len(named) == 3 and named[1] in ("&", "and"):
            keys.add(named[0][0] + named[2][0])
    return {k for k in keys if len(k) >= 2}


def companies_named(question: str, docs: set[str],
                    companies: Mapping[str, str] | None = None) -> set[str]:
    """The company keys (``company_keys``) of the documents of ``docs`` the question names."""
    words = normalise_phrase(question).split()
    out: set[str] = set()
    for doc in docs:
        if company_positions(words, {doc}, companies):
            out |= company_keys(doc, companies)
    return out


def company_positions(words: list[str], docs: set[str],
                      companies: Mapping[str, str] | None = None) -> set[int]:
    """Positions of the runs of words that spell a document's company, possessive or not
    ("american water works", "adobes", "johnson and johnson")."""
    keys = set().union(*(company_keys(d, companies) for d in docs))
    out: set[int] = set()
    for i in range(len(words)):
        joined = ""
        for j in range(i, min(i + 6, len(words))):
            if j > i and words[j] in ("and", "the"):   # "Johnson & Johnson"
                continue
            joined += words[j]
            if joined in keys or (joined.endswith("s") and joined[:-1] in keys):
                out.update(range(i, j + 1))
    return out


# words that change which figure is meant, or how it is computed, without naming a line item:
# exclusion and inclusion, restriction, adjustment, time scaling, forecasts (a closed class of
# English, not a list of line items)
OPERATION_WORDS = frozenset(
    "exclude excludes excluded excluding exclusive except excepting without leave leaving "
    "left omit omits omitted omitting apart aside besides other than only alone just solely "
    "include includes included including inclusive together combined plus minus less net "
    "adjusted adjust adjusting adjustment adjustments pro forma organic constant currency "
    "normalized normalised underlying core recurring nonrecurring restated recast "
    "annualized annualised annualize annualise annual annually quarterly monthly weekly daily "
    "per each average averaged median cumulative cumulatively combined "
    "forecast forecasted projected projection expected expect estimate estimated guidance "
    "target targeted planned plan budget budgeted outlook future next".split())


# characters either side of a line item's term within which its meaning explains a word
_BESIDE = 24
# words that qualify or change a line item ("operating income before restructuring"): a
# meaning that holds one ("profit before interest and taxes") never accounts for it
_QUALIFYING = {"before", "after", "excluding", "including", "less", "net", "without", "except",
               "other", "total", "all", "not", "only", "adjusted", "continuing",
               "discontinued", "gross", "plus", "minus"}


# qualifiers that say the same thing: what follows is taken away ("after accumulated
# depreciation" is "less accumulated depreciation"), or not yet taken away
_QUALIFIER_KINDS = ({"after", "less", "net", "minus", "excluding", "without", "deducting"},
                    {"before"})
_FILLER = {"of", "the", "a", "an", "any", "all", "its", "their"}
# words that ask for a whole: a total row read answers them
_TOTAL_WORDS = {"all", "combined", "aggregate", "entire", "whole", "together"}


def _next_stem(words: Sequence[str], i: int) -> str | None:
    """The stem of the first word after ``words[i]`` that is not a filler word."""
    return next((stem(w) for w in words[i + 1:] if w not in _FILLER), None)


def _qualifier_in_meaning(words: Sequence[str], i: int, concepts: Sequence[str]) -> bool:
    """Whether a meaning of one of ``concepts`` holds the qualifier ``words[i]`` (or one of
    its kind) before the same word as the question: "fixed assets after accumulated
    depreciation" read as the line item meant "at cost less accumulated depreciation"."""
    kind = next((k for k in _QUALIFIER_KINDS if words[i] in k), None)
    after = _next_stem(words, i)
    if kind is None or after is None:
        return False
    return any(w in kind and _next_stem(mw, j) == after
               for c in concepts for mw in _meaning_words(c) for j, w in enumerate(mw))


@cache
def _meaning_words(concept: str) -> tuple[tuple[str, ...], ...]:
    """The normalised words of each glossary meaning of a concept."""
    return tuple(tuple(normalise_phrase(m).split()) for m in load_meanings().get(concept, ()))


def _meaning_stems(concepts: Sequence[str | None]) -> frozenset[str]:
    """The content stems of the glossary meanings of ``concepts`` (None entries skipped)."""
    meanings = load_meanings()
    return frozenset().union(*(content_stems(normalise_phrase(m))
                               for c in concepts if c for m in meanings.get(c, ())))


# the name before "(now X)" and the one after "(formerly" / "(previously"
_FORMER_NAME = re.compile(r"\b([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})(?:'s|\u2019s)?\s*"
                          r"\((?=(?:now|renamed)\b)|\((?:formerly|previously)(?:\s+known\s+as)?\s+"
                          r"([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})")


_BOTH_OPERATIONS = re.compile(r"\b(?:(?:counting|including|from|across|covering)\s+)?(?:both\s+)?"
                              r"(?:its\s+)?continuing\s+and\s+discontinued\s+"
                              r"(?:operations|businesses)\b")


def _parent_row(label: str, docs: set[str], companies: Mapping[str, str] | None) -> bool:
    """Whether a printed label is the company's own shareholders' share of its line item."""
    words = normalise_phrase(label).split()
    return "parent" in qualifiers_of(label) or \
        (bool(company_positions(words, docs, companies)) and not _MINORITY_ASKED.search(label))


def _within(starts: Sequence[int], pattern: re.Pattern, text: str) -> set[int]:
    """The positions of the words (starting at ``starts`` in ``text``) inside a match."""
    spans = [m.span() for m in pattern.finditer(text)]
    return {i for i, s in enumerate(starts) if any(a <= s < b for a, b in spans)}


# "excluding the equity held by noncontrolling interests", "including membership and other
# income": a line item set apart from the one asked, or counted in it
_ASIDE_CLAUSE = re.compile(
    r"\b(?P<kind>excluding|leaving\s+out|not\s+counting|other\s+than|apart\s+from|including)"
    r"\s+(?P<item>[a-z][a-z' -]{2,80}?)(?=\s*[,.;:?!)]|\s*$)", re.I)


def aside_clauses(question: str) -> list[tuple[bool, str, str]]:
    """(including?, the clause as written, the line item it names) for each clause that sets
    a line item apart from the one asked or counts it in ("excluding marketable
    securities")."""
    return [(m["kind"].lower() == "including", m[0], m["item"])
            for m in _ASIDE_CLAUSE.finditer(question)]


def clause_row(item: str, rows: Sequence[dict]) -> list[dict]:
    """The rows whose label names the clause's line item: they share at least one content
    word and at least half of the shorter of the two (stems, ``content_stems``)."""
    want = content_stems(normalise_phrase(item))
    out = []
    for f in rows:
        have = content_stems(f["label_norm"])
        shared = len(want & have)
        if shared and shared >= 0.5 * min(len(want), len(have)):
            out.append(f)
    return out


def structure_accounts(including: bool, item: str, read: dict, rows: Sequence[dict]) -> bool:
    """Whether the read row's place in its table accounts for an aside clause. Set apart
    ("excluding X"): X is a row of the same table that the read row neither names nor adds
    up, as it is no total or stands above X (a total adds the rows printed above it).
    Counted in ("including X"): the read row is a total printed below X's row."""
    table = [f for f in rows if f["tbl"] == read["tbl"] and f["year"] == read["year"]]
    mine = [f for f in table if f["label_norm"] == read["label_norm"]]
    if not mine:
        return False
    at = mine[0]["id"]
    total = re.match(r"total\b", read["label_norm"]) is not None
    own = content_stems(read["label_norm"])
    for f in clause_row(item, [f for f in table if f["label_norm"] != read["label_norm"]]):
        if content_stems(f["label_norm"]) <= own:
            continue    # the read row names it: whether in or out, its own words tell
        if including and total and f["id"] < at:
            return True
        if not including and (not total or f["id"] > at):
            return True
    return False


def unexplained_words(question: str, pq: ParsedQuestion, vocab: Vocabulary,
                      docs: set[str], label_stems: frozenset[str] | None = None,
                      companies: Mapping[str, str] | None = None,
                      printed: Sequence[str] = (), meant: Sequence[str] = (),
                      apart: Sequence[str] = ()) -> list[str]:
    """Content words of the asked phrase that the parse does not account for (see (e)).
    ``label_stems``: the content stems of every row label in the corpus; a word outside them
    is accounted for unless it is an operation word or a name. ``printed``: the labels of the
    rows the answer read; a word they print names the row that was read ("cash generated by
    operating activities" read from "Net cash provided by operating activities"). ``meant``:
    operand phrases the glossary reads, by meaning, as the line item the parse read them as
    ("cash put into new factories and machinery" as capex, ``MeaningGate.meant_phrases``);
    their words describe it, but for the words that qualify or change a figure. ``apart``:
    aside clauses the read rows' places in their tables account for
    (``structure_accounts``)."""
    # a period phrase ("over the prior fiscal year") names when, as the parser reads it
    # "... in reconciling its profit to operating cash flow" says where, as the parser reads it
    question = reconciliation_as_source(question)
    asked = normalise_phrase(strip_period_phrases(
        re.sub(r"\([^()]*\)", " ", asked_phrase(question) or question)))
    # (one space between words: the vocabulary's term offsets are those of the spaced text)
    asked = " ".join(re.sub(r"\b(?:fy)?(?:19|20)?\d{2}\b|\b\d+(?:st|nd|rd|th)?\b", " ",
                            asked).split())
    words = asked.split()
    # (where each word starts in ``asked``, its words one space apart)
    starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    covered = company_positions(words, docs, companies)
    # "working mainly from its income statement", "using nothing but the balance sheet": where
    # the figure is read, not what it is
    covered |= source_positions(words, covered)
    # "leaving out the stakes held by minority owners", "belonging to its own shareholders":
    # the company's own share of a line item, accounted for when a row read prints that share
    # ("attributable to <the company>", "Total <the company> shareholders' equity")
    if any(_parent_row(p, docs, companies) for p in printed):
        covered |= _within(starts, _PARENT_ASKED, asked)
    # "counting both continuing and discontinued operations": their total, accounted for when
    # no row read is one of the two alone
    if not any(qualifiers_of(p) & {"continuing", "discontinued"} for p in printed):
        covered |= _within(starts, _BOTH_OPERATIONS, asked)
    # "after (subtracting) accumulated depreciation", "net of the allowance": the net balance,
    # accounted for when a row read is a net one ("Property, plant and equipment, net",
    # "Accounts receivable, net")
    if any(re.search(r"\bnet\b", p, re.I) for p in printed):
        covered |= _within(starts, NET_OF_CONTRA, asked)
    for clause in apart:
        covered |= _within(starts, re.compile(rf"\b{re.escape(normalise_phrase(clause))}\b"),
                           asked)
    # a company's former name ("Square (now Block)", "Block (formerly Square)") is a name too
    former = {w for names in _FORMER_NAME.findall(question) for name in names
              for w in normalise_phrase(name).split()}
    covered |= {i for i, w in enumerate(words) if w in former or
                (w.endswith("s") and w[:-1] in former)}
    used = {c for c, _ in pq.inputs}
    # "money spent on plant and equipment" read as capex: the balance's words name the flow
    used |= {c.name for c in vocab.concepts.values() if c.spent_as in used}
    # "assets expected to turn into cash within a year" read as current assets: the words of
    # the line item without the maturity ("assets") name it too (``maturity_variant``)
    variant_of = {c: v for v in used if (maturity := horizon(pq.phrases.get(v, "")))
                  for c in vocab.concepts if vocab.maturity_variant(c, maturity) == v}
    used |= set(variant_of)
    concept_spans = [(a, b, c) for a, b, c in vocab.find_terms(asked) if c in used]
    spans = [(a, b) for a, b, _ in concept_spans]
    library = load_library()
    # a library metric names what is asked; so does one the question defines itself ("ROA
    # is defined as ...": the definition replaced the library's formula)
    metrics = [library[pq.metric]] if pq.metric in library else \
        list(library.values()) if pq.metric == "definition" else []
    spans += metric_term_spans(asked, metrics)
    # the words a line item was resolved by: its vocabulary term (the spans above) or its
    # label phrase; not the whole operand text the parse read it from
    # ... and the names the question defines itself ("EBIT taken as ...")
    named = set(" ".join(pq.labels.values()).split()) | \
        set(" ".join(definitions(question)).split())
    if AVERAGED.search(pq.expression):
        # "the average of the opening and closing balances": the formula averages them
        named |= _AVERAGE_WORDS
    names = _names(question, docs, companies) if label_stems is not None else set()
    # a line item's plain-English meaning explains the words right beside its term ("supplier
    # payables" read as accounts payable, whose meaning is money owed to suppliers); a word
    # further off may belong to a line item the parse missed
    # a balance read as the money spent on it ("buying plant, property and equipment" as
    # capex) is explained by that flow's meaning too, a line item read at a stated maturity by
    # that maturity's meaning
    spent_of = {c.name: c.spent_as for c in vocab.concepts.values() if c.spent_as in used}
    meaning_stems = {c: _meaning_stems((c, spent_of.get(c), variant_of.get(c)))
                     for _, _, c in concept_spans}
    printed_stems = frozenset().union(*(content_stems(normalise_phrase(p)) for p in printed))
    meant_words = {w for p in meant for w in normalise_phrase(p).split()
                   if w not in OPERATION_WORDS and w not in _QUALIFYING}
    # a maturity the question states ("used up within a year") that a row read prints too
    # ("Total current assets"); a total the question asks in other words ("all", "combined")
    # that a total row gives
    printed_horizons = {horizon(p) for p in printed} - {None}
    stated = [(a, b) for a, b, kind in maturity_spans(asked) if kind in printed_horizons]
    total_read = any(re.search(r"\btotal\b", p, re.I) for p in printed)

    # a run of the line item's meaning words reaches as far as it goes on ("cash and very
    # short-term, highly liquid holdings"): each next meaning word within reach of the last
    reach = []
    for a, b, c in concept_spans:
        grew = True
        while grew:
            grew = False
            for w, s0 in zip(words, starts, strict=True):
                if (s0 + len(w) < a or s0 > b) and a - _BESIDE <= s0 <= b + _BESIDE and \
                        w not in OPERATION_WORDS and w not in _QUALIFYING and \
                        stem(w) in meaning_stems[c]:
                    a, b, grew = min(a, s0), max(b, s0 + len(w)), True
        reach.append((a, b, c))

    def described(w: str, start: int, i: int) -> bool:
        near = [c for a, b, c in concept_spans if a - _BESIDE <= start <= b + _BESIDE]
        if any(a <= start < b for a, b in stated) or (total_read and w in _TOTAL_WORDS):
            return True
        if w == "other" and i and words[i - 1] in ("and", "or"):
            # the close of a list that describes one line item ("equipment and other fixed
            # assets", "materials, parts and other stock"), not "other than" or a residual
            # line; the words after it are checked as any others
            return True
        if w in _QUALIFYING:
            # a qualifier only as the line item's own meaning words it
            return _qualifier_in_meaning(words, i, near)
        if (stem(w) in printed_stems or w in meant_words) and w not in OPERATION_WORDS:
            return True
        # an operation word ("expected") only by a maturity the phrase states ("assets
        # expected to turn into cash within a year"), which chose the line item
        return any(
            a - _BESIDE <= start <= b + _BESIDE and stem(w) in meaning_stems[c] and
            (w not in OPERATION_WORDS or c in variant_of) for a, b, c in reach)

    # words the parse wrote into the asked phrase ("turn over its stock" -> "... turnover"),
    # and the library metric's own words in another number ("margins")
    own_words = set(normalise_phrase(question).split())
    metric_stems = frozenset().union(*(content_stems(normalise_phrase(t))
                                       for m in metrics[:1] for t in m.terms)) \
        if pq.metric in library else frozenset()
    out = []
    for i, (w, start) in enumerate(zip(words, starts, strict=True)):
        if w not in own_words or stem(w) in metric_stems:
            continue
        if len(w) < 2 or i in covered or w in named or w in _PERIOD_WORDS or w in _UNIT_WORDS or \
                w in _COMMON or any(a <= start < b for a, b in spans) or described(w, start, i):
            continue
        if label_stems is not None and stem(w) not in label_stems and \
                w not in OPERATION_WORDS and w not in names:
            continue
        out.append(w)
    return out


# a document a question names as its source, normalised (statements: ``statement_name_spans``)
_SOURCE_DOCUMENT = re.compile(
    r"\b(?:annual report|earnings release|(?:10 k|10 q) filing|10 k|10 q|filing|"
    r"financial statements)\b")
# the closed class of words that say where a figure is read: the verb, the restriction and
# the preposition before a source's name ("working mainly from its", "limited to", "relying
# only on", "nothing but") and after it ("alone", "only")
_SOURCE_BEFORE = frozenset(
    "working work drawing draw relying rely based going go reading read using use used per "
    "according limited restricted confined only solely mainly mostly primarily chiefly "
    "strictly exclusively just nothing but from on to with in off of by its their the "
    "company companys firms firm s".split())
_SOURCE_AFTER = frozenset("alone only solely".split())


def source_positions(words: Sequence[str], names: set[int] = frozenset()) -> set[int]:
    """The positions of the words that name a statement as the figure's source, with the
    words around it that only say so ("working mainly from its income statement", "using
    nothing but the balance sheet", "the cash flow statement alone"); ``names``: the
    positions of the company's name, which may stand between them."""
    text = " ".join(words)
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    out: set[int] = set()
    spans = statement_name_spans(text) + [m.span() for m in _SOURCE_DOCUMENT.finditer(text)]
    for a, b in spans:
        first = next(i for i, s in enumerate(starts) if s + len(words[i]) > a)
        last = max(i for i, s in enumerate(starts) if s < b)
        i = first - 1
        while i >= 0 and first - i <= 8 and (words[i] in _SOURCE_BEFORE or i in names):
            i -= 1
        j = last + 1
        while j < len(words) and words[j] in _SOURCE_AFTER:
            j += 1
        out.update(range(i + 1, j))
    return out


def _names(question: str, docs: set[str], companies: Mapping[str, str] | None = None
           ) -> set[str]:
    """Normalised words the question capitalises other than at a sentence's start, the
    company's own name and the capitalised words right after it ("JPMorgan Chase's")."""
    tokens = re.findall(r"[A-Za-z][A-Za-z&.\-'\u2019]*|[.?!:;]", question)
    words = [normalise_phrase(t) for t in tokens]
    company = company_positions(words, docs, companies)
    out: set[str] = set()
    after_company = False
    for i, t in enumerate(tokens):
        if i in company:
            after_company = True
            continue
        starts = i == 0 or tokens[i - 1] in ".?!:;"
        if t[0].isupper() and not starts and not after_company and words[i]:
            out.update(words[i].split())
        after_company = after_company and t[0].isupper()
    return out


def plausibility_reason(pq: ParsedQuestion, question: str, value: float,
                        inputs: list[dict]) -> str | None:
    if value == 0 and "-" in pq.expression and len(inputs) >= 2 and \
            all(inp["value"] != 0 for inp in inputs):
        # printed amounts that cancel exactly: one of them is the subtotal of the others (the
        # gross profit row read as the spending subtracted from it), not a figure that is 0
        return "the formula's printed inputs cancel exactly (a subtotal read as one of its parts)"
    library = load_library()
    metric = library.get(pq.metric)
    bounds = metric.bounds if metric else None
    if bounds is None and pq.unit == "percent" and _SHARE.search(asked_phrase(question) or "") \
            and all(inp["value"] >= 0 or inp.get("magnitude") for inp in inputs):
        bounds = (0.0, 100.0)        # a share of a total, with parts that are not negative
    if bounds is None:
        return None
    lo, hi = bounds
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return f"{value:g} is outside the plausible range [{lo}, {hi}] of {pq.metric or pq.unit}"
    return None


def _stock(concept: str, vocab: Vocabulary, statement: str) -> bool:
    """A balance (read at an instant) rather than a flow over a period."""
    c = vocab.concepts.get(concept)
    if c is not None and c.statement in PRIMARY_STATEMENTS:
        return c.statement == "balance_sheet"
    return statement == "balance_sheet"


def question_duration(question: str, pq: ParsedQuestion) -> str:
    """The period length the question asks, read by the gate itself: a duration stated in
    what is asked ("ROA for the six months ended June 30") wins over one stated elsewhere in
    the question ("Based on the 10-Q for the second quarter, ..."); else the parser's."""
    asked = asked_phrase(question, keep_remarks=True) or ""
    return duration_of(asked, shortest_first=True) or stated_duration(question) or pq.duration


def period_reason(column: ColumnHeader, statement: str, stock: bool, pq: ParsedQuestion,
                  asked: str) -> str | None:
    """``asked``: the period length the question asks (``question_duration``)."""
    if stock:
        # a balance: on the balance sheet, or a "balance at end of year" row of the
        # statement of equity, whose columns are periods
        if column.duration is not None and statement not in ("balance_sheet", "equity"):
            return f"a balance is asked, the row is a {column.duration} flow"
    else:
        if statement == "balance_sheet":
            return "a flow over a period is asked, the row is a balance"
        if column.duration is None and asked != "12M":
            return f"the column's header states no period; {asked} asked"
        if column.duration is not None and column.duration != asked:
            return f"the column is {column.duration}, {asked} asked"
    if pq.months and column.month and not any(_months_apart(column.month, m) <= 1
                                               for m in pq.months):
        # 52/53-week years end near a month's turn (January 28 one year, February 2 the
        # next): a neighbouring month is the same period end
        return f"the column ends in {column.month}, the question names {'/'.join(pq.months)}"
    return None


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def store_period_reason(inp: dict, column: ColumnHeader) -> str | None:
    """The fact store's own reading of the column (``fingap.ingestion.table_headers``) beside
    the gate's: two readings of one header that disagree on its duration leave the period in
    doubt."""
    stored = inp.get("duration")
    if stored and column.duration and stored != column.duration:
        return f"the fact store reads its column as {stored}, the page text as {column.duration}"
    return None


def store_end_reason(inputs: list[dict], pq: ParsedQuestion) -> str | None:
    """Where the question dates its period, the latest end date the fact store read for the
    inputs must lie within a month of the latest date named (a 52/53-week year ends near a
    month's turn); earlier inputs are earlier periods by design."""
    ends = [inp["end_date"] for inp in inputs if inp.get("end_date")]
    if not ends or not pq.dates:
        return None

    def months(iso: str) -> int:
        return int(iso[:4]) * 12 + int(iso[5:7])

    latest, asked = max(ends), max(pq.dates)
    if abs(months(latest) - months(asked)) > 1:
        return f"the latest column read ends on {latest} (fact store), the question's " \
            f"period on {asked}"
    return None


def _months_apart(a: str, b: str) -> int:
    if a not in _MONTHS or b not in _MONTHS:
        return 0
    d = abs(_MONTHS.index(a) - _MONTHS.index(b))
    return min(d, 12 - d)


class MeaningGate:
    """(a)-(g) of the module docstring over one structured answer."""

    def __init__(self, store: FactStore, page_texts: dict[tuple[str, int], str],
                 vocab: Vocabulary, params: GateParams | None = None):
        self.store, self.page_texts, self.vocab = store, page_texts, vocab
        self.params = params or GateParams()
        self.matcher = LabelMatcher(self.params.matcher)
        self.glossary = Glossary(vocab, self.matcher, params=self.params.gloss) \
            if self.params.gloss else None
        self._corpus_docs: list[str] | None = None
        self._label_stems: frozenset[str] | None = None
        self.companies = store.companies()  # each document's company as the corpus names it
        self._pages: dict[tuple[str, int], list[dict]] = {}

    @property
    def label_stems(self) -> frozenset[str]:
        """The content stems of every row label the fact store holds (see (e))."""
        if self._label_stems is None:
            self._label_stems = frozenset().union(*(content_stems(label)
                                                    for label in self.store.labels()))
        return self._label_stems

    @property
    def corpus_docs(self) -> list[str]:
        """Every document of the fact store: whose companies a question may name."""
        if self._corpus_docs is None:
            self._corpus_docs = self.store.docs()
        return self._corpus_docs

    def page_rows(self, inp: dict) -> list[dict]:
        """The fact store's rows of an input's cited page, read once: every check of the
        input (label, glossary, variant, maturity, printed totals) looks at the same page."""
        key = (inp["doc"], inp["page"])
        if key not in self._pages:
            self._pages[key] = self.store.query(doc=inp["doc"], pages=[key])
        return self._pages[key]

    def apart(self, question: str, inputs: list[dict]) -> list[str]:
        """The question's aside clauses that a read row's place in its table accounts for
        (``structure_accounts``)."""
        clauses = aside_clauses(question)
        out: list[str] = []
        for inp in inputs if clauses else ():
            rows = self.page_rows(inp)
            read = next((f for f in rows if f["label_norm"] == normalise_label(inp["label"])
                         and f["year"] == inp["year"] and f["value"] == inp["value"]), None)
            out += [clause for including, clause, item in clauses if read is not None and
                    clause not in out and structure_accounts(including, item, read, rows)]
        return out

    def phrases(self, concept: str, pq: ParsedQuestion) -> list[str]:
        """The operand's phrases: the question's own words for it, and for a concept of the
        vocabulary its names there (the question reached the concept through one of them)."""
        if concept.startswith(LABEL_PREFIX):
            return [pq.labels.get(concept, concept[len(LABEL_PREFIX):].replace("_", " "))]
        c = self.vocab.concepts.get(concept)
        out = [pq.phrases[concept]] if concept in pq.phrases else []
        return out + (list(c.terms) if c and c.terms else [concept.replace("_", " ")])

    def label_score(self, concept: str, pq: ParsedQuestion, inp: dict,
                    described: float = 0.0) -> tuple[float, float]:
        """(score of the cited row, the lead of the best other line item printed on its page).
        A row's score is its label's best cosine over the operand's phrases; the lead is how
        far the best other row scores above the cited one (negative when the cited row is the
        best). A row the vocabulary reads as the cited row's own concept ("Consolidated net
        income" beside "Net income attributable to ...") is no other line item; every other
        row is, the operand's own concept included: a neighbouring row cited for it is caught
        when the right row scores better."""
        page = self.page_rows(inp)
        cited = normalise_label(inp["label"])
        own = {f["concept"] for f in page if f["label_norm"] == cited and f["concept"]}
        labels = sorted({f["label"] for f in page if f["label"] and f["label_norm"] != cited
                         and not (f["concept"] and f["concept"] in own)})

        # the company's own name in a label ("... attributable to shareowners of The Coca-Cola
        # Company") says nothing of the line item, nor does whose share it is: the variant check
        # judges that, and "equity attributable to shareowners" must not pass for "profit
        # attributable to shareowners" on the words they share
        def plain(label: str) -> str:
            words = _WHOSE_SHARE.sub("", normalise_label(label)).split()
            skip = company_positions(words, {inp["doc"]}, self.companies)
            return " ".join(w for i, w in enumerate(words) if i not in skip) or \
                normalise_label(label)

        # ... nor in the question's phrase ("ACME's proceeds from sale of businesses")
        def plain_phrase(phrase: str) -> str:
            words = _WHOSE_SHARE.sub("", normalise_phrase(phrase)).split()
            skip = company_positions(words, {inp["doc"]}, self.companies)
            return " ".join(w for i, w in enumerate(words) if i not in skip) or \
                normalise_phrase(phrase)

        phrases = [plain_phrase(x) for x in self.phrases(concept, pq)]
        # a row scores by the best of the ways the page prints it (``printed_forms``)
        forms = [printed_forms(x) for x in (inp["label"], *labels)]
        row_of = [i for i, fs in enumerate(forms) for _ in fs]
        scores = np.zeros(len(forms))
        np.maximum.at(scores, row_of, self.matcher.scores(phrases, [plain(f) for fs in forms
                                                                      for f in fs]))
        if self.glossary is not None and concept.startswith(LABEL_PREFIX):
            # a described line item ("everything it owned"): a row is also judged as what its
            # concept means; only for the question's own words, since a concept operand's
            # phrases hold the vocabulary's terms, which the glossary holds too
            concept_of = {f["label"]: f["concept"] for f in page if f["concept"]}
            concept_of[inp["label"]] = next((f["concept"] for f in page if f["label_norm"]
                                             == cited and f["concept"]), None)
            # the other rows only: the cited row passes by its meaning only when the glossary
            # reads the phrase as its concept, clearly ahead of any other (``described_as``)
            read = [self.glossary.scores(gloss_phrase(p)) for p in phrases]  # once a phrase
            meant = [0.0] + [max((r.get(concept_of[x], 0.0) for r in read), default=0.0)
                             if concept_of.get(x) else 0.0 for x in labels]
            scores = np.maximum(scores, np.array(meant))
        # a row the glossary read the phrase as is led by the others from its meaning's score
        lead = float(scores[1:].max() - max(scores[0], described)) if len(scores) > 1 else -1.0
        return float(scores[0]), lead

    def meant_phrases(self, pq: ParsedQuestion, docs: set[str]) -> list[str]:
        """The operand phrases the glossary reads, unambiguously (its margin) and surely
        (``GlossParams.explains``), as the concept the parse read them as: "cash put into new
        plant and equipment" means capex in words no label prints. A phrase read as another
        concept, or as none, explains nothing. The company's name (of ``docs``) is no part of
        what a phrase means."""
        if self.glossary is None:
            return []
        used = {c for c, _ in pq.inputs}
        out = []
        for concept, phrase in pq.phrases.items():
            if concept not in used:
                continue
            read = self.glossary.read(gloss_phrase(self.own_words(phrase, docs)))
            if read and read[0] == concept and read[1] >= self.glossary.params.explains:
                out.append(phrase)
        return out

    def own_words(self, phrase: str, inp: dict | set[str]) -> str:
        """A phrase normalised, without the company's name ("Best Buy" buys nothing) of the
        input's document (or of a set of documents)."""
        words = normalise_phrase(phrase).split()
        docs = inp if isinstance(inp, set) else {inp["doc"]}
        skip = company_positions(words, docs, self.companies)
        return " ".join(w for i, w in enumerate(words) if i not in skip)

    def without_name(self, label: str, inp: dict) -> str:
        """A label normalised without the company's name and the capitalised words that go on
        with it ("Total MGM Resorts International stockholders' equity" for "MGM Resorts":
        "total stockholders equity")."""
        tokens = [(t, normalise_phrase(t)) for t in label.split()]
        tokens = [(t, w) for t, w in tokens if w]
        words = [w for _, w in tokens]
        skip = company_positions(words, {inp["doc"]}, self.companies)
        for i in sorted(skip):
            j = i + 1
            while j < len(tokens) and j - i <= 2 and j not in skip and \
                    tokens[j][0][:1].isupper():
                skip = skip | {j}
                j += 1
        return " ".join(w for i, w in enumerate(words) if i not in skip)

    def described_as(self, concept: str, pq: ParsedQuestion, inp: dict) -> float | None:
        """For an operand the question describes in its own words: the glossary's score when it
        reads the phrase, unambiguously, as the concept the vocabulary reads the cited row as
        (``fingap.answers.glossary``: its own threshold and margin); else None."""
        if self.glossary is None or not concept.startswith(LABEL_PREFIX):
            return None
        cited = normalise_label(inp["label"])
        page = self.page_rows(inp)
        row_concept = next((f["concept"] for f in page
                            if f["label_norm"] == cited and f["concept"]), None)
        if row_concept is None:
            return None
        # as the resolver reads it
        written = pq.described.get(concept, "")
        read = read_described(self.glossary.read,
                              self.own_words(self.phrases(concept, pq)[0], inp),
                              self.own_words(written, inp) if written else "")
        return read[1] if read and read[0] == row_concept else None

    def prints_horizon(self, phrase: str, inp: dict) -> bool:
        """Whether the cited page prints the cited row's line item with the maturity the phrase
        gives ("Total current assets" beside "Total assets"); a line item that has no such
        variant on its page (receivables) is of that maturity already."""
        asked = horizon(phrase)
        cited = content_stems(normalise_label(inp["label"]))
        page = self.page_rows(inp)
        return any(horizon(f["label"]) == asked and cited <= content_stems(f["label_norm"])
                   for f in page)

    def printed_as(self, inp: dict, op: type) -> bool:
        """Whether two other line items of the cited page, in the cited row's year, combine by
        ``op`` (a sum or a difference) into the cited row's value, as a printed total is the
        sum or difference of the totals above it. Only rows the vocabulary reads as a line item
        or printed as a total take part: on a page of thirty numbers some pair of minor rows
        adds up to almost anything."""
        if op not in (ast.Add, ast.Sub):
            return False
        page = self.page_rows(inp)
        cited = normalise_label(inp["label"])
        values = sorted({f["value"] for f in page if f["year"] == inp["year"] and
                         f["label_norm"] != cited and not f.get("percent") and
                         (f["concept"] or f["label_norm"].startswith("total"))})
        target = inp["value"]
        for i, a in enumerate(values):
            for b in values[i + 1:] if op is ast.Add else values:
                got = a + b if op is ast.Add else a - b
                if abs(got - target) <= 1.0 and a != target and b != target:
                    return True
        return op is ast.Add and self.sums_rows_above(inp)

    def sums_rows_above(self, inp: dict) -> bool:
        """Whether the cited row is the sum of two or more rows printed directly above it in
        its table and column ("Total current assets" under cash, receivables, inventories ...),
        within the rounding of the rows summed: a printed subtotal of the items it totals."""
        page = self.page_rows(inp)
        cited = normalise_label(inp["label"])
        row = next((f for f in page if f["label_norm"] == cited and f["year"] == inp["year"]
                    and f["value"] == inp["value"]), None)
        if row is None:
            return False
        column = sorted((f for f in page if f["tbl"] == row["tbl"] and f["col"] == row["col"]
                         and not f.get("percent")), key=lambda f: f["id"])
        at = column.index(row)
        if at < 2:
            return False
        total = 0.0
        for k, f in enumerate(reversed(column[:at]), 1):
            total += f["value"]
            if k >= 2 and abs(total - inp["value"]) <= 0.5 * k:
                return True
        return False

    def also_named(self, concept: str, pq: ParsedQuestion) -> list[str]:
        """The concepts the question's words for a concept operand name first, before a word
        that places them in the operand's own line item ("the D&A add-back *listed among*
        operating cash flows" names D&A, read as operating cash flow), or []."""
        if concept.startswith(LABEL_PREFIX) or concept not in pq.phrases or \
                concept not in self.vocab.concepts:
            return []
        phrase = normalise_phrase(pq.phrases[concept])
        own = [m.start() for t in self.vocab.concepts[concept].terms for m in re.finditer(
            rf"(?<![a-z0-9]){re.escape(normalise_phrase(t))}s?(?![a-z0-9])", phrase)]
        if not own:
            return []
        first = min(own)
        return sorted({c for a, b, c in self.vocab.find_terms(phrase[:first])
                       if c != concept and _PLACED_IN.search(phrase[b:first])})

    def closer_variant(self, question: str, inp: dict) -> str | None:
        """Another row of the same line item on the page (the vocabulary reads it as the cited
        row's concept) whose qualifiers ("attributable to ...", "from continuing operations")
        fit the question better than the cited row's, or None."""
        page = self.page_rows(inp)
        cited = normalise_label(inp["label"])
        own = {f["concept"] for f in page if f["label_norm"] == cited and f["concept"]}
        asked = qualifiers_asked(question)
        # asked in so many words for the company's own shareholders' share, a row that is the
        # cited one with the company's name in it ("Total MGM Resorts International
        # stockholders' equity" beside "Total stockholders' equity") is that share
        named_parent = bool(_PARENT_ASKED.search(question))
        plain_cited = self.without_name(inp["label"], inp)

        def qualifiers(label: str) -> set[str]:
            out = qualifiers_of(label)
            if named_parent and self.without_name(label, inp) != normalise_phrase(label):
                out.add("parent")
            return out

        distance = len(qualifiers(inp["label"]) ^ asked)
        for f in page:
            same_item = f["concept"] in own or \
                (named_parent and self.without_name(f["label"], inp) == plain_cited)
            if same_item and f["label_norm"] != cited and \
                    f["year"] == inp["year"] and f["value"] != inp["value"] and \
                    len(qualifiers(f["label"]) ^ asked) < distance:
                return f["label"]
        return None

    def check_llm(self, answer: str, question: str, pages: Sequence[tuple[str, int]]
                  ) -> GateResult:
        return _llm_check(self, answer, question, pages)

    def check(self, question: str, pq: ParsedQuestion, inputs: list[dict], value: float,
              recomputed: float) -> GateResult:
        gate = gate_structured(inputs, self.page_texts, value, recomputed)
        checks = MeaningChecks()
        p = self.params
        duration = question_duration(question, pq)
        read: list[ColumnHeader] = []
        asked_words = {**pq.phrases, **pq.labels}     # an operand's own words in the question
        for inp in inputs:
            concept = inp["concept"]
            described = self.described_as(concept, pq, inp)
            score, lead = self.label_score(concept, pq, inp, described or 0.0)
            checks.labels[inp["name"]] = round(max(score, described or 0.0), 4)
            if score < p.label_threshold and described is None:
                checks.reasons.append(f"{inp['name']}: label {inp['label']!r} does not match "
                                      f"{self.phrases(concept, pq)[0]!r} ({score:.2f})")
            elif lead > p.label_margin:
                checks.reasons.append(f"{inp['name']}: another row on the page matches "
                                      f"{self.phrases(concept, pq)[0]!r} better (by {lead:.2f})")
            elif deducted_row(pq.described.get(concept) or self.phrases(concept, pq)[0],
                              inp["label"]):
                # "what it kept after the cost of sales" is what is left, never the cost
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is what the question "
                                      "takes away, not what is left after it")
            elif one_part_of_a_sum(pq.described.get(concept) or self.phrases(concept, pq)[0],
                                   inp["label"]):
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is one of the line "
                                      "items the question adds up, not their sum")
            elif (side := taxes_side_conflict(self.phrases(concept, pq)[0], inp["label"])):
                # "profit after all costs and taxes" and "Income before income taxes" are close
                # by meaning to a sentence embedder, yet opposite rows
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is {side[1]} taxes, "
                                      f"the question asks {side[0]}")
            elif _MINORITY_SHARE.search(inp["label"]) and \
                    (not _OTHER_PARTY_ASKED.search(question) or _PARENT_ASKED.search(question)):
                # "Net income attributable to noncontrolling interests" reads like net income
                # once whose share is set aside, yet it is the minority's share of it (and an
                # affiliate's net income is the affiliate's own)
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is another party's "
                                      "share (noncontrolling interests, affiliates), which the "
                                      "question does not ask for")
            elif _NEGATED.search(inp["label"]) and not any(
                    _NEGATED.search(x) for x in (*self.phrases(concept, pq),
                                                  pq.described.get(concept, ""))):
                # "Dividends declared and not paid" reads close to "dividends paid" by meaning
                # (a sentence embedder hardly reads a negation), yet it is what was not paid
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is negated, the "
                                      "question's words for it are not")
            elif _RESIDUAL.search(inp["label"]) and not any(
                    _RESIDUAL.search(x) for x in self.phrases(concept, pq)):
                # "Other current assets" scores close to "current assets" by meaning, yet a
                # residual line is never the line item a question names without "other"
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is a residual line "
                                      "(other ...), which the question does not ask for")
            elif (inp.get("statement") == "balance_sheet" or
                  _stock(concept, self.vocab, inp.get("statement") or "")) and \
                    (moves_money(words := self.own_words(self.phrases(concept, pq)[0], inp))
                     or charged(words)) \
                    and balance_side(pq.described.get(concept) or
                                     self.phrases(concept, pq)[0]) is None:
                # "cash spent buying plant and equipment", "the cash its operations generated",
                # "the non-cash charge for wear on its fixed assets" are flows of the period,
                # never a balance read at an instant; what it owes for goods bought on credit
                # is a balance
                checks.reasons.append(f"{inp['name']}: the question asks for money spent, paid "
                                      "or generated, or a charge of the period; "
                                      f"{inp['label']!r} is a balance")
            elif asked_words.get(concept) and horizon_reason(asked_words[concept], inp["label"]) \
                    and (concept in pq.labels or self.prints_horizon(asked_words[concept], inp)):
                # "the assets expected to turn into cash within a year" are not total assets
                checks.reasons.append(f"{inp['name']}: " +
                                      horizon_reason(asked_words[concept], inp["label"]))
            elif concept in pq.labels and horizon(inp["label"]) and \
                    horizon(asked_words.get(concept, "")) is None:
                # a line item known by its words ("its asset totals") read from the part of it
                # due within or after a year ("Total current assets"): a narrower line item
                checks.reasons.append(f"{inp['name']}: {inp['label']!r} is a part due "
                                      f"{'within' if horizon(inp['label']) == 'short' else 'after'}"
                                      " a year; the question's words give no maturity")
            elif concept in pq.labels and label_tail_reason(pq.labels[concept], inp["label"]):
                checks.reasons.append(f"{inp['name']}: " +
                                      label_tail_reason(pq.labels[concept], inp["label"]))
            elif (before := before_items_reason(asked_words.get(concept) or
                                                self.phrases(concept, pq)[0], inp["label"])):
                checks.reasons.append(f"{inp['name']}: {before}")
            elif self.also_named(concept, pq):
                # "the D&A add-back listed among operating cash flows": the words read as one
                # line item also name another, and which one is meant is left to word order
                checks.reasons.append(f"{inp['name']}: the question's words for it "
                                      f"({pq.phrases[concept]!r}) also name "
                                      f"{'/'.join(self.also_named(concept, pq))}")
            variant = self.closer_variant(question, inp)
            if variant:
                checks.reasons.append(f"{inp['name']}: the page prints {variant!r}, the variant "
                                      "of this line item the question asks for")
            text = self.page_texts.get((inp["doc"], inp["page"]), "")
            rows = row_hits(text, inp["label"], inp["value"], bool(inp.get("magnitude")))
            columns = [(row.columns[k], row.statement) for row in rows for k in row.hits
                       if row.columns[k].year == inp["year"]]
            if not columns:
                if text:
                    checks.reasons.append(f"{inp['name']}: its column's header could not be "
                                          "read from the page text")
                continue
            head = " ".join(page_items(text)[:PAGE_HEAD_LINES])
            # (the reconciliation of profit to operating cash is the cash flow statement's own)
            if _NON_GAAP_PAGE.search(reconciliation_as_source(head)) and \
                    not _ASKS_ADJUSTED.search(question):
                checks.reasons.append(f"{inp['name']}: its page reconciles adjusted (non-GAAP) "
                                      "measures, which the question does not ask for")
            found = []
            for column, statement in columns:
                stock = _stock(concept, self.vocab, statement)
                reason = period_reason(column, statement, stock, pq, duration)
                if reason is None and stock and statement == "cash_flow" and \
                        not _BALANCE_ROW.search(inp["label"]):
                    # a cash flow statement prints flows, whatever its header says: its
                    # "Inventories" row is the year's change, not the balance
                    reason = "a balance is asked, the row is on the cash flow statement (a " \
                        "change over the period)"
                home = self.vocab.concepts[concept].statement \
                    if concept in self.vocab.concepts else None
                # a row of its own statement is read even where the question names another
                # ("capex as a share of revenue, from the cash flow statement"), but not where
                # the question names the two or more it works from and this is neither
                # a row the vocabulary gives no statement (a label operand) is read from a
                # primary statement when the one statement named holds another input ("the
                # dividends from the cash flow statement, divided by the profit for common
                # shareholders"): the name belongs to that input
                named_elsewhere = home is None and len(pq.statements) == 1 and \
                    statement in PRIMARY_STATEMENTS and any(
                        o is not inp and o.get("statement") in pq.statements for o in inputs)
                if reason is None and pq.statements and statement not in pq.statements and \
                        (statement != home or len(pq.statements) > 1) and not named_elsewhere:
                    reason = f"the row sits on {statement}, the question names " + \
                        "/".join(pq.statements)
                found.append(reason)
            if None not in found:
                checks.reasons.append(f"{inp['name']}: {found[0]}")
            else:
                column, statement = columns[found.index(None)]
                read.append(column)
                reason = store_period_reason(inp, column) or (
                    dated_balance_reason(pq.dates, column)
                    if _stock(concept, self.vocab, statement) else None)
                if reason:
                    checks.reasons.append(f"{inp['name']}: {reason}")
        for reason in (period_end_reason(question, read), store_end_reason(inputs, pq),
                       leading_clause_reason(question, inputs), same_row_reason(inputs),
                       two_statements_reason(inputs),
                       named_statement_reason(pq.statements, inputs),
                       every_input_reason(question, inputs)):
            if reason:
                checks.reasons.append(reason)
        docs = {inp["doc"] for inp in inputs}
        named = companies_named(question, set(self.corpus_docs), self.companies)
        for doc in sorted(docs):
            if named and not company_keys(doc, self.companies) & named:
                checks.reasons.append(f"the inputs come from {doc}, the question asks about "
                                      f"{'/'.join(sorted(named))}")
        # "depreciation plus amortization" names the one line item the parse read, and so
        # does "earnings per share on a fully diluted basis" (the parser's reading of both)
        question = diluted_per_share(joined_terms(question, self.vocab))
        left = unexplained_words(question, pq, self.vocab, docs, self.label_stems,
                                 self.companies, [inp["label"] for inp in inputs],
                                 self.meant_phrases(pq, docs), self.apart(question, inputs))
        if left:
            checks.reasons.append("the parse does not account for: " + " ".join(left))
        per_share = {inp["name"] for inp in inputs if inp["concept"] == "eps_diluted" or
                     "per share" in inp["label"].lower()}
        for reason in (shape_reason(question, pq.unit),
                       dimension_reason(pq.expression, pq.unit, per_share),
                       weight_reason(pq.expression), repeat_reason(pq.expression),
                       repeated_term_reason(pq.expression),
                       self_difference_reason(pq.expression),
                       stated_factor_reason(question, pq.expression),
                       scale_reason(pq.expression), years_reason(question, pq, inputs),
                       average_reason(question, pq.expression),
                       between_reason(question, pq.expression),
                       annualize_reason(question, pq),
                       period_days_reason(question, pq.expression,
                                          question_duration(question, pq)),
                       arithmetic_reason(question, pq.expression,
                                         (lambda op: self.printed_as(inputs[0], op))
                                         if len(inputs) == 1 else None),
                       year_end_reason(question, pq.expression),
                       change_reason(question, pq.expression, self.vocab),
                       complement_reason(question, pq.expression),
                       plausibility_reason(pq, question, value, inputs)):
            if reason:
                checks.reasons.append(reason)
        gate.reasons += checks.reasons
        gate.passed = gate.passed and checks.passed
        gate.labels = checks.labels
        gate.confidence = round(min(checks.labels.values(), default=0.0), 4) if gate.passed \
            else 0.0
        return gate


_NOTE_NUMBER = re.compile(r"\bnote\s+(\d{1,2})\b", re.I)


def page_number_of(text: str) -> float | None:
    """The page number a page prints alone on its first or last line, if any."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines[:2] + lines[-2:]:
        if re.fullmatch(r"\d{1,3}", ln):
            return float(ln)
    return None


def _llm_check(gate: MeaningGate, answer: str, question: str,
               pages: Sequence[tuple[str, int]]) -> GateResult:
    """The LLM path's gate, for a configured LLM declared capable of figures: each number of
    the answer not copied from the question must be no year, page number or note number, and
    must be printed in a statement row of the cited pages whose label matches what the
    question asks (the same matcher and threshold as (a))."""
    from ..evaluation.answer_metrics import extract_numbers

    base = gate_text(answer, question, [gate.page_texts.get(p, "") for p in pages])
    asked = set(extract_numbers(question))
    numbers = [n for n in extract_numbers(answer) if n not in asked]
    reasons = list(base.reasons)
    asked_text = asked_phrase(question) or question
    # what is asked, and the vocabulary's names of the line items it names
    phrases = [asked_text] + [t for _, _, c in gate.vocab.find_terms(asked_text)
                              for t in gate.vocab.concepts[c].terms]
    for n in numbers:
        if float(n).is_integer() and 1900 <= n <= 2100:
            reasons.append(f"{n:g} is a year")
            continue
        texts = [gate.page_texts.get(p, "") for p in pages]
        if any(page_number_of(t) == n for t in texts):
            reasons.append(f"{n:g} is a page number")
            continue
        if any(float(m) == n for t in texts for m in _NOTE_NUMBER.findall(t)):
            reasons.append(f"{n:g} is a note number")
            continue
        rows = [f for doc, page in pages for f in gate.store.query(doc=doc, pages=[(doc, page)])
                if any(abs(abs(f["value"]) * k - abs(n)) < 1e-6 * max(1.0, abs(n))
                       for k in (1.0, 1e-3, 1e3))]
        scores = gate.matcher.scores(phrases, [f["label"] for f in rows])
        if not len(scores) or scores.max() < gate.params.label_threshold:
            reasons.append(f"{n:g} is printed in no row whose label matches the question")
    return GateResult(not reasons and bool(numbers), [], reasons, len(numbers),
                      base.n_traced, {}, 0.0)
