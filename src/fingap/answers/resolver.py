"""The line-item resolver: which printed row an operand's phrase names, read from the rows.

An operand of a figure question ("the carrying value of the merchandise stock", "cost of
services", a vocabulary concept such as ``inventory``) is matched against the row labels that
the candidate pages print, not against a list of names, by two signals:

- the vocabulary prior: rows the finance vocabulary reads as the operand's own concept come
  first (all of them: the agent orders them by period, statement and page, the question's own
  words breaking ties). A prior, not the only way in: when the candidate pages print no such
  row (then a row the vocabulary reads as another concept is ruled out), or the prior is off
  (``answer.vocabulary_prior``, so the resolver can be measured without it), the operand is
  resolved by
- lexical overlap: the Dice coefficient of the content-word stems of phrase and label, the
  company's own name dropped from both. The labels with the highest overlap win (ties kept),
  if it reaches ``answer.min_overlap``; else the operand is not found on these pages.

The semantic check of a chosen row stays with the meaning gate (``fingap.answers.meaning``),
whose sentence embedder takes no part here: the row is chosen by words and the vocabulary, and
judged by an independent score.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .labels import balance_side, normalise_phrase

# function words, and words that say how a question asks rather than which line item
_STOP = {"the", "a", "an", "of", "and", "or", "for", "in", "on", "at", "to", "from", "its",
         "their", "by", "as", "with", "that", "this", "was", "were", "is", "are", "be", "it",
         "did", "does", "do", "has", "have", "had", "what", "how", "much", "many", "which",
         "company", "companys", "total", "amount", "figure", "value", "reported", "usd",
         "million", "millions", "billion", "billions", "thousand", "thousands", "dollars",
         "year", "years", "fiscal", "fy", "end", "ended", "ending", "period", "during", "per"}
_DIGITS = re.compile(r"\d")


@lru_cache(maxsize=20_000)
def stem(word: str) -> str:
    """A light English stem: plural and common inflections off ("liabilities" -> "liabilit",
    "expenses" -> "expens", "operating" -> "operat"); "taxes" -> "tax", as "tax" stays."""
    if word.endswith("xes") and len(word) >= 5:
        return word[:-2]
    for suffix in ("ies", "ied", "ing", "es", "ed", "s", "y", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def content_stems(text: str, skip: set[str] = frozenset()) -> frozenset[str]:
    """The stems of a normalised text's content words (no function words, numbers or the
    words in ``skip``, e.g. the company's name)."""
    return frozenset(stem(w) for w in text.split()
                     if w not in _STOP and w not in skip and not _DIGITS.search(w) and len(w) > 1)


def lexical_overlap(phrase: frozenset[str], label: frozenset[str]) -> float:
    """Dice coefficient of two stem sets, in [0, 1]."""
    if not phrase or not label:
        return 0.0
    return 2 * len(phrase & label) / (len(phrase) + len(label))


@dataclass(frozen=True)
class ResolverParams:
    vocabulary_prior: bool = True
    # a label without the prior must share at least this Dice overlap with the phrase
    min_overlap: float = 0.5
    # optional: a sentence embedder whose cosine may also resolve a phrase (at least
    # ``min_similarity``); it must not be the gate's matcher, whose check it would void
    matcher: str | None = None
    min_similarity: float = 0.6


# the most distinct labels the glossary reads for an operand whose concept no row is read as:
# a few candidate pages print well under this, a whole document (a follow-up) more
MAX_LABELS_READ = 300

# (phrase, labels) -> one cosine per label
Similarity = Callable[[str, list[str]], Sequence[float]]
# phrase -> (concept, score) it describes, or None (``fingap.answers.glossary.Glossary.read``)
# (``side``: the balance-sheet side the operand's whole phrase gives, ``balance_side``)
GlossReader = Callable[..., "tuple[str, float] | None"]


# words that relate two line items or change one ("assets exceed liabilities", "debt including
# its current slice"): a phrase holding one describes no single line item
# ... and a negation ("dividends declared and not paid"), which a sentence embedder does not read
_RELATING = re.compile(r"\b(?:not|exceed\w*|than|minus|plus|less|net\s+of|excluding|including|"
                       r"changed?|difference|between|versus|vs|ratio|per|over|above|below)\b")


# which side of income taxes a phrase or label stands on ("after taxes", "pre-tax",
# "before provision for income taxes")
_TAX_SIDE = re.compile(r"\b(?P<side>before|after|pre|post)[\s-]*(?:all\s+)?(?:[a-z]+\s+){0,3}?"
                       r"(?:income\s+)?tax(?:es|ation)?\b", re.I)


def tax_side(text: str, leading: bool = False) -> str | None:
    """"before" or "after" income taxes, as a phrase or label says, else None; ``leading``:
    only where the text starts with it ("pre-tax profit", not "the tax on pre-tax profit")."""
    m = _TAX_SIDE.match(text.strip()) if leading else _TAX_SIDE.search(text)
    return None if m is None else "before" if m["side"].lower() in ("before", "pre") else "after"


def taxes_side_conflict(phrase: str, label: str) -> tuple[str, str] | None:
    """(the phrase's side, the label's side) of income taxes where the two differ, else None."""
    a, b = tax_side(phrase), tax_side(label)
    return (a, b) if a and b and a != b else None


# "what it kept after the cost of sales": what is left once the words after it are taken away
_AFTER = re.compile(r"^(?P<lead>.*?)\b(?:after|less|net\s+of|minus)\s+(?P<rest>.+)$")


def deducted_row(phrase: str, label: str) -> bool:
    """Whether a row is what the phrase takes away rather than what is left: the label shares
    words with those after "after" / "less" / "net of" and none with the words before ("keep
    after the direct cost of the products sold" read as "Cost of sales")."""
    m = _AFTER.match(normalise_phrase(phrase))
    if m is None:
        return False
    lead, rest = content_stems(m["lead"]), content_stems(m["rest"])
    printed = content_stems(normalise_phrase(label))
    return bool(lead) and bool(printed & rest) and not printed & lead


# a phrase that adds up what it names: "the combined cost of the products and services it sold"
_COMBINED = re.compile(r"\b(?:combined|together|both|sum\s+of)\b")


def one_part_of_a_sum(phrase: str, label: str) -> bool:
    """Whether the phrase adds up line items joined by "and" ("the combined cost of the
    products and services it sold") while the row prints only one of the two words the "and"
    joins ("Cost of products", "Cost of services"): a part, never the sum asked for."""
    norm = normalise_phrase(phrase)
    if not _COMBINED.search(norm) or " and " not in f" {norm} ":
        return False
    left, _, right = norm.partition(" and ")
    before = [w for w in left.split() if content_stems(w)]
    after = [w for w in right.split() if content_stems(w)]
    if not before or not after:
        return False
    printed = content_stems(normalise_phrase(label))
    joined = (content_stems(before[-1]) <= printed, content_stems(after[0]) <= printed)
    return joined[0] != joined[1]


def _glossed(facts: list[dict], concept: str, score: float,
             overlap: dict[str, float]) -> list[dict]:
    """The facts the vocabulary reads as ``concept``, marked as read through the glossary."""
    return [f | {"resolver_prior": False, "resolver_gloss": concept,
                 "resolver_overlap": round(overlap.get(f["label_norm"], 0.0), 4),
                 "resolver_score": score}
            for f in facts if f["concept"] == concept]


# words that say how a figure is taken whole or combined ("the simple average of everything it
# owned", "the combined value of ...", "what everything it owned added up to") or where and how
# it is shown ("the size of its balance sheet, measured by ...", "as carried on its balance
# sheet"), never which line item: the glossary reads the rest ("consolidated" stays: a
# consolidated profit includes the minority's share)
_AGGREGATE = {"simple", "combined", "sum", "together", "altogether", "overall", "entire",
              "whole", "size", "measured", "counting", "carried", "dated", "shown"}
_NOT_DESCRIBING = re.compile(r"\b(?:add|adds|added|adding)\s+up\b|\bbalance\s+sheets?\b")


def gloss_phrase(phrase: str, skip_words: set[str] = frozenset()) -> str:
    """The words of an operand's phrase that can describe a line item: no function words,
    company name, numbers or words of how the question asks; "" for a phrase that relates
    two line items or changes one (the glossary reads it as nothing)."""
    if _RELATING.search(normalise_phrase(phrase)):
        return ""
    norm = _NOT_DESCRIBING.sub(" ", normalise_phrase(phrase))
    return " ".join(w for w in norm.split()
                    if (w not in _STOP or w in _HORIZON) and w not in skip_words
                    and w not in _AGGREGATE and not _DIGITS.search(w))


def written_words(text: str, skip_words: set[str] = frozenset()) -> str:
    """An operand's words as the question wrote them, normalised, without the skip words (the
    company's name); "" for a phrase that relates two line items or changes one, as for
    ``gloss_phrase``."""
    if not text or _RELATING.search(normalise_phrase(text)):
        return ""
    return " ".join(w for w in normalise_phrase(text).split() if w not in skip_words)


def read_described(read: GlossReader, phrase: str, described: str = "",
                   skip_words: set[str] = frozenset()) -> tuple[str, float] | None:
    """A glossary reader's reading of an operand: its describing words (``gloss_phrase``)
    first, else its words as the question wrote them (``written_words``: a sentence embedder
    reads "everything the company owned" better than "everything owned"); the balance-sheet
    side comes from the words as written, which say more ("owed to the company")."""
    side = balance_side(described or phrase)
    written = written_words(described, skip_words)
    return read(gloss_phrase(phrase, skip_words), side=side) or (
        read(written, side=side) if written else None)


# a maturity's words say which line item ("due within a year"): kept for the glossary
_HORIZON = {"year", "years"}


def resolve_rows(phrase: str, concept: str | None, facts: list[dict],
                 params: ResolverParams = ResolverParams(),
                 skip_words: set[str] = frozenset(),
                 similarity: Similarity | None = None,
                 gloss: GlossReader | None = None,
                 label_gloss: GlossReader | None = None,
                 home: str | None = None, described: str = "") -> list[dict]:
    """The candidate facts for an operand, each with ``resolver_overlap`` (and
    ``resolver_prior``). With the prior on and rows the vocabulary reads as ``concept``: all of
    those (the agent orders them by period and statement, the question's words breaking ties).
    Otherwise the facts of the labels with the highest lexical overlap with ``phrase``, if it
    reaches ``min_overlap``; else, with ``gloss``, the facts the vocabulary reads as the concept
    the phrase describes (``resolver_gloss``). For a concept no row is read as, and no label
    shares the phrase's words, ``label_gloss`` reads the printed labels themselves (those on
    the concept's ``home`` statement, when given): the rows it reads as the concept.
    ``described``: the operand's words as the question wrote them, function words kept
    ("everything the company owned"), which the glossary reads when the bare phrase says too
    little (``read_described``). [] when nothing qualifies."""
    want = content_stems(normalise_phrase(phrase), skip_words)
    # a row on the other side of income taxes from the phrase is never its line item
    if side := tax_side(phrase):
        facts = [f for f in facts if tax_side(f["label_norm"] or "") in (None, side)]
    overlap: dict[str, float] = {}
    for f in facts:
        if f["label_norm"] not in overlap:
            overlap[f["label_norm"]] = lexical_overlap(
                want, content_stems(f["label_norm"] or "", skip_words))
    if params.vocabulary_prior and concept is not None:
        own = [f for f in facts if f["concept"] == concept]
        if own:
            return [f | {"resolver_prior": True,
                         "resolver_overlap": round(overlap[f["label_norm"]], 4)} for f in own]
        # the prior also rules out: a row the vocabulary reads as another line item ("Total
        # current assets" for total assets) is not this one, however many words it shares
        facts = [f for f in facts if f["concept"] is None]
        overlap = {f["label_norm"]: overlap[f["label_norm"]] for f in facts}
    if concept is None and label_gloss and params.vocabulary_prior:
        # a phrase that names a line item in other words ("short-term assets") shares a word
        # or two with another printed label ("Short-term debt"): a reading of the phrase as
        # sure as the gate's label check picks that line item's rows before a partial overlap
        read = read_described(label_gloss, phrase, described, skip_words)
        own = _glossed(facts, *read, overlap) if read else []
        if own and max(overlap.values(), default=0.0) < 1.0:
            return own
    score = {k: v if v >= params.min_overlap else 0.0 for k, v in overlap.items()}
    if similarity is not None and score:
        labels = list(score)
        plain = [" ".join(w for w in label.split() if w not in skip_words) for label in labels]
        cosines = similarity(" ".join(w for w in normalise_phrase(phrase).split()
                                      if w not in skip_words), plain)
        for label, cos in zip(labels, cosines, strict=True):
            if cos >= params.min_similarity:
                score[label] = max(score[label], float(cos))
    best = max(score.values(), default=0.0)
    if best <= 0.0 and label_gloss and params.vocabulary_prior and concept is not None and \
            len(overlap) <= MAX_LABELS_READ:
        # a line item of the vocabulary printed in words its patterns do not know ("Purchases
        # of land, buildings, and equipment"): the rows whose label the glossary reads as the
        # operand's concept; only over a few pages' labels (not a follow-up's whole document)
        # ... and only rows of the concept's own statement ("Dividends payable" on a balance
        # sheet is no dividend paid, however close the words)
        home_labels = {f["label_norm"] for f in facts if home is None or f["statement"] == home}
        read_as = {label: got[1] for label in sorted(home_labels)
                   if (got := label_gloss(gloss_phrase(label))) and got[0] == concept}
        return [f | {"resolver_prior": False, "resolver_gloss": concept,
                     "resolver_overlap": round(overlap[f["label_norm"]], 4),
                     "resolver_score": read_as[f["label_norm"]]}
                for f in facts if f["label_norm"] in read_as]
    if best <= 0.0:
        # the glossary is the vocabulary's knowledge too: off with the prior
        read = read_described(gloss, phrase, described, skip_words) \
            if gloss and concept is None and params.vocabulary_prior else None
        if read is None:
            return []
        return _glossed(facts, *read, overlap)
    return [f | {"resolver_prior": False, "resolver_overlap": round(overlap[f["label_norm"]], 4),
                 "resolver_score": round(best, 4)}
            for f in facts if score[f["label_norm"]] == best]
