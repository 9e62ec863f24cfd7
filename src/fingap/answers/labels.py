"""Row labels and question phrases mapped to finance concepts through a vocabulary data file.

Normalisation (``normalise_label``): lower case; parenthetical remarks "(PP&E)", "(loss)",
footnote marks "(a)", "(1)", "*" dropped; "&" becomes "and"; dashes, commas and other
punctuation become spaces; whitespace collapsed. So
"Property, plant and equipment \u2014 net" and "Property, plant & equipment, net (a)" both become
"property plant and equipment net".

The vocabulary (``fingap/data/finance_vocabulary.yaml``) holds general finance terms only:
for each concept, label patterns (regular expressions matched in full against a normalised row
label, earlier ones preferred), question terms, the statement it normally lives on, and whether
it is reported as a magnitude (outflows such as capex).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

_FOOTNOTE = re.compile(r"\([^()]{0,40}\)|\*+|\u2020|\u2021")
_PUNCT = re.compile(r"[^a-z0-9% ]+")
# qualifiers after a line item that do not change what it is: "..., net of $35 and $46",
# "net of allowances of ...", "less accumulated depreciation of ..."
_QUALIFIER = re.compile(r"\s+(?:net\s+of|less|excluding|including)\s+.*$|\s+net$")
# a line whose head word is "loss" ("Net loss", "Operating loss", "Loss from operations",
# "Loss before income taxes"): the income line of the same name in a year with a loss
_LOSS_HEAD = re.compile(r"^((?:net |operating )?)loss\b")


@dataclass(frozen=True)
class Concept:
    name: str
    statement: str
    patterns: tuple[re.Pattern, ...]
    terms: tuple[str, ...]
    magnitude: bool
    # the cash flow that buying the balance is (``spent_as``: PP&E bought is capital
    # expenditure): "money spent on plant and equipment" asks for that flow, not the balance
    spent_as: str | None = None
    # the side of the balance sheet a balance stands on (asset, liability, equity); None for
    # flows and per-share amounts
    side: str | None = None
    # where a measure of profit stands to income taxes ("before": gross, operating and pretax
    # profit; "after": net income and EPS); None for every other line item
    taxes: str | None = None


def normalise_label(label: str) -> str:
    text = _FOOTNOTE.sub(" ", label.lower())
    text = text.replace("&", " and ")
    text = text.replace("'", "").replace("\u2019", "")
    text = _PUNCT.sub(" ", text)
    return " ".join(text.split())


def normalise_phrase(text: str) -> str:
    """Question text normalised like labels, but parenthetical text is kept: in a question it
    carries meaning ("(average PP&E between FY2018 and FY2019)")."""
    text = text.lower().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return " ".join(_PUNCT.sub(" ", text).split())


# a line item's maturity: due within a year (current) or after it (noncurrent); "current
# portion of long-term debt" is due within the year
_SHORT = re.compile(r"(?<!non )(?<!non)\bcurrent\b|\bshort\s*term\b|\bwithin\s+(?:(?:a|one|1|the|"
                    r"next|coming|following)\s+)*(?:year|twelve\s+months|12\s+months)\b", re.I)
# "Long-term debt, net of current portion": what a label nets out is no part of its maturity
_NETTED = re.compile(r"\s+(?:net\s+of|less|excluding)\s+.*$")
_LONG = re.compile(r"\bnon\s*current\b|\blong\s*term\b|\b(?:after|beyond)\s+(?:more\s+than\s+)?"
                   r"(?:(?:the|next|coming|following)\s+)*(?:a|one|1)\s+year\b|"
                   r"\b(?:after|beyond)\s+(?:(?:the|next|coming|following)\s+)*(?:twelve|12)\s+"
                   r"months\b", re.I)


def maturity_as_one_word(text: str) -> str:
    """The text with each phrase that gives a maturity ("within the next twelve months") as one
    word: a line item's name is counted in words, and its maturity is one qualifier."""
    return _LONG.sub(" noncurrent ", _SHORT.sub(" current ", text))


def maturity_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "short" | "long") of each phrase of ``text`` that gives a maturity."""
    return [(m.start(), m.end(), kind) for kind, pattern in (("short", _SHORT), ("long", _LONG))
            for m in pattern.finditer(text)]


def horizon(text: str) -> str | None:
    """"short" (due within a year), "long" (after it) or None, as a phrase or label says."""
    text = _NETTED.sub("", normalise_phrase(text))
    return "short" if _SHORT.search(text) else "long" if _LONG.search(text) else None


# Who owes whom. A sentence embedder hardly reads direction: "what it owes its vendors" and
# "what customers owe it" score alike against receivables and payables, and "owned" against
# "owed". The words do: an amount owed *to* the company (its customers owe it, owed by others,
# due from others) or one it owns or holds is an asset; one the company owes, or an obligation,
# is a liability.
_OWED_TO_IT = re.compile(
    r"\bowe[sd]?\s+(?:to\s+)?(?:it|us|(?:the\s+)?(?:company|firm|business|group))\b"
    r"|\bowed\s+by\b|\bdue\s+from\b"
    r"|\b(?:customers?|clients?|buyers?|debtors?|purchasers?|shoppers?|members?)\s+"
    r"(?:[a-z]+\s+){0,3}?owe[sd]?\b")
_OWNED = re.compile(r"\b(?:owns|owned|holds|possess(?:es|ed)?)\b")
_OWED = re.compile(r"\bowe[sd]?\b|\bowing\b|\bobligations?\b")


def balance_side(text: str) -> str | None:
    """"asset" or "liability" when a phrase says the company owns (or is owed) the amount, or
    owes it; None when it says neither."""
    norm = normalise_phrase(text)
    if _OWED_TO_IT.search(norm) or _OWNED.search(norm):
        return "asset"
    return "liability" if _OWED.search(norm) else None


# money that moves during a period: spent, paid or bought ...
_FLOW_WORDS = re.compile(r"\b(?:spen[dt]|spending|buy(?:ing)?|bought|purchas\w*|paid|pay(?:ing)?|"
                         r"outlays?|invested\s+in)\b", re.I)
# ... and cash that operations generate (a balance of other assets "generates" sales in a
# turnover ratio's words, so these are read only of cash)
_CASH_GENERATED = re.compile(r"\bcash\b.*\b(?:generat(?:e|es|ed|ing)|brought\s+in|bring\s+in|"
                             r"produc(?:e|es|ed)|throw(?:s|n)?\s+off|threw\s+off)\b", re.I)


# a charge of the period ("the non-cash charge for wear on fixed assets", "the D&A added back"):
# an expense over a period, never a balance; not the balances named for expenses ("accrued
# expenses", "prepaid expenses", "deferred charges")
_PERIOD_CHARGE = re.compile(r"(?<!accrued\s)(?<!prepaid\s)(?<!deferred\s)(?<!other\s)"
                            r"\b(?:charges?|expenses?|add(?:ed)?[\s-]+backs?|"
                            r"write[\s-]?(?:downs?|offs?)|written\s+(?:down|off))\b", re.I)


def charged(text: str) -> bool:
    """Whether a phrase's words name a charge or expense of a period."""
    return _PERIOD_CHARGE.search(text) is not None


def spends_money(text: str) -> bool:
    """Whether a phrase's words say money was spent, paid or invested (an outflow)."""
    return _FLOW_WORDS.search(text) is not None


def moves_money(text: str) -> bool:
    """Whether a phrase's words say money was spent, paid or generated."""
    return _FLOW_WORDS.search(text) is not None or _CASH_GENERATED.search(text) is not None


def money_moved(text: str) -> bool:
    """Whether a phrase asks for money spent, paid or generated over a period (a flow), never
    a balance read at an instant; what a company owes or owns for it is a balance still
    ("what it owes for goods bought on credit")."""
    return moves_money(text) and balance_side(text) is None


# a row of amounts per share ("Cash dividends declared per common share", "Net income per
# common share - diluted"), not one whose amount a per-share figure is computed from ("Net
# income used in the diluted earnings per share calculation")
_PER_SHARE = re.compile(r"\bper\s+(?:common\s+|ordinary\s+)?share\b"
                        r"(?!.*\b(?:calculations?|computations?)\b)|\beps\b")


def per_share(text: str) -> bool:
    """Whether a label or term names an amount per share."""
    return _PER_SHARE.search(normalise_phrase(text)) is not None


def income_form(label: str) -> str | None:
    """The income line a loss-headed label prints in a year with a loss, normalised ("Net
    loss" -> "net income", "Loss from operations" -> "income from operations"), or None. A
    label that names a gain as well ("Net loss/(gain)" of a pension table) is no such line."""
    # (a cheap test first: the gate asks this of every label on a page)
    if "loss" not in label.lower() or re.search(r"\bgains?\b", label, re.I):
        return None
    norm = normalise_label(label)
    if not _LOSS_HEAD.match(norm):
        return None
    return _LOSS_HEAD.sub(r"\1income", norm, count=1)


class Vocabulary:
    def __init__(self, concepts: dict[str, Concept]):
        self.concepts = concepts
        # concepts counted per share (diluted EPS): only they may read a per-share row
        self._per_share = {c.name for c in concepts.values() if any(map(per_share, c.terms))}
        # longest question terms first, so "cost of sales" wins over "sales"
        self._terms = sorted(((normalise_phrase(t), c.name) for c in concepts.values()
                              for t in c.terms), key=lambda p: -len(p[0]))
        self._variants = _maturity_variants(concepts)

    def maturity_variant(self, concept: str, asked: str) -> str | None:
        """The line item that is ``concept`` at maturity ``asked`` ("short" / "long"), for a
        concept whose terms give none (total assets, "short" -> total current assets), or
        None."""
        return self._variants.get((concept, asked))

    @classmethod
    def load(cls, path: str | Path | None = None) -> Vocabulary:
        return _load(str(path) if path else None)

    def is_per_share(self, concept: str) -> bool:
        """Whether a concept is an amount per share (a term of it says "per share")."""
        return concept in self._per_share

    def concept_of(self, label: str) -> tuple[str, int] | None:
        """(concept, pattern rank) of a printed row label, or None. Lower rank = preferred."""
        norm = normalise_label(label)
        # "Cash dividends declared per common share" is no amount of dividends paid
        unit_per_share = _PER_SHARE.search(norm) is not None  # (norm: normalised already)
        for variant in dict.fromkeys([norm, _QUALIFIER.sub("", norm)]):
            best = None
            for c in self.concepts.values():
                if unit_per_share and c.name not in self._per_share:
                    continue
                for rank, p in enumerate(c.patterns):
                    if p.fullmatch(variant):
                        if best is None or rank < best[1]:
                            best = (c.name, rank)
                        break
            if best is not None:
                return best
        return None

    def loss_concept_of(self, label: str) -> tuple[str, int] | None:
        """(concept, rank) of the income line a loss-headed label names ("Net loss" ->
        net income, "Loss from operations" -> operating income), or None. A loss is that
        income line below zero (GAAP prints "net income (loss)" as one line), so the caller
        must take the value as printed only where it is negative. A label that names a gain
        as well ("Net loss/(gain)" of a pension table) names no income line."""
        form = income_form(label)
        return self.concept_of(form) if form else None

    def find_terms(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, concept) term matches in normalised ``text``."""
        norm = normalise_phrase(text)
        taken: list[tuple[int, int, str]] = []
        for term, name in self._terms:
            # "non-cash", "noncurrent": a term negated by "non" is not that line item
            for m in re.finditer(rf"(?<![a-z0-9])(?<!\bnon\s){re.escape(term)}(?![a-z0-9])",
                                 norm):
                if all(m.end() <= a or m.start() >= b for a, b, _ in taken):
                    taken.append((m.start(), m.end(), name))
        return sorted(taken)


def _maturity_variants(concepts: dict[str, Concept]) -> dict[tuple[str, str], str]:
    """{(concept, "short" | "long"): the one concept one of whose terms is "current" (or
    "noncurrent") before one of its terms}, for concepts whose terms give no maturity."""
    out = {}
    by_term = {}
    for c in concepts.values():
        for t in c.terms:
            by_term.setdefault(normalise_phrase(t), set()).add(c.name)
    for c in concepts.values():
        if any(horizon(t) for t in c.terms):
            continue
        bases = {re.sub(r"^total\s+", "", normalise_phrase(t)) for t in c.terms}
        for asked, word in (("short", "current"), ("long", "noncurrent")):
            found = set().union(*(by_term.get(f"{pre}{word} {b}", set())
                                  for b in bases for pre in ("", "total "))) - {c.name}
            if len(found) == 1:
                out[(c.name, asked)] = found.pop()
    return out


@lru_cache(maxsize=4)
def _load(path: str | None) -> Vocabulary:
    if path is None:
        raw = yaml.safe_load(resources.files("fingap").joinpath(
            "data/finance_vocabulary.yaml").read_text(encoding="utf-8"))
    else:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    concepts = {}
    for name, spec in raw.items():
        concepts[name] = Concept(
            name=name, statement=spec.get("statement", "table"),
            patterns=tuple(re.compile(p) for p in spec.get("labels", [])),
            terms=tuple(spec.get("terms", [])), magnitude=bool(spec.get("magnitude", False)),
            spent_as=spec.get("spent_as"), side=spec.get("side"), taxes=spec.get("taxes"))
    return Vocabulary(concepts)
