"""Line items described rather than named: an operand's phrase read as a vocabulary concept by
meaning.

A person asks for "everything the company owned" or "what customers owe it, after allowances",
not for "Total assets" or "Accounts receivable, net". No printed label shares those words, and
no list of synonyms can hold every way of saying them. The glossary
(``fingap/data/finance_glossary.yaml``) gives each concept of the finance vocabulary its
plain-English meanings, written from standard accounting definitions; a phrase is scored
against them and the concept's own vocabulary terms by a sentence embedder, and read as the
concept whose best score reaches ``threshold`` and leads every other concept's by ``margin``.
An ambiguous phrase ("obligations due": current or all liabilities?) reads as nothing; a phrase
that gives a maturity ("due within a year") reads only as a concept with that maturity, and
one that says the company owns, is owed or owes the amount only as a balance of that side
(``fingap.answers.labels.balance_side``: the embedder hardly reads who owes whom).

The line-item resolver (``fingap.answers.resolver``) takes this reading only for a phrase that
no printed label on the candidate pages matches by its words; the meaning gate scores a row
against its concept's meanings as well as its label, so a row the vocabulary reads as "Total
assets" is judged as what total assets are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import yaml

from .label_match import LabelMatcher
from .labels import Vocabulary, balance_side, horizon
from .resolver import deducted_row, tax_side


@dataclass(frozen=True)
class GlossParams:
    threshold: float = 0.6   # the best concept's cosine must reach this
    margin: float = 0.05     # ... and lead the next concept's by at least this
    # ... or reach this when the phrase's words fix both its balance-sheet side and its
    # maturity ("everything it owed within the next twelve months"): one line item's family
    # is left, and the embedder scores a long description of it lower
    # (``answer.gloss_fixed_threshold``; docs/answers.md says how it was chosen)
    fixed_threshold: float = 0.55
    # the gate's coverage check takes a reading as explaining the words of the phrase only at
    # this cosine or more: it releases an answer, so it asks more than a reading that only
    # chooses which row to look at (``answer.gloss_explains``; docs/answers.md)
    explains: float = 0.7


def load_meanings(path: str | Path | None = None) -> dict[str, tuple[str, ...]]:
    """{concept: its plain-English meanings} from the glossary file."""
    return dict(_load(str(path) if path else None))


@lru_cache(maxsize=4)
def _load(path: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    text = resources.files("fingap").joinpath("data/finance_glossary.yaml").read_text(
        encoding="utf-8") if path is None else Path(path).read_text(encoding="utf-8")
    raw = yaml.safe_load(text) or {}
    out = []
    for concept, meanings in raw.items():
        if not isinstance(meanings, list) or not all(isinstance(m, str) and m.strip()
                                                     for m in meanings):
            raise ValueError(f"{path or 'finance_glossary.yaml'}: {concept!r} must map to a "
                             "list of non-empty strings")
        out.append((concept, tuple(meanings)))
    return tuple(out)


def with_head_clause(meaning: str) -> tuple[str, ...]:
    """A meaning and, when it goes on after a comma, its head clause alone ("everything the
    company owns or controls" of "..., its current and noncurrent assets together"): a short
    phrase scores low against a long sentence that says more than it asks, and the head clause
    is a meaning by itself. Only the head: a clause after a comma qualifies the one before."""
    head = meaning.split(",", 1)[0].strip()
    return (meaning, head) if head != meaning.strip() and len(head.split()) >= 4 else (meaning,)


class Glossary:
    """Scores phrases against each concept's meanings and vocabulary terms."""

    def __init__(self, vocab: Vocabulary, matcher: LabelMatcher,
                 meanings: dict[str, tuple[str, ...]] | None = None,
                 params: GlossParams = GlossParams()):
        meanings = load_meanings() if meanings is None else meanings
        unknown = sorted(set(meanings) - set(vocab.concepts))
        if unknown:
            raise ValueError(f"finance_glossary.yaml names concepts the vocabulary does not "
                             f"have: {unknown}")
        self.matcher, self.params = matcher, params
        self.texts: list[str] = []
        self.owner: list[str] = []
        for name, concept in vocab.concepts.items():
            for text in (*(t for m in meanings.get(name, ()) for t in with_head_clause(m)),
                         *concept.terms):
                self.texts.append(text)
                self.owner.append(name)
        # each concept's maturity, as its first term says ("total current liabilities": short)
        self.horizons = {name: horizon(c.terms[0] if c.terms else name.replace("_", " "))
                         for name, c in vocab.concepts.items()}
        self.sides = {name: c.side for name, c in vocab.concepts.items()}
        self.concepts = vocab.concepts

    def scores(self, phrase: str) -> dict[str, float]:
        """{concept: best cosine of the phrase against its meanings and terms}."""
        if not phrase.strip():
            return {}
        sims = self.matcher.matrix([phrase], self.texts)
        if not len(sims):
            return {}
        best: dict[str, float] = {}
        for owner, sim in zip(self.owner, sims[0], strict=True):
            best[owner] = max(best.get(owner, -1.0), float(sim))
        return best

    def concept_score(self, phrase: str, concept: str) -> float:
        """The phrase's best cosine against one concept's meanings and terms (0 for none)."""
        return self.scores(phrase).get(concept, 0.0) if phrase.strip() else 0.0

    def read(self, phrase: str, side: str | None = None) -> tuple[str, float] | None:
        """(concept, score) the phrase describes, or None when no concept reaches the
        threshold or two are too close to tell apart. ``side``: the balance-sheet side the
        operand's whole phrase gives (``balance_side``), for a phrase stripped of the words
        that say it ("owed to the company" -> "owed"); else the phrase's own."""
        if not phrase.strip():
            return None
        # "liabilities due within a year" can only be a line item due within a year, and
        # "what it owes its vendors" only a liability
        asked, owing = horizon(phrase), side or balance_side(phrase)
        # "profit after taxes" is no measure before them (embeddings hardly tell "before"
        # from "after"), nor the taxes it is left after
        taxed = tax_side(phrase)
        # (an "after-tax" profit is no profit left after the tax line)
        deducting = re.search(r"\bafter[\s-]tax\s+[a-z]", phrase) is None
        ranked = sorted(((c, s) for c, s in self.scores(phrase).items()
                         if (asked is None or self.horizons[c] == asked)
                         and (owing is None or self.sides[c] == owing)
                         and (taxed is None or self.concepts[c].taxes in (None, taxed))
                         and not (deducting and any(deducted_row(phrase, t)
                                                    for t in self.concepts[c].terms))),
                        key=lambda kv: -kv[1])
        bar = self.params.fixed_threshold if asked and owing else self.params.threshold
        if not ranked or ranked[0][1] < bar:
            return None
        second = ranked[1][1] if len(ranked) > 1 else -np.inf
        if ranked[0][1] - second < self.params.margin:
            return None
        return ranked[0][0], round(ranked[0][1], 4)
