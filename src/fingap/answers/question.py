"""Question understanding without an LLM: metric, formula, fiscal periods, unit and rounding.

What is read from a question:
- what it asks: the phrase after "what is / how much / calculate ..." (or, in an analyst's
  shorthand without a question word, the first clause naming a metric or line item), without
  the company and the explanation that follows ("..., i.e. A / B", "using ...");
- its own definitions: "X is defined as: A / B", "Define X as A divided by B", "X, i.e. A over
  B", "X: A minus B", nested ("CCC = DIO + DSO - DPO. DIO is defined as ..."), with the names in
  parentheses that stand for them ("EBIT (income before taxes plus interest)");
- the metric, in this order: the question's own definition of what it asks; shapes around
  other operands ("change in X", "X as a % of Y", "X % margin"); a metric of the formula
  library; a single line item of the finance vocabulary (a directly extracted figure);
- fiscal years ("FY2019", "fiscal 2019", "FY19", "2019"); the target year is the latest one
  asked; "FY2017 - FY2019 3 year average" averages over each year; "how much has X changed
  between FY2021 and FY2022" is the difference; a question that dates its period ("as of July
  29, 2023") is read in calendar header years and prefers that month's column;
- the period type: a quarter ("Q2", "three months", "12 weeks") is 3M, "six months" / "first
  half" 6M, "nine months" 9M; otherwise a full fiscal year;
- the statements it points to ("cash flow statement", "balance sheet", "income statement");
- the unit and rounding: "in USD billions", "$bn", "in percent", "round to two decimal places".

A question that asks yes/no, which / why / what drove, an adjusted (non-GAAP) measure, a ratio
the parser cannot build, or whose metric or year cannot be read, is not a figure question: the
reason is recorded and the agent sends it to the LLM path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from .calculator import CalcError, names_in, parse_expression
from .formulas import Metric, expand, input_name, load_library, split_input_name
from .labels import Vocabulary, horizon, maturity_as_one_word, money_moved, normalise_phrase
from .periods import strip_period_phrases
from .resolver import content_stems

_FY = re.compile(r"\b(?:fy|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})\b|\b((?:19|20)\d{2})\b", re.I)
_MULTI_YEAR = re.compile(r"\b(\d|two|three|four|five)[- ]year\s+average", re.I)
_YEAR_RANGE = re.compile(r"(?:\bfy|\bfiscal(?:\s+year)?)?\s*'?\d{2,4}\s*(?:-|\u2013|to|through)\s*"
                         r"(?:fy|fiscal(?:\s+year)?)?\s*'?\d{2,4}\b", re.I)
# what a list of years leaves at the end of the asked phrase once its years are read
# ("..., averaged over fiscal 2016, 2017 and 2018" -> "..., averaged over , and")
_YEAR_LIST_TAIL = re.compile(r"[\s,]*(?:\b(?:averaged|on\s+average|over|for|in|across|during|"
                             r"each|of|the|(?:(?:two|three|four|five)\s+)?(?:fiscal|calendar)"
                             r"(?:\s+years?)?|(?:two|three|four|five)(?:\s+years)?|and|to|"
                             r"through)\b[\s,]*)*$", re.I)
# a dated period: month (1), day (2), year (3)
_DATE_IN_TEXT = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
                           r"(\d{1,2}),?\s+((?:19|20)\d{2})\b", re.I)
_WORD_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_DECIMALS = re.compile(r"\b(\d|zero|one|two|three|four)\s+decimal(?:\s+places?|\s+points?)?",
                       re.I)
_WHOLE = re.compile(r"nearest\s+(whole|integer|whole\s+number)|no\s+decimal", re.I)
_SCALE = re.compile(r"(?:\b(?:in|into)\s+(?:units\s+of\s+)?(?:usd|us\$|\$|dollars)?\s*|"
                    r"\b(?:usd|us)\s*|\$\s*)(thousands?|millions?|billions?|bn|mn|m|b|k)\b",
                    re.I)
_SCALE_WORDS = {"k": "thousands", "m": "millions", "mn": "millions", "b": "billions",
                "bn": "billions"}
_PERCENT = re.compile(r"percent|percentage|\bin\s+%|\bas\s+a\s+%|%\s*of\b|units\s+of\s+%", re.I)
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|did|has|have|was|were|can|could|should|will)\b",
                     re.I)
_QUARTER = [
    (re.compile(r"\bq[1-4]\b|\b(first|second|third|fourth)\s+(fiscal\s+)?quarter\b|"
                r"three\s+months|\bquarter(ly)?\b|\b(?:12|13|16|17|twelve|thirteen|sixteen)\s+weeks",
                re.I), "3M"),
    (re.compile(r"six\s+months|first\s+half|\bh1\b|\b(?:24|26|28)\s+weeks", re.I), "6M"),
    (re.compile(r"nine\s+months|\b(?:36|39|40)\s+weeks", re.I), "9M"),
]
# a period's length stated with its end ("the twelve months ended June 30, 2023", "the 52 weeks
# ended ..."): what is asked, where a quarter word may only name the document it is read from
# ("Based on the fourth-quarter results release, ...")
_STATED_LENGTH = re.compile(
    r"\b(?P<m>three|six|nine|twelve|3|6|9|12)[- ]months?\s+(?:ended|ending|through)\b|"
    r"\b(?P<w>12|13|16|24|26|28|36|39|40|52|53)[- ]weeks?\s+(?:ended|ending|through)\b", re.I)
_MONTHS_LENGTH = {"three": "3M", "3": "3M", "six": "6M", "6": "6M", "nine": "9M", "9": "9M",
                  "twelve": "12M", "12": "12M"}
_WEEKS_LENGTH = {"12": "3M", "13": "3M", "16": "3M", "24": "6M", "26": "6M", "28": "6M",
                 "36": "9M", "39": "9M", "40": "9M", "52": "12M", "53": "12M"}


def stated_duration(text: str) -> str | None:
    """The one period length the question states with its end ("twelve months ended ..."), or
    None where it states none or several."""
    found = {_MONTHS_LENGTH[m["m"].lower()] if m["m"] else _WEEKS_LENGTH[m["w"]]
             for m in _STATED_LENGTH.finditer(text)}
    return found.pop() if len(found) == 1 else None


_STATEMENT_WORDS = [
    # (also hyphenated: "the balance-sheet value", "the cash-flow statement")
    ("cash_flow", re.compile(r"cash[\s-]+flows?\s+statements?|statements?\s+of\s+cash\s+flows?",
                             re.I)),
    ("balance_sheet", re.compile(r"balance[\s-]+sheets?|statements?\s+of\s+financial\s+"
                                 r"position", re.I)),
    ("income", re.compile(r"income\s+statements?|statements?\s+of\s+(income|operations|"
                          r"earnings)|\bp&l\b|profit\s+and\s+loss", re.I)),
]
_OPERATORS = re.compile(r"(\s+-\s+|\s+minus\s+|\s+less\s+|\s+plus\s+|\s+divided\s+by\s+|"
                        r"\s+over\s+|\s+times\s+|\s+multiplied\s+by\s+|(?<=\d)\s+x\s+|\s+x\s+(?=\d)|"
                        r"[/+*\u00d7\u00f7()])",
                        re.I)
_OPERATOR_MAP = {"-": "-", "minus": "-", "less": "-", "plus": "+", "divided by": "/",
                 "over": "/", "x": "*", "times": "*", "multiplied by": "*", "/": "/", "+": "+",
                 "*": "*", "\u00d7": "*", "\u00f7": "/", "(": "(", ")": ")"}
# "give millions of US dollars", "report it in millions of dollars"
_SCALE_OF = re.compile(r"\b(thousands|millions|billions)\s+of\s+(?:us\s+|u\.s\.\s+)?"
                       r"(?:dollars|usd)\b", re.I)
# "rounded to the nearest million US dollars"
_SCALE_NEAREST = re.compile(r"\bnearest\s+(thousand|million|billion)\b", re.I)


# parse_question's reasons for a question that asks for no figure at all
NOT_FIGURE_REASONS = ("empty question", "yes/no question",
                      "asks no figure (which / why / what drove ...)")


@dataclass
class ParsedQuestion:
    figure: bool
    reason: str = ""                       # why it is not a figure question
    metric: str = ""                       # library metric, "definition", or a concept name
    expression: str = ""                   # calculator expression over input names
    inputs: list[tuple[str, int]] = field(default_factory=list)   # (concept, fiscal year)
    years: list[int] = field(default_factory=list)
    target_year: int | None = None
    duration: str = "12M"
    statements: list[str] = field(default_factory=list)
    unit: str = "usd"                      # usd | ratio | percent | days | usd_per_share
    out_scale: str | None = None           # requested scale of a usd answer
    decimals: int | None = None
    months: list[str] = field(default_factory=list)   # period-end months the question names
    # "fiscal": years are fiscal years (FY2024); "calendar": the question dates the period
    # ("as of July 29, 2023"), so years are the calendar years printed in statement headers
    year_basis: str = "fiscal"
    # inputs named by a printed label the vocabulary does not know: name -> label phrase
    labels: dict[str, str] = field(default_factory=dict)
    # calendar year of a dated period -> the fiscal year the question named for it
    fiscal_of: dict[int, int] = field(default_factory=dict)
    # vocabulary concept -> the question's words for it (see _Context.phrases)
    phrases: dict[str, str] = field(default_factory=dict)
    # period ends the question dates ("as of December 31, 2022" -> "2022-12-31"), matched
    # against the end date the fact store reads from each column's header
    dates: list[str] = field(default_factory=list)
    # inputs named by a printed label: name -> the question's own words for it, function words
    # kept ("everything the company owned"; ``labels`` holds "everything owned"): a sentence
    # embedder reads a described line item better as it was written
    described: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


_MONTH_NUMBER = {m: i + 1 for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}


# the years listed after a date share its month and day ("the years ended May 31, 2016, 2017
# and 2018")
_LISTED_YEAR = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)((?:19|20)\d{2})\b")


def dates_named(text: str) -> list[str]:
    """The dates a question names, as ISO dates: "as of July 29, 2023" -> ["2023-07-29"];
    "May 31, 2016, 2017 and 2018" -> three May 31s."""
    out = []
    for m in _DATE_IN_TEXT.finditer(text):
        if not 1 <= int(m.group(2)) <= 31:
            continue
        years, pos = [m.group(3)], m.end()
        while (listed := _LISTED_YEAR.match(text, pos)):
            years.append(listed.group(1))
            pos = listed.end()
        out += [f"{int(y):04d}-{_MONTH_NUMBER[m.group(1).lower()[:3]]:02d}-{int(m.group(2)):02d}"
                for y in years]
    return out


def fiscal_years(text: str) -> list[int]:
    years = []
    for m in _FY.finditer(text):
        raw = m.group(1) or m.group(2)
        y = int(raw) if len(raw) == 4 else 2000 + int(raw)
        if 1990 <= y <= 2040:
            years.append(y)
    return years


def _decimals(text: str) -> int | None:
    m = _DECIMALS.search(text)
    if m:
        w = m.group(1).lower()
        return int(w) if w.isdigit() else _WORD_NUMBERS[w]
    return 0 if _WHOLE.search(text) else None


def statement_name_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every statement's name in ``text`` ("balance sheet", "statement of
    cash flows", ...)."""
    return [m.span() for _, pattern in _STATEMENT_WORDS for m in pattern.finditer(text)]


# "(both from the cash flow statement)", "all three read from the balance sheet": the one
# statement every input is read from, whichever statement a line item usually lives on
_EVERY_INPUT = re.compile(r"\b(?:both|all|each)(?:\s+(?:of\s+them|two|three|four|figures?|"
                         r"amounts?|inputs?|numbers?|values?))?\s+(?:(?:taken|read|drawn|"
                         r"as\s+(?:shown|reported|printed))\s+)?(?:from|in|on|per)\s+(?:the\s+)?"
                         r"(?:company'?s\s+|its\s+)?(?P<name>[a-z -]{5,40})", re.I)


def every_input_statement(text: str) -> str | None:
    """The statement a question reads every input from ("... (both from the cash flow
    statement)"), or None."""
    for m in _EVERY_INPUT.finditer(text):
        for kind, pattern in _STATEMENT_WORDS:
            if pattern.match(m["name"]):
                return kind
    return None


def _strip_statement_names(text: str) -> str:
    for _, pattern in _STATEMENT_WORDS:
        text = pattern.sub(" ", text)
    return text


def _library_match(text: str, library: dict[str, Metric]) -> tuple[Metric, int, int] | None:
    norm = normalise_phrase(text)
    best = None
    for metric in library.values():
        for term in metric.terms:
            t = normalise_phrase(term)
            # a metric in the plural names it too ("net profit margins for 2019-2021")
            m = re.search(rf"(?<![a-z0-9]){re.escape(t)}s?(?![a-z0-9])", norm)
            if m and (best is None or len(t) > best[2] - best[1]):
                best = (metric, m.start(), m.end())
    return best


# ---------------------------------------------------------------- definitions and the asked
_DEFINE = [
    re.compile(r"(?P<name>[A-Za-z][^.?:;]{1,80}?)\s+(?:is|are)\s+(?:defined|calculated|computed)"
               r"\s+as\s*:?\s*(?P<rhs>.+?)(?=\.\s+[A-Z]|\.\s*$|\?|$)", re.S),
    # "..., with EBIT taken as income before taxes plus interest expense", "with EBITDA =
    # A + B", "EBITDA being A plus B"
    re.compile(r"\b(?:with|where)\s+(?P<name>[A-Za-z][\w&'\- ]{1,40}?)\s+(?:(?:taken|defined|"
               r"calculated|computed|measured)\s+as|=)\s+(?P<rhs>[^.?;]+)", re.I),
    re.compile(r",\s+(?P<name>[A-Za-z][\w&'\-]{1,20}(?:\s+[\w&'\-]+){0,3}?)\s+being\s+"
               r"(?P<rhs>[^.?;]*(?:\bplus\b|\bminus\b|\bless\b|\bover\b|divided\s+by|[/+])[^.?;]*)",
               re.I),
    re.compile(r"\bdefine\s+(?P<name>[^.?:;]{1,80}?)\s+as\s*:?\s*(?P<rhs>.+?)"
               r"(?=\.\s+[A-Z]|\.\s*$|\?|$)", re.I | re.S),
    # "taking operating profit as sales minus ...", "Treat EBIT as A plus B": a definition
    # given as an instruction, when its right-hand side is arithmetic
    re.compile(r"\b(?:treat(?:ing)?|tak(?:e|ing)|regard(?:ing)?)\s+(?P<name>(?!it\b|this\b|that\b)"
               r"[A-Za-z][^.?:;,()]{0,60}?)\s+as\s*:?\s*(?P<rhs>[^.?;]*?(?:\bplus\b|\bminus\b|"
               r"\bless\b|divided\s+by|\s[/+]\s)[^.?;]*)", re.I),
    # "Compute it as A divided by B", "Define this as ...": the pronoun is what is asked
    re.compile(r"\b(?:compute|calculate|define|measure|work\s+out|take|treat)\s+(?P<name>it|this|"
               r"that)\s+as\s*:?\s*(?P<rhs>.+?)(?=\.\s+[A-Z]|\.\s*$|\?|$)", re.I | re.S),
    # "X, i.e. A divided by B" / "X: A divided by B": a right-hand side with arithmetic words
    re.compile(r"(?P<name>[A-Za-z][^.?:;]{2,80}?)\s*(?::|,?\s+i\.e\.,?|,?\s+(?:taken|measured|"
               r"computed|calculated)\s+as)\s*(?P<rhs>[^.?;:]*?"
               r"(?:divided\s+by|\s/\s|\bover\b|\bminus\b|\bplus\b|\s\+\s|\bless\b|\btimes\b)"
               r"[^.?;:]*)", re.I | re.S),
]
_PRONOUNS = ("it", "this", "that")
_HOW_MANY_TIMES = re.compile(r"\bhow\s+many\s+times\b", re.I)
# money put into buying something (``Concept.spent_as``)
_SPENT = re.compile(r"\b(?:spen[dt]|spending|buy(?:ing)?|bought|purchas\w*|outlays?|"
                    r"invest(?:ed|ing)?\s+in|put\s+into|paid\s+for|pay(?:ing)?\s+for)\b")
# questions that ask for something other than a figure
_CHANGED = re.compile(r"\bchang(?:e|ed|es)\b|\bincreas(?:e|ed)\b|\bdecreas(?:e|ed)\b", re.I)
_CHANGE_OPERAND = re.compile(r"\b(?:change|increase|decrease)\s+in\b", re.I)
_FALL_VERBS = {"decrease", "decline", "fall", "shrink", "drop"}
_GROW_VERB = r"(?:grow|grew|increase|decrease|decline|rise|fall|change|climb|shrink|drop|jump)"
_NOT_FIGURE = re.compile(r"\bwhich\b|^\s*if\b|\bhow\s+much\s+(?:could|would|can|should|might)\b|"
                         r"^\s*(?:why|who|where|when|explain|describe|discuss|list|"
                         r"how\s+(?:did|does|do|has|have|is|are|was|were|would|could|can)\b)|"
                         r"\bwhat\s+(?:drove|drives|caused|causes|explains|are\s+the\s+"
                         r"(?:main|key|primary)|factors|risks)\b", re.I)
_VERB = r"(?:is|was|were|are|did|does|do|has|have|will)"
# the share of a whole ("what portion of Y was X") before the general "what ... is X", which
# would read "portion of Y" as the name of what is asked
_SHARE_WORDS = r"(?:%|percent(?:age)?|share|portion|fraction|proportion)"
_ASKED = re.compile(
    rf"\bwhat\s+{_SHARE_WORDS}\s+of\s+(?P<pct_of>[^?]+?)\s+"
    r"(?:did|does|do|was|were|is|went|goes|go|came|comes|come|consisted|consists|consist)\s+"
    r"(?P<pct_rest>[^?]+)"
    # "how much did X grow (in percent)": the growth of X, or its change in an amount
    # (its subject a few words with no "to"/"on"/"for": "how much did X spend to increase ..."
    # asks for the spending)
    rf"|\bhow\s+much\s+(?:did|has|have)\s+(?P<grew2>(?:(?!(?:to|on|for)\b)[\w&'\u2019\-]+\s+)"
    rf"{{1,8}}?{_GROW_VERB}\b[^?]*)"
    rf"|\b(?:what|how\s+(?:much|large|big|many(?=\s+(?:dollars|cents)\b)))(?P<pre>(?:\s+[\w&'\u2019,\-]+){{0,8}}?)\s+{_VERB}\s+"
    r"(?P<asked>[^?]+)"
    r"|\b(?P<how>by\s+what\s+(?:percentage|percent|%)|by\s+how\s+(?:much|many\s+dollars)|"
    r"how\s+fast|at\s+what\s+(?:compound(?:ed)?\s+)?(?:annual\s+)?(?:growth\s+)?rate)"
    r"\s+did\s+"
    r"(?P<grew>[^?]+)"
    r"|\bhow\s+many\s+times\s+(?:did|does|do|has|have)\s+[^?]*?\bturn(?:ed)?(?:\s+over)?\s+"
    r"(?P<turned>[^?]+)"
    r"|(?:^|[.:]\s*)(?:please\s+)?(?:calculate|compute|determine|find)\s+(?P<asked2>[^?.]+)",
    re.I)
# what follows these words explains the figure, it is not part of its name
# ("..., with EBITDA = A + B", "..., EBITDA being A plus B": a definition follows)
_EXPLANATION = re.compile(r"(?:,\s+[\w&'\-]+(?:\s+[\w&'\-]+){0,3}\s+being\b|,\s+with\b|"
                          r",?\s+(?:i\.e\.|(?:using|taking|based\s+on|where|defined\s+as|"
                          r"calculated\s+as|computed\s+as|compared\s+(?:with|to))\b)).*$",
                          re.I | re.S)
# ", that is, how many times its profit covered its interest", ", meaning the direct costs of
# all its revenue streams": what follows explains the line item or metric named before it;
# one that adds or subtracts ("X, meaning A plus B minus C") is read as arithmetic instead
_MEANING = re.compile(r",\s+(?:that\s+is,?|meaning)\s(?P<rest>.*)$", re.I | re.S)
_ADDS_OR_SUBTRACTS = re.compile(r"\b(?:plus|minus|less|subtract\w*|deduct\w*|add\w*)\b|"
                                r"\s[+-]\s", re.I)


def _without_meaning(phrase: str) -> str:
    m = _MEANING.search(phrase)
    return phrase[:m.start()] if m and not _ADDS_OR_SUBTRACTS.search(m["rest"]) else phrase
_TAKEN_AS = re.compile(r",\s+(?:taken|measured|read)\s+as\s+[^,?]*(?:,|(?=\?)|$)", re.I)
# "net income/(loss)", "provision/(benefit) for taxes": the alternate names one line item
_ALTERNATE = re.compile(r"(?<=[A-Za-z])/\s*\([a-z ]{1,20}\)", re.I)
# adjusted / non-GAAP measures are not on the statements: the structured path leaves them alone
_ADJUSTED = re.compile(r"(?<!un)adjusted|non-gaap|organic|pro\s+forma", re.I)
# (not the "A" of "D&A" or "R&D": a letter after "&" is an abbreviation's, also once "&" is
# written "and": "d and a")
_FILLER = re.compile(r"(?<!&)(?<!\b[a-z]\sand\s)\b(?:unadjusted|reported|gaap|amount|figure|"
                     r"value|year[- ]end|the|a|an|its|their|in\s+usd\s+\w+|"
                     r"in\s+units?\s+of\s+\w+)\b", re.I)
_MARGIN = re.compile(r"^(?P<x>.+?)\s*(?:%\s*)?margin$")
_AS_PERCENT_OF = re.compile(r"^(?P<x>.+?)\s+as\s+(?:a\s+)?(?:%|percent|percentage|share|"
                            r"proportion|fraction|portion)\s+of\s+"
                            r"(?P<y>.+)$")
# "debt-to-equity ratio", "capex to revenue ratio": X / Y
_TO_RATIO = re.compile(r"^(?P<x>.+?)\s+to\s+(?P<y>.+?)\s+ratio$")
# "the ratio of X to Y", "X's ratio of A to B": X / Y (the " to " is found by trying each one)
_RATIO_OF = re.compile(r"^(?:.*?\s)?ratio\s+of\s+(?P<xy>.+\s+to\s+.+)$")
# "capex relative to revenue", "debt in relation to equity", "cash from operations as a
# multiple of current liabilities": X / Y
_RELATIVE_TO = re.compile(r"^(?P<x>.+?)\s+(?:relative\s+to|in\s+relation\s+to|(?:expressed\s+)?"
                          r"as\s+(?:a\s+)?multiples?\s+of)\s+(?P<y>.+)$")
# "(how many dollars of) sales per dollar of assets": X / Y
_PER_DOLLAR = re.compile(r"^(?:how\s+many\s+dollars\s+of\s+|dollars\s+of\s+)?(?P<x>.+?)\s+"
                         r"(?:per|each|every)\s+dollar\s+of\s+(?P<y>.+)$")
# "the change in X", also after words that only say over which period or that it is the net
# change ("the year's change in inventory", "the 2016-to-2017 change in ...", its years already
# taken out): the difference of two balances, never a growth rate
# ("year-over-year change" stays a growth rate, as it is usually asked in percent)
_CHANGE_IN = re.compile(r"^(?:(?:years?|net|period|periods|to|its|the)\s+)*(?:change|increase)"
                        r"\s+in\s+(?P<x>.+)$")
_DAYS = re.compile(r"\bin\s+days\b|\bdays\s*[,.]?\s*(?:one|two|zero|\d)\s+decimal|"
                   r"\bdays\s*[?.]?\s*$|\bdays\s+(?:sales|inventory|payables?)\b|"
                   r"\b(?:dso|dio|dpo)\b|conversion\s+cycle", re.I)
# (word-bounded: "operations" holds no ratio)
_RATIO_WORDS = re.compile(r"%|percent|margin|\bratios?\b|\brate\b|cagr|turnover|\bdays\b|growth|"
                          r"\bchange\b|\breturn\s+on\b|\byield\b|"
                          # "per share" is a rate; "per the balance sheet" names a source
                          # (a phrase may end at "per" once the statement's name is gone)
                          r"\bper\b(?!\s+(?:the|its|their|this|that|these|those)\b|\s*$)", re.I)
_DEPTH = 4


# an instruction sentence that divides, which defines what is asked ("Take the profit ... and
# divide it by the average of ...", "Use A divided by B", "Divide A by B"; "Double A and
# divide it by B" annualizes a half year's A)
_DIVIDE_INSTRUCTION = [
    re.compile(r"(?:^|[.?!:]\s+)(?P<verb>take|use|using|taking|double)\s+(?P<a>[^.?;]+?)"
               r"(?:,\s*|\s+)(?:and\s+|then\s+)*divide\s+(?:(?:it|that|this|the\s+result)\s+)?by\s+"
               r"(?P<b>[^.?;]+)", re.I),
    re.compile(r"(?:^|[.?!:]\s+)(?P<verb>use|take|using|taking)\s+(?P<a>[^.?;]+?),?\s+divided\s+by\s+"
               r"(?P<b>[^.?;]+)", re.I),
    # ("For ACME, divide A by B", "Using its balance sheet and cash flow statement, divide A
    # by B": an opening clause that says for whom or from where)
    re.compile(r"(?:^|[.?!:]\s+)(?:(?:for|using|working|relying|drawing|based|going|reading|"
               r"from|per|according)\b[^,.?;]{1,100},\s+)?(?P<verb>divide)\s+(?P<a>[^.?;]+?)\s+"
               r"by\s+(?P<b>[^.?;]+)", re.I),
]
# "..., and multiply by 365" after a division: a factor of the whole
_THEN_MULTIPLY = re.compile(r",?\s+(?:and\s+)?(?:then\s+)?multipl(?:y|ied)\s+(?:it\s+|that\s+|"
                            r"the\s+result\s+)?by\s+(?P<n>\d+(?:\.\d+)?)\b(?:\s+days\b)?", re.I)


# how the instruction goes on after its division: where to read, how to round or report
_INSTRUCTION_TAIL = re.compile(r",\s+(?:what|how)\b.*$|"
                               r",?\s+(?:and\s+)?(?:using|relying|drawing|based|working|going|"
                               r"round(?:ed|ing)?|answer(?:ing)?|express(?:ing)?(?!"
                               r"\s+(?:it|that|this|the\s+\w+)\s+as\s+(?:a\s+)?(?:percent|share|"
                               r"fraction|proportion))|give|giving|"
                               r"report(?:ing)?|stat(?:e|ing)|show(?:ing)?)\b.*$", re.I | re.S)


# a division done "for each of" the years listed and then averaged ("For each of fiscal 2018,
# 2019 and 2020, divide A by B, then average the three results")
# (a year may be given by its closing date: "fiscal years ended January 31, 2015, January 30,
# 2016 and January 28, 2017")
_LISTED_END = (r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+"
               r"|fy\s*)?(?:19|20)\d{2}")
_YEAR_LIST = (rf"{_LISTED_END}(?:\s*,\s*(?:and\s+)?{_LISTED_END}|\s+and\s+{_LISTED_END})+")
_FOR_EACH = re.compile(rf",?\s*\bfor\s+each\s+of\s+(?:[\w'\u2019]+\s+){{0,5}}?"
                       rf"(?P<years>{_YEAR_LIST})", re.I)
_THEN_AVERAGE = re.compile(r",?\s+(?:and\s+)?(?:then\s+)?(?:average|take\s+the\s+(?:simple\s+)?"
                           r"(?:mean|average)\s+of)\s+(?:the|those|these|all)\s+(?:two|three|four|"
                           r"five|\d+)\b[^.?;]*", re.I)


def _each_then_averaged(text: str) -> tuple[str, str | None]:
    """The text without its "for each of <years>" and "then average the three" phrases, and
    those years, when it has both; else the text and None."""
    each, average = _FOR_EACH.search(text), _THEN_AVERAGE.search(text)
    if each is None or average is None:
        return text, None
    for m in sorted((each, average), key=lambda m: -m.start()):
        text = text[:m.start()] + (" " if m is each else "") + text[m.end():]
    # (a sentence the years opened starts at its next word: "For each of A, B and C, divide")
    # a year given by its closing date is named as the parser names it (``date_the_periods``:
    # a 52/53-week year ending in the first days of January is the year before)
    years = _DATE_IN_TEXT.sub(lambda m: str(int(m[3]) - 1) if m[1].lower() == "jan" and
                              int(m[2]) <= 7 else m[3], each["years"])
    return re.sub(r"(^|[.?!:]\s+)[\s,]*([a-z])", lambda m: m[1] + m[2].upper(), text), years


# "generated by", "held by": a "by" after a participle says who, it does not divide
_AGENT_BY = re.compile(r"(?:ed|held|brought|paid|made|spent|kept|taken|given|done|owned|won)$",
                       re.I)


def _split_at_divisor(a: str, b: str) -> tuple[str, str]:
    """"divide the cash generated by operations by its current liabilities": the dividend and
    divisor at the first "by" that does not follow a participle (the instruction's patterns
    split at the first "by")."""
    while _AGENT_BY.search(a.rstrip()) and " by " in f" {b} ":
        head, _, rest = b.partition(" by ")
        if not rest:
            break
        a, b = f"{a} by {head}", rest
    return a, b


def division_as_question(text: str) -> str | None:
    """The question with the division its instruction spells out asked first ("What return
    did ACME earn on its assets? Take the profit ... and divide it by the average of ..." ->
    "What is the profit ... divided by the average of ...? What return did ..."), for a
    question whose own words name a figure the parser cannot build; None without such an
    instruction. A division done for each of a list of years and then averaged is asked
    averaged over them."""
    text, each = _each_then_averaged(text)
    for pattern in _DIVIDE_INSTRUCTION:
        m = pattern.search(text)
        if m:
            a, b = _split_at_divisor(m["a"], m["b"])
            a = f"{a.strip()} times 2" if m["verb"].lower() == "double" else a.strip()
            factor = _THEN_MULTIPLY.search(b)
            b = _INSTRUCTION_TAIL.sub("", _THEN_MULTIPLY.sub("", b)).strip(" ,")
            a = a.strip(" ,")
            # (no parentheses: the asked phrase is read without them; after the comma the
            # divisor is all that follows, ``_DIVIDED_AFTER_COMMA``)
            asked = f"{factor['n']} times {a}, divided by {b}" if factor else \
                f"{a}, divided by {b}"
            if each:
                asked += f", averaged over {each}"
            rest = (text[:m.start()] + text[m.end():].lstrip("?")).strip()
            return f"What is {asked}? {rest}"
    return None


def definitions(text: str) -> dict[str, str]:
    """The question's own definitions: normalised name -> right-hand side, first one first."""
    out: dict[str, str] = {}
    for pattern in _DEFINE:
        for m in pattern.finditer(text):
            name = normalise_phrase(_clean(_FY.sub(" ", _ALTERNATE.sub("", m["name"]))))
            name = re.sub(r"^(?:we|you|let us|please|with|and|where)\s+", "", name).strip()
            name = " ".join(w for w in name.split() if w not in {"the", "a", "an"})
            rhs = re.sub(r"\[[^\]]*\]", " ", _ALTERNATE.sub("", m["rhs"]))  # "[from ...]"
            # an explanation follows, or a nested definition ("..., with EBIT taken as ...")
            rhs = re.sub(r",?\s+(?:where|with)\b.*$", "", rhs, flags=re.S)
            # "..., and round to two decimal places": how to report it, no operand; "... and
            # dividing by sales": the next step of the computation, not part of the definition
            rhs = _INSTRUCTION_TAIL.sub("", rhs)
            rhs = re.sub(r",?\s+and\s+(?:then\s+)?(?:dividing|divide|multiplying|multiply|"
                         r"expressing|express)\b.*$", "", rhs, flags=re.S | re.I)
            rhs = re.sub(r",\s+i$", "", rhs.strip())      # "i.e." cut at its first full stop
            if name and name not in out:
                out[name] = rhs
    return out


# an instruction that carries what is computed: "..., compute its net profit as a share of
# sales for each of 2015-2017 and average the three. What is the average?"
_INSTRUCTION = re.compile(r"(?:^|[.:;,?]\s+|\bthen\s+)(?:please\s+)?(?:calculate|compute|"
                          r"determine|find|take|work\s+out|use|start\s+(?:from|with))\s+"
                          r"(?P<x>[^?;]+?)(?=[?;]|\.(?!\d)|$)", re.I)
# what a question sentence that refers back to its instruction is left with (what is left,
# the result, that ratio), with its unit and rounding
_BACK_WORDS = re.compile(r"\b(?:the|that|this|its|it|resulting|result|figure|number|value|"
                         r"simple|overall|average|mean|three|two|four|five|year|years|"
                         r"in|percent|percentage|as|a|to|one|two|decimal|decimals|places?|"
                         r"rounded|round|ratio|multiple|left|remains|remaining|of|us|usd|"
                         r"dollars|millions?|billions?|thousands?|hundredths?|nearest|whole)\b|"
                         r"\d|[-,%()]", re.I)
# instruction verbs that add or take away the next operand ("take A, add back B, then subtract
# C"); "subtract C from it" names the operand it is taken from, so only the verb is read
_ADD_VERB = re.compile(r",?\s+(?:and\s+)?(?:then\s+)?add(?:\s+back)?\s+", re.I)
_SUBTRACT_VERB = re.compile(r",?\s+(?:and\s+)?(?:then\s+)?(?:subtract|deduct)\s+(?P<x>[^,;]+?)"
                            r"(?:\s+from\s+(?:it|that|this|the\s+(?:result|total|sum)))?"
                            r"(?=[,;.]|$)", re.I)
# "..., and express that as a percentage of revenue": the steps so far over a whole (read as
# the parser reads "A plus B, as a percentage of C"); how to express it is no tail to drop
_EXPRESS_AS = re.compile(r",?\s+(?:and\s+)?(?:then\s+)?express(?:ing)?\s+(?:it|that|this|"
                         r"the\s+\w+)\s+as\s+(?:a\s+)?(?P<s>percentage|percent|share|fraction|"
                         r"proportion)\s+of\b", re.I)
# an operation on the result in what an instruction's tail would drop
_DROPPED_OPERATION = re.compile(r"\b(?:divid(?:e|ed|ing)|multipl(?:y|ied|ying)|"
                                r"as\s+a\s+(?:percent(?:age)?|share|fraction|proportion)\s+of|"
                                r"subtract(?:ed|ing)?|minus|plus|add(?:ed|ing)?\s+(?:back|to))\b",
                                re.I)
# "..., to get unadjusted EBITDA": the name of what the steps so far give
_TO_GET = re.compile(r"\s+to\s+(?:get|arrive\s+at|obtain|reach)\s+[^,;]+", re.I)


def _imperatives(text: str) -> str:
    """Instruction verbs as the operators they stand for."""
    text = _TO_GET.sub("", text)
    text = _EXPRESS_AS.sub(lambda m: f", as a {m['s']} of", text)
    text = _SUBTRACT_VERB.sub(lambda m: f" minus {m['x']}", text)
    return _ADD_VERB.sub(" plus ", text)


def _only_back_words(words: str) -> bool:
    """Whether the words name nothing but what an instruction produced, with its unit and
    rounding ("the result, in millions of US dollars", "that ratio")."""
    return not _BACK_WORDS.sub(" ", normalise_phrase(words)).strip()


def refers_back(text: str) -> bool:
    """Whether the question sentence names nothing but what an instruction produced ("What is
    the result, in millions of US dollars?", "What is that ratio?")."""
    asked = asked_phrase(text)
    return asked is not None and _only_back_words(asked)


_BRACKETED_DIVISION = re.compile(r"(?P<op>\b(?:minus|plus|times|less)\s+|[-+*]\s*)\("
                                 r"(?P<a>[^()/]+?)\s*(?:/|\bdivided\s+by\b)\s*(?P<b>[^()/]+)\)",
                                 re.I)


def instruction_as_question(text: str, unread: bool = False) -> str | None:
    """The question with its instruction asked ("..., compute X for each of A, B and C and
    average the three. What is the average ...?" -> "What is X for each of A, B and C and
    average the three? ... What is the average ...?"), when the question sentence itself names
    nothing but what the instruction produced ("the average", "that ratio"); else None.
    ``unread``: the question sentence names a figure the parser could not build ("What
    fraction of its profit did it keep? Compute one minus A over B"), so an instruction after
    it that spells out arithmetic is asked, as for a sentence the parser cannot read at all."""
    asked = asked_phrase(text)
    question_at = text.find("?")
    if asked is None or unread:
        # a question sentence the parser cannot read at all ("how many days did it take to
        # pay its suppliers?"), followed by an instruction that spells out the arithmetic
        m = next((m for m in _INSTRUCTION.finditer(text) if m.start() >= question_at >= 0
                  and _ARITHMETIC.search(m["x"])), None)
    elif not _only_back_words(asked):
        return None
    else:
        m = next((m for m in _INSTRUCTION.finditer(text)
                  if question_at < 0 or m.start() < question_at), None)
    if m is None:
        return None
    if (x := _instruction_arithmetic(m["x"])) is None:
        return None
    # "1 minus (A / B)": a bracketed division after an operator, which the parser would read
    # as an aside (as it reads "a margin (A divided by B)"), as the ratio it groups
    x = _BRACKETED_DIVISION.sub(
        lambda d: f"{d['op']}the ratio of {d['a'].strip()} to {d['b'].strip()}", x)
    if unread and asked is not None:
        # the question as written follows whole: how the instruction says to report the figure
        # ("..., and answer in percent") is part of what is asked
        return f"What is {x}? {text}"
    return f"What is {x}? " + text[:m.start()].strip() + " " + text[m.end():].lstrip(". ")


_LEAD_THEN_PRONOUN = re.compile(r"^(?P<lead>[^:?;]{3,80}?):\s+(?P<rest>.+)$", re.S)
_SUBJECT_PRONOUN = re.compile(r"\b(?:did|does|do|has|have|was|were|is|are)\s+(?P<p>it|they)\b",
                              re.I)


def lead_as_subject(text: str) -> str | None:
    """The question with its pronoun subject replaced by the line item named before its colon
    ("Amazon's top line: how much did it grow from 2016 to 2017?" -> "how much did Amazon's
    top line grow from 2016 to 2017?"); None when the words before the colon only frame the
    question (a role, a source, a date) or no "it"/"they" is the subject of its question."""
    m = _LEAD_THEN_PRONOUN.match(text.strip())
    if not m or _framing(m["lead"]):
        return None
    p = _SUBJECT_PRONOUN.search(m["rest"])
    if p is None or p.start() > m["rest"].find("?") >= 0:
        return None
    lead = m["lead"].strip()
    return m["rest"][:p.start("p")] + lead + m["rest"][p.end("p"):]


def named_or_defined_as_question(text: str) -> str | None:
    """The question asked by what it defines or names, when its question sentence cannot be
    read as a figure ("how many days of purchases did it leave unpaid, computed as A divided by
    B, times 365?" -> "What is A divided by B, times 365? ..."; "how many days of sales did
    those receivables represent (days sales outstanding)?" -> "What is the days sales
    outstanding? ..."): the question's own arithmetic definition first, else a remark in
    parentheses that names a library metric whole. None without either."""
    defs = definitions(text)
    rhs = next((r for r in defs.values() if _ARITHMETIC.search(r)), None)
    if rhs:
        return f"What is {rhs.strip(' ,')}? {text}"
    library = load_library()
    question_at = text.find("?")
    for m in re.finditer(r"\(([^()]{2,60})\)", text):
        if 0 <= question_at < m.start():
            break
        remark = normalise_phrase(m[1])
        found = _library_match(remark, library)
        if found and found[1] == 0 and found[2] >= len(remark.rstrip("s")):
            return f"What is the {m[1].strip()}? {text[:m.start()]}{text[m.end():]}"
    return None


def _instruction_arithmetic(words: str) -> str | None:
    """An instruction's words as arithmetic: how it goes on dropped, its verbs as operators,
    and after a metric's name ("compute DPO as 365 x (...) / (...)") only the arithmetic
    ("earnings from operations as reported plus ..." names no metric). None when what would be
    dropped as how it goes on still operates on the result ("..., giving X; divide that by
    Y"): the arithmetic read would be only part of what is asked."""
    kept = _INSTRUCTION_TAIL.sub("", words)
    if _DROPPED_OPERATION.search(words[len(kept):]):
        return None
    x = _imperatives(kept.strip(" ,"))
    named = re.match(r"(?P<name>[^,()]{1,60}?)\s+as\s+(?P<rhs>.+)$", x, re.S)
    if named and _ARITHMETIC.search(named["rhs"]) and not _ARITHMETIC.search(named["name"]) \
            and _library_match(normalise_phrase(named["name"]), load_library()):
        x = named["rhs"]
    return x


# "what share of its sales was left after subtracting what it cost to make the products", "...
# of its revenue remained after deducting ...": the whole less the part, as a share of the whole
# (a comma within a list, "its subscriptions, products and services", ends no part)
_LEFT_AFTER = re.compile(
    r"\b(?P<ask>what|which)\s+(?:share|percentage|percent|portion|fraction|proportion)\s+of\s+"
    r"(?P<y>[^?.;]+?)\s+(?:was|were|is|are|did\s+\S+\s+(?:keep|retain)|remain(?:ed|s)?)\s*"
    r"(?:left(?:\s+over)?|remaining|kept|retained)?\s+(?:after|once)\s+"
    r"(?:(?:subtracting|deducting|paying(?:\s+for)?|covering|removing|taking\s+away|"
    r"meeting)\s+)?(?P<x>[^?.;(]+?)(?=\s*[?.;(]|\s*,\s(?!(?:[\w-]+\s+){0,3}and\s)|\s+(?:during|over|in|for)\s+(?:the\s+)?(?:fiscal|"
    r"calendar|six|three|nine|twelve|first|second|third|fourth|year|quarter|(?:19|20)\d\d)\b|$)",
    re.I)


def left_after_as_question(text: str) -> str | None:
    """"What share of its sales was left after subtracting the cost of the products it sold?"
    asked as "what was its sales minus the cost of the products it sold, as a percentage of
    its sales?"; None when the question has no such clause. (A share of a whole left after a
    part is the whole less the part over the whole; the parser otherwise reads the part's
    share.)"""
    m = _LEFT_AFTER.search(text)
    if m is None or not m["x"].strip():
        return None
    y, x = m["y"].strip(), m["x"].strip()
    return f"{text[:m.start()]}{m['ask']} was {y} minus {x}, as a percentage of {y}" \
        f"{text[m.end():]}"


# "how many times (over) did X cover Y": the ratio of X to Y, a coverage asked with a verb
_TIMES_COVERED = re.compile(
    r"\bhow\s+many\s+times(?:\s+over)?\s+(?:did|does|do|could|would|can|has|have|was|were|is)\s+"
    r"(?P<x>[^?]+?)\s+(?:have\s+|has\s+|be\s+)?(?:cover(?:ed|s)?|pa(?:y|id|ys)(?:\s+for)?|"
    r"meet|met|service[ds]?)\s+(?P<y>[^?]+)", re.I)


def times_covered_as_ratio(text: str) -> str | None:
    """"How many times over did the cash its operations generated cover its short-term
    obligations?" asked as "what was the ratio of the cash its operations generated to its
    short-term obligations?"; None when the question has no such clause."""
    m = _TIMES_COVERED.search(text)
    if m is None:
        return None
    return f"{text[:m.start()]}what was the ratio of {m['x'].strip()} to {m['y'].strip()}" \
        f"{text[m.end():]}"


def maturity_variant(concept: str, phrase: str, vocab: Vocabulary) -> str | None:
    """The vocabulary's line item of the maturity a phrase states, for a concept that has none
    ("assets expected to turn into cash within a year" read as total assets -> total current
    assets; "obligations due within twelve months" as total liabilities -> total current
    liabilities; ``Vocabulary.maturity_variant``). None when the phrase states no maturity or
    the concept has one."""
    asked = horizon(phrase)
    return vocab.maturity_variant(concept, asked) if asked else None


def with_stated_maturity(pq: ParsedQuestion, vocab: Vocabulary) -> ParsedQuestion:
    """The parse with each operand whose words state a maturity its concept lacks read as the
    line item of that maturity (``maturity_variant``)."""
    swap = {c: v for c, phrase in pq.phrases.items()
            if (v := maturity_variant(c, phrase, vocab))}
    if not swap:
        return pq
    expression = pq.expression
    for c, v in swap.items():
        expression = re.sub(rf"\b{re.escape(c)}__fy", f"{v}__fy", expression)
    return replace(pq, expression=expression,
                   inputs=[(swap.get(c, c), y) for c, y in pq.inputs],
                   phrases={swap.get(c, c): p for c, p in pq.phrases.items()},
                   metric=swap.get(pq.metric, pq.metric))


_PART_AS = re.compile(r"\b(?:hand(?:ed)?\s+back|pa(?:y|id)\s+out|distribut\w*|return(?:ed)?)\b"
                      r".*\bas\s+(?!(?:reported|stated|shown|printed|disclosed|a|an)\b)"
                      r"(?P<x>[^,]+)", re.I)


def asked_phrase(text: str, keep_remarks: bool = False) -> str | None:
    """What the question asks for: "what is the FY2019 fixed asset turnover ratio for Foo?" ->
    "FY2019 fixed asset turnover ratio"; None when the question asks no "what is / how much /
    calculate" (a "which", "why" or "what drove" question)."""
    # "How much (in USD billions) did ..." reads past the parenthesis; remarks are kept on
    # request, where they name the metric ("What is the FY2019 DPO (days payable ...)?")
    text = _ALTERNATE.sub("", text)
    m = (keep_remarks and _ASKED.search(text)) or _ASKED.search(re.sub(r"\([^()]*\)", " ", text))
    if not m:
        return None
    if m["pct_of"]:
        # "what % of net revenues did X keep as gross profit" -> "gross profit as a % of ...";
        # "what portion of sales was absorbed by COGS" -> "COGS as a % of sales"
        # "what portion of revenue came from services (rather than from products)": the part
        # is what follows the preposition, up to a contrast, which names another part
        # ("what share of its obligations consisted of amounts owed to suppliers": the part
        # is what it consisted of)
        # ("what share of its profit did X hand back to its owners as cash dividends": the
        # part is what the share went out as, after the last "as" that is no "as reported")
        part = re.match(r"of\s+(?P<x>.+)$", m["pct_rest"]) or _PART_AS.search(
            m["pct_rest"]) or re.search(
            r"\b(?:as|on|for|in|by|to|into|through|from)\s+(?P<x>.+)$", m["pct_rest"])
        x = re.sub(r",?\s+rather\s+than\b.*$", "", part["x"] if part else m["pct_rest"])
        x = _EXPLANATION.sub("", x) or x
        phrase = f"{x} as a % of {m['pct_of']}"
    elif m["grew"] or m["grew2"]:
        # "By what percentage did net income grow in ...", "how fast did X grow" ask for the
        # growth of X; "by how much did X rise" in an amount asks for the change
        grew, how = (m["grew"], m["how"]) if m["grew"] else (m["grew2"], "by how much")
        amount = how.lower().startswith("by how") and not _PERCENT.search(text)
        verb = re.search(rf"\b{_GROW_VERB}\b", grew)
        item = grew[:verb.start()] + " " + grew[verb.end():] if verb else grew
        # the amount: X's difference between the years named (the "changed" form below); "by
        # how much did X shrink" asks for the size of the fall ("decreased")
        fell = verb is not None and verb[0].lower() in _FALL_VERBS
        # "at what compound annual rate did X grow": X's compound annual growth rate
        rate = "compound annual growth rate" if "compound" in how.lower() else "growth"
        phrase = f"{item} {'decreased' if fell else 'changed'}" if amount else \
            f"{rate} in {item}"
    elif m["turned"]:
        # "how many times did X turn (over) its inventory in 2022" asks for inventory turnover
        item = re.split(r"\s+(?:in|for|during|over|across)\s+|,", m["turned"], maxsplit=1)[0]
        phrase = f"{item} turnover{m['turned'][len(item):]}"
    else:
        phrase = m["asked"] or m["asked2"]
        if m["pre"] and m["pre"].strip():
            # "how much of Foo's borrowings was due after a year": the borrowings so due
            phrase = re.sub(r"^of\s+", "", m["pre"].strip()) + " " + phrase
    # "capex, taken as payments for PP&E, as a % of revenue": the aside ends at its comma
    phrase = _TAKEN_AS.sub(" ", phrase)
    phrase = _without_meaning(phrase)
    phrase = _EXPLANATION.sub("", phrase)
    # the company ("for 3M", "for Activision Blizzard") and possessives carry no metric; a
    # year is no company ("to the end of 2022" dates the change)
    phrase = re.sub(r"\s+(?:for|of|at|by)\s+(?:(?!(?i:fy)?\s*(?:19|20)\d\d\b)"
                    r"[A-Z0-9][\w&.\-']*\s*)+(?:\([^)]*\)\s*)?$", "", phrase.strip())
    phrase = re.sub(r"^(?:[A-Z][\w&.\-]*\s+)*[A-Z][\w&.\-]*['\u2019]s\s+", "", phrase)
    if keep_remarks:
        return phrase
    # parenthetical remarks ("(in USD millions)", "(unadjusted EBITDA)") are no arithmetic
    return re.sub(r"\((?![^()]*(?:[/+*]|\s-\s))[^()]*\)", " ", phrase)


@dataclass
class _Context:
    target: int
    vocab: Vocabulary
    library: dict[str, Metric]
    defs: dict[str, str]
    depth: int = 0
    # a line item the vocabulary does not know is looked up by its printed label ("cost of
    # services", by the resolver); the names found go into ``labels`` (name -> label phrase)
    labels: dict[str, str] = field(default_factory=dict)
    # ... and their words as written, function words kept (``ParsedQuestion.described``)
    described: dict[str, str] = field(default_factory=dict)
    # concept -> the words the question names it with ("net income attributable to Foo plc"):
    # the agent prefers the printed row those words describe best
    phrases: dict[str, str] = field(default_factory=dict)
    # the earlier of two years the question compares ("from 2016 to 2018"): what growth and
    # change measure from
    base_year: int | None = None
    # the words that spell the company ("cvs health owe its trade suppliers"): never part of a
    # line item's printed name
    company_words: frozenset[str] = frozenset()

    def earlier(self, year: int) -> int | None:
        """The year a change to ``year`` is measured from, when the question names one."""
        return self.base_year if self.base_year is not None and self.base_year < year else None


def _clean(text: str) -> str:
    text = _strip_statement_names(text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    return " ".join(_FILLER.sub(" ", text).split())


_DAY_COUNT = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*days?", re.I)
# the date an operand's phrase ends on, its year already taken out ("... ratio as of december
# 31", "... at the end of"): when, never what (the question's dates are read elsewhere)
_DATE_TAIL = re.compile(r"\s+(?:as\s+of|at|on)\s+(?:(?:the\s+)?(?:end|close)(?:\s+of)?"
                        r"(?:\s+(?:the|its))?(?:\s+(?:fiscal|calendar))?(?:\s+year)?|"
                        r"(?:fiscal\s+)?year\s+end|"
                        r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2})$")


def _operand(phrase: str, ctx: _Context) -> tuple[str, str]:
    """One operand as (calculator sub-expression, unit)."""
    text = phrase.strip(" ,.:;")
    # a day count ("multiplied by 182 days") is its number
    if days := _DAY_COUNT.fullmatch(text):
        text = days[1]
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return text, "number"
    years = sorted(set(fiscal_years(text)))
    year = years[-1] if years else ctx.target
    norm = normalise_phrase(_clean(_FY.sub(" ", text)))
    norm = re.sub(r"(?:\s+(?:between|from|to|and|of|in|for))+\s*$", "", " " + norm).strip()
    norm = _DATE_TAIL.sub("", norm)
    averaged = re.search(r"\b(?:average|avg|mean)\b", norm) is not None
    norm = re.sub(r"\b(?:average|avg|mean)\b|\bbetween\b.*$", " ", norm).strip()
    norm = " ".join(norm.split())
    if not norm:
        raise CalcError(f"no line item recognised in {phrase.strip()!r}")
    sub = _deeper(ctx, year)
    if ctx.depth < _DEPTH:
        # 1. the question's own definition of exactly this name ("DPO is defined as ...")
        if norm in ctx.defs:
            try:
                return _parenthesised(_expression(ctx.defs[norm], sub))
            except CalcError:
                pass  # "Calculate X using A and B" is no formula: read X otherwise
        # 2. shapes around other operands: "change in X", "X as a % of Y", "X % margin"
        for shape in (_shape_change, _shape_percent_of, _shape_margin, _shape_ratio):
            try:
                found = shape(norm, years, year, ctx)
            except CalcError:
                found = None
            if found:
                return found
        # 3. a definition whose name is part of the phrase, longest name first
        for name in sorted(ctx.defs, key=len, reverse=True):
            # (not when the phrase is a metric the library builds from it: "EBITDA margin on
            # an unadjusted basis" with EBITDA defined is a margin, not EBITDA)
            if len(name) > 3 and re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])",
                                           norm) and not (
                    _RATIO_WORDS.search(re.sub(r"%|\bpercent(?:age)?\b", " ",
                                               norm.replace(name, " ")))
                    and _library_match(norm, ctx.library)):
                try:
                    return _parenthesised(_expression(ctx.defs[name], sub))
                except CalcError:
                    break
    lib = _library_match(norm, ctx.library)
    # "income before income tax expense" names no income tax expense: a term right after
    # "before" / "excluding" qualifies another line item
    terms = [t for t in ctx.vocab.find_terms(norm) if not _QUALIFYING.search(norm[:t[0]])
             and not _HORIZON_BEFORE.search(norm[:t[0]])]
    if lib and terms:
        # a longer line-item name that overlaps the metric's words wins ("cost of sales" over
        # the "sales" of a metric); separate line items ("growth in revenue") do not
        overlap = [t for t in terms if t[0] < lib[2] and lib[1] < t[1]]
        if overlap and max(t[1] - t[0] for t in overlap) > lib[2] - lib[1]:
            lib = None
    if lib:
        metric = lib[0]
        x = None
        if metric.name == "cagr" and ctx.earlier(year) is None:
            # a compound rate's years come from the question ("from FY2020 to FY2022"); one
            # year earlier by default would silently be a plain growth rate
            raise CalcError("a compound annual rate needs the first year it runs from")
        if metric.name in ("growth", "cagr"):
            after = [c for a, _, c in terms if a >= lib[2]] or [c for _, _, c in terms]
            # the growth of a line item the vocabulary does not know: its printed label
            x = after[0] if after else _label_input(norm[lib[2]:], ctx, phrase, whole=False)
        # "growth from 2016 to 2018" compares the two years named, not 2018 with 2017
        return f"({expand(metric.expr, year, x, prev_year=ctx.earlier(year))})", metric.unit
    if not terms:
        # no term: the phrase is matched against the printed labels as it is; "the average of
        # everything it owned at <two dates>" averages it as a vocabulary line item would be
        name = _label_input(norm, ctx, phrase)
        return (_averaged(name, years, year), "usd") if averaged else \
            (input_name(name, year), "usd")
    longest = max(terms, key=lambda t: t[1] - t[0])
    # "cash its operations generated": a term whose words the phrase holds apart and in another
    # order, covering more of it than the term found as one run ("cash")
    concept = _scattered_term(norm, ctx.vocab, len(content_stems(
        norm[longest[0]:longest[1]]))) or longest[2]
    known = ctx.vocab.concepts.get(concept)
    spent_as = known.spent_as if known else None
    if spent_as and _SPENT.search(norm):
        # "money spent on plant and equipment": the cash flow of buying it, not its balance
        concept = spent_as
    elif known and known.statement == "balance_sheet" and money_moved(
            " ".join(w for w in norm.split() if w not in ctx.company_words)):
        # "the cash its business generated", "cash spent buying back shares": money moved
        # over the period, which no balance is; the phrase is read as the words describe it
        name = _label_input(norm, ctx, phrase)
        return (_averaged(name, years, year), "usd") if averaged else \
            (input_name(name, year), "usd")
    # the question's words for the line item, not the period it is asked for
    ctx.phrases.setdefault(concept, " ".join(_PERIOD_PHRASE.sub(" ", norm).split()) or norm)
    unit = "usd_per_share" if concept == "eps_diluted" else "usd"
    if averaged:
        return _averaged(concept, years, year), unit
    return input_name(concept, year), unit


def _with_defined_parts(expression: str, ctx: _Context) -> str:
    """A library metric's formula with each line item the question defines itself put in as
    its definition ("operating margin, taking operating profit as sales minus cost of sales
    minus SG&A": the definition replaces the operating income the formula reads). A definition
    counts when its whole name is one vocabulary line item."""
    if ctx.depth >= _DEPTH:
        return expression
    for name, rhs in ctx.defs.items():
        terms = ctx.vocab.find_terms(name)
        if len(terms) != 1 or terms[0][1] - terms[0][0] < len(name) - 1:
            continue
        concept = terms[0][2]

        def defined(m: re.Match, rhs: str = rhs) -> str:
            try:
                return f"({_expression(rhs, _deeper(ctx, int(m[1])))[0]})"
            except CalcError:
                return m[0]

        expression = re.sub(rf"\b{re.escape(concept)}__fy(\d{{4}})\b", defined, expression)
    return expression


def _averaged(name: str, years: list[int], year: int) -> str:
    """The mean of an input over the years its phrase names, else over ``year`` and the one
    before it."""
    ys = years if len(years) >= 2 else [year - 1, year]
    return "((" + " + ".join(input_name(name, y) for y in ys) + f") / {len(ys)})"


def _scattered_term(norm: str, vocab: Vocabulary, covered: int) -> str | None:
    """The concept one of whose question terms has all its content words in ``norm``, in any
    order and with other words between, when that term has more content words than
    ``covered`` (those of the best term found as one run) and than any other concept's term so
    found; None when there is none or a tie. Words after a qualifying word ("excluding cash
    from operations") name the line item that qualifies another one, so a term is read from
    the words before it, unless the term holds the qualifying word itself ("income before
    taxes")."""
    m = _QUALIFYING_ANYWHERE.search(norm)   # ("less", "minus" split the operands already)
    words = content_stems(norm)
    lead = content_stems(norm[:m.start()]) if m else words
    qualifier = content_stems(m.group(0)) if m else frozenset()
    best: dict[str, int] = {}
    for concept, stems in _term_stems(vocab):
        if len(stems) >= 2 and stems <= (words if stems & qualifier else lead):
            best[concept] = max(best.get(concept, 0), len(stems))
    if not best:
        return None
    top = max(best.values())
    leaders = [c for c, n in best.items() if n == top]
    return leaders[0] if len(leaders) == 1 and top > covered else None


@lru_cache(maxsize=4)
def _term_stems(vocab: Vocabulary) -> list[tuple[str, frozenset[str]]]:
    return [(c.name, content_stems(normalise_phrase(t)))
            for c in vocab.concepts.values() for t in c.terms]


# "(from) the fiscal year ended January 30", "in the six months ended June 30": a period, no
# part of a line item's name (normalised text: the day's digits may be gone)
_PERIOD_PHRASE = re.compile(
    r"\b(?:(?:from|to|in|for|during|over|at|as\s+of)\s+)?(?:the\s+)?(?:fiscal\s+)?"
    r"(?:years?|quarters?|(?:three|six|nine|twelve)\s+months|\d+\s+weeks|periods?)\s+"
    r"(?:ended|ending|to)\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"(?:\s+\d{1,2})?\b")


# dates, units and rounding are never part of a line item's printed name
_NOT_NAME_WORDS = {"jan", "january", "feb", "february", "mar", "march", "apr", "april", "may",
                   "jun", "june", "jul", "july", "aug", "august", "sep", "sept", "september",
                   "oct", "october", "nov", "november", "dec", "december", "end", "ends", "close",
                   "as",
                   "start", "beginning", "opening", "closing",
                   "x", "usd", "dollars", "thousands", "millions", "billions", "mn", "bn", "dp",
                   "decimal", "decimals", "places", "percent", "rounded", "per",
                   # how a figure is presented, never what it is ("as shown on its balance
                   # sheet")
                   "shown", "printed", "presented", "displayed", "disclosed"}


# a longer phrase holds the words of its context too ("tax charge ... against pre-tax profit"),
# which match other rows: 12 was tried (5 more right answers on the development sets, 2 more
# verified wrong) and not kept
_MAX_LABEL_WORDS = 8


def _label_input(norm: str, ctx: _Context, phrase: str, whole: bool = True) -> str:
    """The input name of a line item known only by its words, resolved against the printed
    labels by the agent (``fingap.answers.resolver``); its phrase goes into ``ctx.labels``,
    and, when ``phrase`` is the operand itself (``whole``; not the tail of a metric's words),
    its words as written into ``ctx.described``."""
    # "year" names a period ("at the start of the year"), unless it gives a maturity ("due
    # within a year"); a possessive of "company" is no word of a name either
    period_words = {"year", "years"} if horizon(norm) is None else set()

    def name_words(text: str) -> list[str]:
        return [w for w in _PERIOD_PHRASE.sub(" ", text).split()
                if w not in _STOP and w not in _NOT_NAME_WORDS and w not in ctx.company_words
                and w not in period_words and w not in ("companys", "firms")
                and not re.search(r"\d", w)]

    words = name_words(norm)
    # a phrase that names a ratio, rate or change ("receivable days", "widget ratio") is a
    # metric the parser could not build, never a printed line item
    # ... nor is "the result, in millions of US dollars": words that refer back to a
    # computation the question spells out elsewhere
    if len(words) < 2 or len(name_words(maturity_as_one_word(norm))) > _MAX_LABEL_WORDS or \
            _RATIO_WORDS.search(norm) or _only_back_words(" ".join(words)):
        raise CalcError(f"no line item recognised in {phrase.strip()!r}")
    name = LABEL_PREFIX + "_".join(re.sub(r"[^a-z]", "", w) or "x" for w in words)
    ctx.labels[name] = " ".join(words)
    if whole:
        # the words as written from the first word of the name to its last ("the average of
        # everything the company owned at ..." -> "everything the company owned")
        written = [w for w in _PERIOD_PHRASE.sub(" ", normalise_phrase(
            _strip_statement_names(_FY.sub(" ", phrase)))).split()
                   if w not in ctx.company_words and not re.search(r"\d", w)]
        first = written.index(words[0]) if words[0] in written else None
        last = len(written) - 1 - written[::-1].index(words[-1]) \
            if words[-1] in written else None
        ctx.described[name] = " ".join(written[first:last + 1]) \
            if first is not None and last is not None and first <= last else " ".join(words)
    return name


def _parenthesised(found: tuple[str, str]) -> tuple[str, str]:
    """A defined name stands for its whole definition: "EBIT / interest" with EBIT = "A + B"
    is (A + B) / interest."""
    return f"({found[0]})", found[1]


def _deeper(ctx: _Context, year: int) -> _Context:
    return replace(ctx, target=year, depth=ctx.depth + 1)


def _shape_change(norm: str, years: list[int], year: int, ctx: _Context):
    m = _CHANGE_IN.match(norm)
    if not m:
        return None
    x, unit = _operand(m["x"], _deeper(ctx, year))
    base = years[0] if len(years) >= 2 else ctx.earlier(year) or year - 1
    prev, _ = _operand(m["x"], _deeper(ctx, base))
    return f"({x} - {prev})", unit


def _shape_percent_of(norm: str, years: list[int], year: int, ctx: _Context):
    m = _AS_PERCENT_OF.match(norm)
    if not m:
        return None
    x, _ = _operand(m["x"], _deeper(ctx, year))
    y, _ = _operand(m["y"], _deeper(ctx, year))
    return f"(({x}) / ({y}) * 100)", "percent"


def _shape_ratio(norm: str, years: list[int], year: int, ctx: _Context):
    """"X-to-Y ratio", "the ratio of X to Y", "X relative to Y" and "X per dollar of Y" =
    X / Y, over two amounts."""
    m = _RATIO_OF.match(norm)
    if m:
        # "ratio of cash from operations to current liabilities": each " to " in turn, the
        # first that leaves an amount on both sides ("to" may sit inside a name)
        parts = m["xy"].split(" to ")
        for i in range(1, len(parts)):
            found = _amounts_ratio(" to ".join(parts[:i]), " to ".join(parts[i:]), year, ctx)
            if found:
                return found
        return None
    m = _TO_RATIO.match(norm) or _PER_DOLLAR.match(norm) or _RELATIVE_TO.match(norm)
    if not m:
        return None
    return _amounts_ratio(m["x"], m["y"], year, ctx)


def _amounts_ratio(x_phrase: str, y_phrase: str, year: int, ctx: _Context):
    """X / Y when both phrases read as amounts; None otherwise."""
    try:
        x, ux = _operand(x_phrase, _deeper(ctx, year))
        y, uy = _operand(y_phrase, _deeper(ctx, year))
    except CalcError:
        return None
    if ux != "usd" or uy != "usd":
        return None
    return f"(({x}) / ({y}))", "ratio"


def _shape_margin(norm: str, years: list[int], year: int, ctx: _Context):
    """"X % margin" = X / revenue * 100, when X is a defined name, a metric or a line item
    other than revenue ("gross margin" and "net margin" stay with the formula library)."""
    m = _MARGIN.match(norm)
    if not m:
        return None
    x_norm = normalise_phrase(_clean(m["x"]))
    # a name the question defines ("EBITDA = A + B"), after the company's name or not
    defined = next((n for n in ctx.defs if x_norm == n or x_norm.endswith(" " + n)), None)
    if _library_match(norm, ctx.library) and defined is None:
        return None
    x, unit = _operand(defined or m["x"], _deeper(ctx, year))
    if unit not in ("usd",) or x == input_name("revenue", year):
        return None
    return f"(({x}) / {input_name('revenue', year)} * 100)", "percent"


# a parenthesis right after a word, with no arithmetic inside, is a remark: "average total
# assets (the average of the two year-end balances)"
_REMARK = re.compile(r"(?<=[A-Za-z0-9%])\s*\((?![^()]*(?:[/+*\u00d7\u00f7]|\s-\s|\bplus\b|"
                     r"\bminus\b|\bless\b|divided\s+by))[^()]*\)")
# ... unless the word before it is an operator: "365 x (average of trade payables)" is an operand
_OPERATOR_BEFORE = re.compile(r"(?:\b(?:x|times|by|plus|minus|less|over)|[/+*\u00d7\u00f7])\s*$",
                              re.I)


def _drop_remarks(text: str) -> str:
    return _REMARK.sub(lambda m: m[0] if _OPERATOR_BEFORE.search(text[:m.start()])
                       else " ", text)


# a list of parts added up in words: "its cash, short-term investments and receivables, taken
# together (and divided by ...)"
LISTED_TOGETHER = re.compile(
    r"(?P<items>[^,.?;:()]+(?:,\s+[^,.?;:()]+)+?,?\s+and\s+[^,.?;:()]+?),?\s+"
    r"(?:taken\s+together|added\s+(?:together|up)|combined|together|in\s+total)\b"
    r"(?:,?\s+and\b(?=\s+(?:then\s+)?(?:divided|multiplied|minus|less|plus)\b))?", re.I)


def _listed_sum(m: re.Match) -> str:
    """ "A, B and C, taken together" as "(A plus B plus C)": the last "and" of the list joins
    its last two parts; an "and" inside a part ("cash and equivalents") stays."""
    chunks = [c.strip() for c in re.split(r",\s+", m["items"])]
    head, _, tail = chunks[-1].rpartition(" and ")
    parts = [c for c in chunks[:-1] if c] + ([head, tail] if head else [tail])
    parts = [re.sub(r"^and\s+", "", p) for p in parts]
    return "(" + " plus ".join(parts) + ")"


# "the sum of A and B": the two parts added (one "and" only: in "the sum of cash and
# equivalents and receivables" the parts cannot be told apart)
_SUM_OF_TWO = re.compile(r"\bthe\s+sum\s+of\s+(?P<a>(?:(?!\band\b)[^,;()])+?)\s+and\s+"
                         r"(?P<b>(?:(?!\band\b)[^,;()])+?)\s*(?=[,;)]|$)", re.I)
# "A, divided by B plus C": after a comma, the division's divisor is all that follows (and
# its dividend all that precedes)
_DIVIDED_AFTER_COMMA = re.compile(r"^(?P<a>[^()]+?),\s+divided\s+by\s+(?P<b>[^()]+)$", re.I | re.S)
_ADDITIVE = re.compile(r"\s-\s|[+]|\b(?:plus|minus|less)\b", re.I)


# "depreciation plus amortization": two words that together are one printed line item's name
# (the second word a lookahead: in "profit plus depreciation plus amortization" each "plus" is
# tried)
_PLUS_IN_A_TERM = re.compile(r"\b([a-z]+)\s+plus\s+(?=([a-z]+)\b)", re.I)


def _one_line_item(m: re.Match, vocab: Vocabulary) -> str:
    """ "A plus B" as "A and B" when "A and B" is one vocabulary line item's term, which the
    page prints as one row ("Depreciation and amortization"); else as written."""
    joined = f"{m[1]} and {m[2]}"
    terms = vocab.find_terms(normalise_phrase(joined))
    whole = len(terms) == 1 and terms[0][0] == 0 and \
        terms[0][1] >= len(normalise_phrase(joined))
    return f"{m[1]} and " if whole else m[0]


# "the depreciation/amortization charge": a slash between two words, spaces on neither side,
# joins them like "and" when "A and B" is one line item's name (with spaces, "A / B" divides)
_SLASH_IN_A_TERM = re.compile(r"\b([a-z]+)/(?=([a-z]+)\b)", re.I)


def joined_terms(text: str, vocab: Vocabulary) -> str:
    """The text with each "A plus B" or "A/B" that names one printed line item read as "A and
    B"."""
    text = _SLASH_IN_A_TERM.sub(lambda m: _one_line_item(m, vocab), text)
    return _PLUS_IN_A_TERM.sub(lambda m: _one_line_item(m, vocab), text)


# "X minus Y, as a percentage of Z": the share is of the whole difference
_ARITHMETIC_AS_PERCENT_OF = re.compile(
    r"^(?P<x>.+?),?\s+as\s+(?:a\s+)?(?:%|percent|percentage|share|proportion|fraction|portion)"
    r"\s+of\s+(?P<y>.+)$", re.I | re.S)
_ADDING = re.compile(r"\s(?:minus|less|plus|[-+])\s", re.I)


# "the excess of its current assets over its current liabilities": the first less the second
_EXCESS_OF = re.compile(r"^(?:the\s+)?(?:excess|surplus)\s+of\s+(?P<a>.+?)\s+over\s+(?P<b>.+)$",
                        re.I | re.S)


def _expression(text: str, ctx: _Context) -> tuple[str, str]:
    """An arithmetic phrase ("FY2019 revenue / (average PP&E between FY2018 and FY2019)",
    "EBITDA less capex") as (calculator expression, unit)."""
    # "dividends over the first half of 2023": a period's "over" divides nothing
    text = strip_period_phrases(_drop_remarks(text))
    if m := _EXCESS_OF.match(text.strip()):
        text = f"{m['a']} minus {m['b']}"
    m = _ARITHMETIC_AS_PERCENT_OF.match(text.strip())
    if m and _ADDING.search(m["x"]) and not _OPERATORS.search(m["y"]):
        # "as a percentage of" binds looser than the arithmetic before it: "sales minus cost of
        # sales as a percentage of sales" is (sales - cost of sales) / sales, not
        # sales - (cost of sales / sales)
        x, _ = _expression(m["x"], ctx)
        y, _ = _operand(m["y"], ctx)
        return f"(({x}) / ({y}) * 100)", "percent"
    text = LISTED_TOGETHER.sub(_listed_sum, text)
    text = _SUM_OF_TWO.sub(lambda m: f"({m['a']} plus {m['b']})", text)
    text = joined_terms(text, ctx.vocab)
    if (m := _DIVIDED_AFTER_COMMA.match(text.strip())) and \
            (_ADDITIVE.search(m["b"]) or _ADDITIVE.search(m["a"])):
        # ... and before it, the dividend is all that precedes: "A plus B, divided by C"
        text = f"({m['a']}) divided by ({m['b'].strip(' .,')})"
    out: list[str] = []
    units: list[str] = []
    day_count = False    # a number of days stated ("multiplied by 182 days")
    tokens = [p for p in _OPERATORS.split(text) if p is not None and p.strip(" ,.:;")]
    keys = [" ".join(t.split()).lower() for t in tokens]
    for i, (piece, key) in enumerate(zip(tokens, keys, strict=True)):
        if key in _OPERATOR_MAP:
            out.append(_OPERATOR_MAP[key])
        elif i + 1 < len(keys) and keys[i + 1] == "(":
            # "EBIT (income before taxes plus interest) divided by ...": a name followed by the
            # parenthesis that defines it; the definition stands in for the name
            continue
        else:
            expr, unit = _operand(piece, ctx)
            out.append(expr)
            units.append(unit)
            day_count = day_count or bool(_DAY_COUNT.fullmatch(key.strip(" ,.:;")))
    expression = " ".join(out)
    parse_expression(expression)  # raises on unbalanced parentheses or dangling operators
    names = [u for u in units if u != "number"]
    if len(names) == 1 and len(units) == 1:
        return expression, names[0]
    if ("365" in expression or day_count) and "/" in expression:
        return expression, "days"
    if "percent" in names:
        return expression, "percent"
    if "/" in out:
        return expression, "ratio"
    return expression, names[0] if names else "number"


def parse_definition(rhs: str, target: int, vocab: Vocabulary,
                     library: dict[str, Metric] | None = None) -> str:
    """A definition's right-hand side as a calculator expression; ``CalcError`` if a part
    cannot be read."""
    return _expression(rhs, _Context(target, vocab, library or load_library(), {}))[0]


_PARENTHESIS = re.compile(r"\(([^()]*)\)")
_ARITHMETIC = re.compile(r"[/+*=\u00d7\u00f7]|\s-\s|\b(?:divided|over|minus|plus|less|times)\b",
                         re.I)


# what is earned per share, as a verb or a noun ("how much did it earn per share", "earnings
# per common share"); "diluted" right before or after it already names the diluted figure
_PER_SHARE = re.compile(r"\b(?:earnings|earned|earns|earn)\s+per\s+(?:common\s+)?share\b(?!\s*[-,]?"
                        r"\s*(?:fully\s+)?diluted)", re.I)
_PER_DILUTED_SHARE = re.compile(r"\b(?:earnings|earned|earns|earn)\s+per\s+(?:fully\s+)?diluted\s+"
                                r"(?:common\s+)?share\b", re.I)
# the standard ways to say the share count includes every dilutive security
_DILUTED_BASIS = re.compile(r",?\s*\bon\s+a\s+(?:fully[- ])?diluted\s+basis\b,?|"
                            r",?\s*\bassuming\s+(?:full\s+)?dilution\b", re.I)


def diluted_per_share(text: str) -> str:
    """Earnings per share asked on a diluted basis named as the line item the statements print
    ("diluted earnings per share"): "how much did X earn per diluted share", "earnings per
    share on a fully diluted basis", "on a diluted basis, what did X earn per share". A
    question that names basic earnings keeps its words."""
    if re.search(r"\bbasic\b", text, re.I):
        return text
    text = _PER_DILUTED_SHARE.sub("diluted earnings per share", text)
    if _DILUTED_BASIS.search(text) and _PER_SHARE.search(text):
        text = _PER_SHARE.sub("diluted earnings per share", _DILUTED_BASIS.sub("", text), 1)
    return text


def date_the_periods(text: str) -> tuple[str, dict[int, int]]:
    """A fiscal period the question also dates is read by its date: "tax rate for fiscal 2022
    (52 weeks ended January 28, 2023)" -> "tax rate for , 52 weeks ended January 28, 2023,".
    A fiscal year's name and its calendar end differ by a year for many retailers, and the
    date is what the statement headers print. Also returns {the date's year: the fiscal year
    named}: some filings head their columns with the fiscal year instead ("2022" over "January
    1, 2023"), which the agent falls back to."""
    out, last, fiscal_of = [], 0, {}
    for m in _PARENTHESIS.finditer(text):
        rest = _DATE_IN_TEXT.sub(" ", m.group(1))
        if rest == m.group(1) or _ARITHMETIC.search(rest) or len(rest.split()) > 8:
            continue  # no date, or a definition beside it: "(current assets / ..., Dec 31, 2019)"
        before = text[last:m.start()]
        named = list(_FY.finditer(before))
        if not named or before[named[-1].end():].strip(" ,"):
            continue  # the parenthesis does not follow a year: a remark, left as it is
        out.append(before[:named[-1].start()] + ", " + m.group(1).strip() + ",")
        last = m.end()
        dated = fiscal_years(list(_DATE_IN_TEXT.finditer(m.group(1)))[-1].group(0))
        named_year = fiscal_years(named[-1].group(0))
        if dated and named_year:
            fiscal_of[dated[-1]] = named_year[-1]
    for m in _DATE_IN_TEXT.finditer(text):
        # a 52/53-week year that ends in the first days of January (the Sunday nearest
        # December 31) is named for the year that holds all but those days, and a filing may
        # head its column with that name alone ("2022" for the year ended January 1, 2023)
        year = int(m.group(3))
        if m.group(1).lower() == "jan" and int(m.group(2)) <= 7:
            fiscal_of.setdefault(year, year - 1)
    return "".join(out) + text[last:], fiscal_of


_ONE_OPERAND = re.compile(r"\bone(?=\s+minus\b)|(?<=\bminus\s)one\b(?![-\w])", re.I)
_LISTED_PARTS = re.compile(r"\b(?:i\.e\.|namely|the\s+sum\s+of)\s*,?\s+[^.?;:()]*?,[^.?;:()]*?"
                           r"\band\b[^.?;:()]*", re.I)
# "What was that balance ...?" after "... carries X as 'settlements receivable'.": the line
# item is the quoted label
_BACK_REFERENCE = re.compile(r"\b(?:that|this|the\s+same)\s+(?:balance|figure|amount|line(?:\s+"
                             r"item)?|item|number|value|account)\b", re.I)
_QUOTED = re.compile(r"(?:^|(?<=[\s(]))['\u2018\"\u201c]([A-Za-z][A-Za-z ,&\-]{2,60}?)"
                     r"['\u2019\"\u201d](?=[\s.,;:?)]|$)")


# "the average, over 2019, 2020 and 2021, of X?": the years set between "average" and what is
# averaged
_AVERAGE_YEARS_BETWEEN = re.compile(
    r"\b(average|mean)\s*,\s*((?:over|across|for|in|during)\s+(?:the\s+)?(?:fiscal\s+)?"
    rf"(?:years?\s+)?{_YEAR_LIST})\s*,\s*of\b([^?.]*)", re.I)


_NOT_ANNUALIZED = re.compile(r",?\s+(?:without|not|no|before)\s+annuali[sz](?:ing|ed|ation)\b",
                             re.I)
# "averaged over the years ended December 31, 2019, 2020 and 2021": the years listed, each
# ended on that day (the date's day and month are a year end's, not a period of their own)
_YEARS_ENDED = re.compile(r"\b(?:the\s+)?(?:fiscal\s+)?years\s+end(?:ed|ing)\s+(?:on\s+)?"
                          r"[A-Z][a-z]+\.?\s+\d{1,2},\s+(?P<years>(?:19|20)\d\d(?:\s*,\s*"
                          r"(?:19|20)\d\d)*,?\s+and\s+(?:19|20)\d\d)\b")
# "by how much did its current assets exceed its current liabilities?": the excess of the one
# over the other (a difference of two line items, no change over time)
# ("by how many millions of dollars did A exceed B": the same question, its unit named)
_EXCEEDED_BY = re.compile(r"\b(?:by\s+)?how\s+(?:much|many\s+(?:(?:thousands|millions|"
                          r"billions)\s+of\s+)?(?:us\s+)?dollars)\s+(?:did|does|do)\s+"
                          r"(?P<a>[^?;]+?)\s+"
                          r"(?:exceed|surpass|outstrip)\s+(?P<b>[^?;]+)", re.I)
# "its land, buildings and machinery after (subtracting) accumulated depreciation": the balance
# net of its contra account, a net line item (nothing to subtract: the net row prints it)
# (the gate reads the same words in the normalised question: ``meaning.unexplained_words``)
NET_OF_CONTRA = re.compile(
    r"\b(?:after\s+(?:subtracting\s+|deducting\s+)?|net\s+of\s+|less\s+)(?:its\s+|the\s+|any\s+)?"
    r"(?:accumulated\s+(?:depreciation|wear[\s-]+and[\s-]+tear|amortization)(?:\s+and\s+"
    r"amortization|\s+write[\s-]+downs)?|"
    # ... and a receivable's contra account: "after the credit-loss allowance", "net of the
    # allowance for doubtful accounts" (the balance sheet's "..., net" row)
    r"(?:(?:credit[\s-]+loss(?:es)?|bad[\s-]+debts?|doubtful[\s-]+accounts?)\s+)?allowances?"
    r"(?:\s+for\s+(?:doubtful\s+accounts|credit\s+losses|bad\s+debts|uncollectible\s+"
    r"accounts))?)\b", re.I)
_NET_OF_CONTRA_CLAUSE = re.compile(r",?\s+" + NET_OF_CONTRA.pattern, re.I)
# "the depreciation-plus-amortization charge": words bound by hyphens name one line item
# ("depreciation and amortization"), no sum of two
_HYPHEN_PLUS = re.compile(r"\b(?P<a>[A-Za-z]+)-plus-(?P<b>[A-Za-z]+)\b")
# "added back in reconciling 2022 profit to operating cash flow", "... in arriving at its cash
# from operations": where the figure sits (the cash flow statement's reconciliation of profit to
# operating cash), not what it is; its target would otherwise read as the operating cash flow
_RECONCILING = re.compile(
    r"\b(?:(?:in|when|while|on|by|for)\s+)?(?:reconciling|bridging|arriving\s+at|(?:to\s+)?arrive"
    r"\s+at|(?:the\s+)?reconciliation\s+(?:of|from))\s+(?:[^,?;:()]{0,60}?\s+)?(?:operating\s+"
    r"cash\s+flows?|cash\s+flows?\s+(?:from|provided\s+by)\s+(?:operating\s+activities|operations)"
    r"|(?:net\s+)?cash\s+(?:generated\s+|provided\s+)?(?:from|by)\s+(?:operating\s+activities|"
    r"operations))\b", re.I)


def reconciliation_as_source(text: str) -> str:
    """``text`` with a clause that places a figure in the reconciliation of profit to operating
    cash ("added back when reconciling its 2022 profit to operating cash flow") read as the
    statement it names, keeping any year the clause gives ("... in the 2022 cash flow
    statement")."""
    def source(m: re.Match) -> str:
        years = re.findall(r"\b(?:fy\s?)?(?:19|20)\d{2}\b", m[0], re.I)
        return " in the " + "".join(y + " " for y in years) + "cash flow statement"
    return _RECONCILING.sub(source, text)


# "... due within a year at that date": the balance dated by the question's own date, no part
# of a line item's name
_THAT_DATE = re.compile(r",?\s+(?:at|on|as\s+of)\s+(?:that|this|the\s+same)\s+(?:date|day)\b", re.I)

# "the costs booked against product sales plus those booked against service sales": "those"
# (or "that") stands for the head noun of the operand before it, named by the same linking
# word; the operand is that noun again ("costs booked against service sales")
_THOSE_OF = re.compile(
    r"\b(?P<head>[a-z]+)\s+(?P<link>booked|charged|recorded|incurred|reported|related|"
    r"associated|tied|of|for|from|on|against)\s+(?P<rest>[^,;?]*?)\s+(?P<op>plus|and|minus|"
    r"less|versus|over)\s+(?:those|that)\s+(?P=link)\b", re.I)
# no head noun: function words, and the words of an operation over the operands ("the sum
# of A plus those of B" names no line item)
_NO_HEAD = frozenset({"the", "a", "an", "its", "their", "of", "and", "or", "to", "in", "sum",
                      "total", "ratio", "share", "percentage", "proportion", "average",
                      "difference", "change", "growth", "excess", "portion", "fraction",
                      "part", "combination"})


def _those_as_head(text: str) -> str:
    """"A booked against X plus those booked against Y" -> "... plus A booked against Y"."""
    return _THOSE_OF.sub(lambda m: m[0] if m["head"].lower() in _NO_HEAD else
                         f"{m['head']} {m['link']} {m['rest']} {m['op']} {m['head']} {m['link']}",
                         text)


def _years_after_average(text: str) -> str:
    """"the average, over A, B and C, of X?" -> "the average of X over A, B and C?"."""
    return _AVERAGE_YEARS_BETWEEN.sub(
        lambda m: f"{m.group(1)} of{m.group(3).rstrip()} {m.group(2).strip().rstrip(',')}", text)


def parse_question(text: str, vocab: Vocabulary | None = None,
                   doc_type: str | None = None,
                   company_words: frozenset[str] = frozenset(),
                   spelt_out: bool = False) -> ParsedQuestion:
    """The question's figure: its formula over (concept, year) inputs, period, unit and
    rounding, or ``figure=False`` with the reason. ``company_words``: the normalised words
    with which the question spells its company (``fingap.answers.meaning.company_positions``),
    left out of the names of line items read by their printed labels. ``spelt_out``: a library
    metric asked is read from the arithmetic an instruction after the question spells out
    (``spelt_out_after_question``) instead of the library's formula, when that reads."""
    vocab = vocab or Vocabulary.load()
    library = load_library()
    if not text or not text.strip():
        return ParsedQuestion(False, NOT_FIGURE_REASONS[0])
    text = _YEARS_ENDED.sub(lambda m: m["years"], text)
    text = _NET_OF_CONTRA_CLAUSE.sub(", net", text)
    text = _EXCEEDED_BY.sub(lambda m: f"what was the excess of {m['a']} over {m['b']}", text)
    text, fiscal_of = date_the_periods(text)
    # "one minus the payout ratio": the number one is an operand
    text = _ONE_OPERAND.sub("1", text)
    text = diluted_per_share(text)
    text = _years_after_average(text)
    # "..., without annualizing": how to scale the period's figure, no part of a name (the
    # gate reads the question as written for it)
    text = _NOT_ANNUALIZED.sub("", text)
    text = _THAT_DATE.sub("", text)
    text = reconciliation_as_source(text)
    text = _HYPHEN_PLUS.sub(r"\g<a> and \g<b>", text)
    text = _those_as_head(text)
    statements = [k for k, p in _STATEMENT_WORDS if p.search(text)]
    duration = stated_duration(text) or next(
        (dur for pattern, dur in _QUARTER if pattern.search(text)), "12M")
    if duration == "12M" and doc_type in ("10Q",) and not re.search(r"\bfy|fiscal\s+year|annual",
                                                                   text, re.I):
        duration = "3M"
    years = fiscal_years(text)
    base = ParsedQuestion(False, statements=statements, duration=duration, years=years,
                          decimals=_decimals(text))
    m = _SCALE.search(text) or _SCALE_OF.search(text) or _SCALE_NEAREST.search(text)
    if m:
        word = m.group(1).lower()
        base.out_scale = _SCALE_WORDS.get(word, word if word.endswith("s") else word + "s")
    if _YES_NO.match(text):
        base.reason = NOT_FIGURE_REASONS[1]
        return base
    if not years:
        base.reason = "no fiscal year in the question"
        return base
    defs = definitions(text)
    asked = asked_phrase(text)
    if asked is None and _NOT_FIGURE.search(text):
        base.reason = NOT_FIGURE_REASONS[2]
        return base
    if asked is None:
        # an analyst's shorthand ("Nike FY2019 net income, $bn?"): the first clause that names
        # a metric or a line item is what is asked
        asked = _first_figure_clause(text, vocab, library)
        if asked is None:
            base.reason = "no metric or line item recognised"
            return base
    if _ADJUSTED.search(text):
        base.reason = "asks for an adjusted (non-GAAP) measure"
        return base
    if _LISTED_PARTS.search(text) and not _ARITHMETIC.search(_LISTED_PARTS.search(text)[0]):
        # "DIO on total cost of revenues, i.e. product costs, game operations and ... lines":
        # an item defined as the sum of listed rows, which the formula would silently replace
        base.reason = "the question lists the parts of a line item (i.e. A, B and C)"
        return base
    if _BACK_REFERENCE.search(asked):
        quoted = _QUOTED.findall(text)
        if len(quoted) != 1:
            base.reason = "the question refers back to a line item it does not quote"
            return base
        words = [w for w in normalise_phrase(quoted[0]).split() if w not in _STOP]
        if not words:
            base.reason = "no metric or line item recognised"
            return base
        target = max(fiscal_years(asked) or years)
        name = LABEL_PREFIX + "_".join(re.sub(r"[^a-z]", "", w) or "x" for w in words)
        months = [m.group(1)[:3].capitalize() for m in _DATE_IN_TEXT.finditer(text)]
        basis = "calendar" if _DATE_IN_TEXT.search(asked) else "fiscal"
        return ParsedQuestion(True, "", "quoted label", input_name(name, target),
                              [(name, target)], years, target, duration, statements, "usd",
                              base.out_scale, base.decimals, months, basis,
                              {name: " ".join(words)}, fiscal_of, dates=dates_named(text))
    asked_years = sorted(set(fiscal_years(asked)))
    target = max(asked_years or years)
    base.target_year = target
    multi = _MULTI_YEAR.search(text)
    span = list(range(min(years), max(years) + 1)) if multi and len(set(years)) >= 2 else None
    if span is None and AVERAGE_ASKED.search(text) and max(years) - min(years) >= 2:
        # "averaged over fiscal 2015, 2016 and 2017", "across 2016 to 2018 on average": the
        # mean of the metric over each year (two years name the ends of one average balance)
        span = list(range(min(years), max(years) + 1))
    asked_core = _MULTI_YEAR.sub(" ", _YEAR_RANGE.sub(" ", asked))
    asked_core = _FY.sub(" ", asked_core)
    # the phrase as written is also a name a definition may give ("Foo coverage for FY2023:
    # EBIT divided by ...")
    as_written = asked_core
    asked_core = _YEAR_LIST_TAIL.sub("", asked_core) or asked_core
    # the question's own definition of what it asks ("What is the FY2019 DPO? DPO is defined
    # as ...") wins over the formula library; its name may sit in a parenthesis ("(ROA)")
    asked_full = asked_phrase(text, keep_remarks=True) or ""
    main_def = None
    names = [normalise_phrase(_clean(asked_core)), normalise_phrase(_clean(as_written))] + [
        normalise_phrase(_clean(r)) for r in re.findall(r"\(([^()]*)\)", asked_full)]
    main_def = next((defs[n] for n in names if n in defs), None)
    if main_def is None:
        # a definition whose name ends with what is asked ("what's the operating cash flow
        # ratio, i.e. A divided by B")
        main_def = next((rhs for n, rhs in defs.items() for a in names[:1]
                         if a and (n.endswith(" " + a) or n == a)), None)
    if main_def is None and names[0] and not _library_match(names[0], library):
        # a definition of the line item asked, in other words ("How much inventory ...? Total
        # inventories, net, i.e. raw materials plus work in process")
        asked_items = {c for _, _, c in vocab.find_terms(names[0])}
        main_def = next((rhs for n, rhs in defs.items()
                         if len(asked_items) == 1 and not _library_match(n, library) and
                         {c for _, _, c in vocab.find_terms(n)} == asked_items), None)
    if main_def is None:
        # "Compute it as ...": a definition of what is asked by a pronoun
        main_def = next((defs[n] for n in _PRONOUNS if n in defs), None)
    if main_def is None:
        # "X, A minus B": a metric named, then spelt out after a comma; the arithmetic is its
        # definition and replaces the library's formula (applied once, not combined with it)
        # ("how many times it covered ..." counts; its "times" multiplies nothing)
        clauses = re.split(r",\s+", asked)
        first = next((i for i, c in enumerate(clauses)
                      if _ARITHMETIC.search(_HOW_MANY_TIMES.sub(" ", c))), None)
        if first and _library_match(" ".join(clauses[:first]), library):
            main_def = ", ".join(clauses[first:])
    # "What was its DPO? Use 365 times A, divided by B plus C": an instruction after the
    # question that spells out arithmetic defines the library metric asked, and replaces its
    # formula (on the agent's second reading; the library's formula stays when it cannot be read)
    spelt = spelt_out_after_question(text) if spelt_out and main_def is None and names[0] \
        and _library_match(names[0], library) else None
    labels: dict[str, str] = {}
    described: dict[str, str] = {}
    phrases: dict[str, str] = {}
    stripped = re.sub(r"\([^()]*\)", " ", _ALTERNATE.sub("", text))
    m_asked = _ASKED.search(stripped)
    lead = _FY.sub(" ", stripped[:m_asked.start()]).strip(" :,.") if m_asked else ""
    try:
        per_year = []
        # "how much has X changed between FY2021 and FY2022": the difference of X in both years
        change_years = sorted(set(asked_years or years))
        asked_metric = _library_match(asked_core, library)
        # (in arithmetic, "the change in inventory" is one operand's change, not the whole's)
        changed = (_CHANGED.search(asked_core) is not None and len(change_years) >= 2
                   and not (asked_metric and asked_metric[0].name in ("growth", "cagr"))
                   and not (_ARITHMETIC.search(asked_core) and _CHANGE_OPERAND.search(asked_core)))
        for y in ([change_years[0], change_years[-1]] if changed else span or [target]):
            ctx = _Context(y, vocab, library, defs, labels=labels, described=described,
                           phrases=phrases,
                           company_words=company_words,
                           base_year=None if span or changed or len(set(years)) < 2
                           else min(years))
            try:
                expression, unit = _expression(main_def, ctx) if main_def \
                    else _spelt_or_asked(spelt, asked_core, ctx)
            except CalcError:
                if defs:
                    # the question names its metric only through its definition
                    expression, unit = _expression(next(iter(defs.values())),
                                                   ctx)
                else:
                    # "Boeing's total current liabilities at ...: what was the figure?" names
                    # the line item before the question word
                    if not lead or _framing(lead):
                        raise
                    expression, unit = _expression(lead, ctx)
            per_year.append(expression)
        if changed and re.search(r"\bdecreased\b", asked_core, re.I) and \
                not re.search(r"\bnegative\b", text, re.I):
            # "by how much did X decrease": the size of the fall, positive when X fell
            expression = f"(({per_year[0]}) - ({per_year[1]}))"
        elif changed:
            expression = f"(({per_year[1]}) - ({per_year[0]}))"
        else:
            expression = per_year[0] if len(per_year) == 1 else \
                f"(({' + '.join(per_year)}) / {len(per_year)})"
        if main_def is None:
            # a line item the question defines itself, read by a library formula or a shape
            expression = _with_defined_parts(expression, _Context(
                target, vocab, library, defs, labels=labels, described=described,
                phrases=phrases, company_words=company_words))
        if AVERAGE_ASKED.search(text) and not AVERAGED.search(expression) and unit != "usd":
            # "sales per dollar of assets, using the average of the opening and closing
            # balances": a ratio's balances are averaged over the period's two ends
            expression = _average_balances(expression, vocab)
        elif takes_year_end(text) and AVERAGED.search(expression):
            # "ROE, measured against the equity at the year's end": a library metric's
            # balances as the question takes them, not averaged
            expression = _year_end_balances(expression)
        names = names_in(expression)
    except CalcError as e:
        base.reason = f"metric not understood: {e}"
        return base
    wants_decimal = _DECIMAL_FORM.search(text) is not None
    wants_percent = (_PERCENT.search(text) is not None or "margin" in asked.lower()) and \
        not wants_decimal
    if unit == "ratio" and wants_percent:
        expression, unit = f"({expression}) * 100", "percent"
    elif unit == "percent" and wants_decimal:
        # "a margin, as a decimal (not a percentage)": the requested form wins over the
        # metric's usual one
        expression, unit = f"({expression}) / 100", "ratio"
    if unit == "usd" and (_RATIO_WORDS.search(asked_core) or wants_percent):
        # the question asks for a ratio, rate or change, but only a line item was recognised
        base.reason = f"asks for a ratio or change the parser could not build: {asked.strip()!r}"
        return base
    if unit == "number":
        base.reason = "no line item recognised"
        return base
    if _DAYS.search(text) and unit != "days":
        base.reason = f"asks for days but the formula built gives {unit}: {expression}"
        return base
    inputs = [split_input_name(n) for n in names]
    metric = "definition" if defs else _metric_name(asked_core, library, vocab)
    months = [m.group(1)[:3].capitalize() for m in _DATE_IN_TEXT.finditer(text)]
    basis = "calendar" if _DATE_IN_TEXT.search(asked) else "fiscal"
    return ParsedQuestion(True, "", metric, expression, inputs, years, target, duration,
                          statements, unit, base.out_scale, base.decimals, months, basis,
                          {n: p for n, p in labels.items() if any(c == n for c, _ in inputs)},
                          fiscal_of, {c: p for c, p in (_term_phrases(text, vocab) | phrases)
                                      .items() if any(c == n for n, _ in inputs)},
                          dates_named(text),
                          {n: p for n, p in described.items() if any(c == n for c, _ in inputs)})


def spelt_out_after_question(text: str) -> str | None:
    """The arithmetic an instruction after the question mark spells out ("... ? Use 365 times
    A, divided by B", "... ? Take A and divide it by B"), as an expression phrase; None when no
    instruction there holds arithmetic."""
    q = text.find("?")
    if q < 0:
        return None
    after = text[q + 1:].strip()
    if (restated := division_as_question(after)) and restated.startswith("What is "):
        return restated[len("What is "):].split("?", 1)[0]
    m = next((m for m in _INSTRUCTION.finditer(after) if _ARITHMETIC.search(m["x"])), None)
    if m is None:
        return None
    return _instruction_arithmetic(m["x"])


def _spelt_or_asked(spelt: str | None, asked: str, ctx: _Context) -> tuple[str, str]:
    """The spelt-out arithmetic's expression when it reads, else the asked phrase's."""
    if spelt:
        try:
            return _expression(spelt, ctx)
        except CalcError:
            pass
    return _expression(asked, ctx)


# how a question frames itself before it asks ("As an analyst working from its balance sheet,",
# "Going mainly by Netflix's statements,"): who asks and where to read, never a line item
_FRAMING_START = re.compile(r"^(?:as\s+an?|acting\s+as|using|with|from|relying|based|according|"
                            r"looking|working|going|drawing|limited|sticking|reading)\b", re.I)


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# "As of June 30", "For the six months ended July 29" (the year already taken out): a date
_DATE_LEAD = re.compile(
    rf"^(?:as\s+(?:of|at)|at|on|for)\s+(?:the\s+(?:close|end)\s+of\s+)?(?:{_MONTH}\s+\d{{1,2}}|"
    r"(?:the\s+)?(?:fiscal\s+)?(?:years?|quarters?|(?:three|six|nine|twelve)\s+months|"
    rf"\d+\s+weeks)\s+(?:ended|ending)\s+{_MONTH}\s+\d{{1,2}})$", re.I)


def _framing(lead: str) -> bool:
    """Whether the words before the question word only frame it: they open as a role or a
    source does, or give only a date ("Boeing's total current liabilities at ...: what was the
    figure?" names the line item there instead)."""
    return _FRAMING_START.search(lead.strip()) is not None or \
        _DATE_LEAD.match(" ".join(lead.split())) is not None


# a ratio asked as a decimal fraction, never "two decimal places"
_DECIMAL_FORM = re.compile(r"\bas\s+a\s+decimal\b(?!\s+places?)|"
                           r"\bdecimal\s+(?:ratio|fraction|form)\b|"
                           r"\bnot\s+(?:as\s+)?a\s+percent(?:age)?\b|\bnot\s+in\s+percent", re.I)
LABEL_PREFIX = "row_"     # inputs named by a printed label rather than a vocabulary concept
# a question that asks for an average (not of shares: "weighted average shares"), and a formula
# that takes one (the calculator's "(...) / n")
AVERAGE_ASKED = re.compile(r"(?<!weighted[ -])\b(?:average|averaged|avg|mean)\b", re.I)
AVERAGED = re.compile(r"/\s*\d+\)")
_INPUT_NAME = re.compile(r"\b([a-z_]+)__fy(\d{4})\b")

YEAR_END_BALANCES = re.compile(
    r"\bbalances?\s+(?:at|as\s+of)\s+(?:the\s+)?(?:fiscal\s+)?(?:year[- ]?end|end\s+of)\b|"
    r"\b(?:year[- ]?end|ending|closing|end[- ]of[- ](?:the[- ])?(?:fiscal[- ])?year)\s+"
    # "the year-end 2015 balance": the year may sit between
    r"(?:(?:fy|fiscal\s+)?(?:19|20)\d{2}\s+)?balances?\b|"
    # ... or the line items, in the plural, it takes at the year's end ("year-end net
    # receivables", "year-end payables")
    r"\byear[- ]end\s+(?!\d)(?:[a-z-]+\s+){0,2}?[a-z]{3,}s\b|"
    # ... its balance named between ("the year-end equity balance"), or the balance sheet
    # read at that year's end ("the equity on its balance sheet at that year-end")
    r"\byear[- ]end\s+(?!\d)(?:[a-z&-]+\s+){1,3}?balances?\b|"
    r"\bbalance\s+sheet\s+(?:at|as\s+of)\s+(?:that|the|its)\s+(?:fiscal\s+)?year[- ]?end\b", re.I)


# "averages of the opening and closing balances" takes two
TWO_BALANCES = re.compile(r"\baverages\b|\bopening\b|\bbeginning\b|\bstart\b", re.I)


def takes_year_end(question: str) -> bool:
    """Whether the question takes its balances at a year's end ("using balances at the end of
    fiscal 2020", "year-end payables"), and no average of two."""
    return YEAR_END_BALANCES.search(question) is not None and \
        not AVERAGE_ASKED.search(question) and not TWO_BALANCES.search(question)


# a balance averaged over a year's two ends, as ``avg`` expands it
_AVERAGED_PAIR = re.compile(r"\(\(([a-z_]+)__fy(\d{4}) \+ \1__fy(\d{4})\) / 2\)")


def _year_end_balances(expression: str) -> str:
    """Each balance averaged over the year's two ends read at the year's end instead."""
    return _AVERAGED_PAIR.sub(lambda m: f"{m[1]}__fy{m[2]}" if int(m[3]) == int(m[2]) - 1
                              else m[0], expression)


def _average_balances(expression: str, vocab: Vocabulary) -> str:
    """Each balance-sheet line item of ``expression`` replaced by its average over the
    period's opening and closing balances (the year before and the year)."""
    def average(m: re.Match) -> str:
        c = vocab.concepts.get(m[1])
        if c is None or c.statement != "balance_sheet":
            return m[0]
        year = int(m[2])
        return f"(({input_name(m[1], year)} + {input_name(m[1], year - 1)}) / 2)"

    return _INPUT_NAME.sub(average, expression)
# words that make what follows qualify another line item ("income before income taxes")
_QUALIFIER_WORDS = r"before(?:\s+(?:provision|benefit)\s+for)?|after|excluding|ex|net\s+of"
_QUALIFYING = re.compile(rf"\b(?:{_QUALIFIER_WORDS})\s*$")
_QUALIFYING_ANYWHERE = re.compile(rf"\b(?:{_QUALIFIER_WORDS})\b")
# "short-term assets" is no "assets": a maturity word right before a term that does not hold
# it names a narrower line item, read from the printed labels and the glossary instead
_HORIZON_BEFORE = re.compile(r"\b(?:short|long)\s+term\s*$|\b(?:non\s*)?current\s*$")
_STOP = {"the", "a", "an", "of", "and", "for", "in", "on", "at", "to", "from", "its", "total",
         # question words name no line item ("how many times did X turn ...")
         "how", "many", "much", "what", "which", "did", "does", "do", "was", "were", "is", "are"}


_PHRASE_END = {"over", "divided", "minus", "plus", "less", "times", "and", "or", "as", "by",
               "for", "in", "from", "between", "at", "on", "to", "of",
               # a period follows the line item's words, never qualifies them
               "during", "ended", "ending", "through"}


def _term_phrases(text: str, vocab: Vocabulary) -> dict[str, str]:
    """concept -> the question's words at its first mention: the term and what qualifies it
    ("net income attributable to Foo plc"), up to the next operator or preposition (but "to"
    after "attributable"). Library metrics name their line items only through the metric; the
    question's own words for them still tell which printed row is meant."""
    norm = normalise_phrase(text)
    out: dict[str, str] = {}
    for start, end, concept in vocab.find_terms(norm):
        if concept in out:
            continue
        tail = []
        for w in norm[end:].split()[:6]:
            if w in _PHRASE_END and not (w == "to" and tail[-1:] == ["attributable"]):
                break
            tail.append(w)
        out[concept] = " ".join([norm[start:end], *tail])
    return out


_CLAUSE = re.compile(r"[:;?]|\s[-\u2013\u2014]\s")


def _first_figure_clause(text: str, vocab: Vocabulary, library: dict[str, Metric]) -> str | None:
    for clause in _CLAUSE.split(_ALTERNATE.sub("", text)):
        clause = _EXPLANATION.sub("", re.sub(r"\([^()]*\)", " ", clause)).strip(" ,.")
        core = _FY.sub(" ", clause)
        if _library_match(core, library) or vocab.find_terms(core):
            return clause
    return None


def _metric_name(asked: str, library: dict[str, Metric], vocab: Vocabulary) -> str:
    lib = _library_match(asked, library)
    if lib:
        return lib[0].name
    terms = vocab.find_terms(asked)
    return max(terms, key=lambda t: t[1] - t[0])[2] if terms else "expression"
