"""A line item the question describes in its own words, named so the parser can build around it.

"its stock of goods turnover" asks for inventory turnover; "the ratio of its short-term assets
to everything it owed within the year" for a current ratio. The parser builds a metric from the
names the vocabulary and the formula library know; a described line item stops it. When a
question does not parse, the glossary (``fingap.answers.glossary``: a phrase read as the concept
whose plain-English meanings fit it, with a threshold and a margin over the next concept) reads
the spans of the asked phrase that name nothing known yet, longest first, and the question is
parsed again with the concept's vocabulary term in place of the span. The agent records each
replacement as a step, so an answer shows which words were read as which line item.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .formulas import Metric, metric_term_spans
from .labels import Vocabulary, horizon, normalise_phrase

# words that open or close no description of a line item ("of its", "the", "and")
_EDGE = {"a", "an", "the", "its", "their", "of", "to", "and", "or", "on", "in", "for", "by",
         "as", "at", "from", "with", "that", "this", "was", "were", "is", "are", "did", "does",
         "do", "what", "how", "much", "many", "over", "per", "between", "during", "it", "has",
         "had", "have"}
# a word of a metric or an operation belongs to the shape around the line item
_SHAPE = re.compile(r"\b(?:turnover|margin|ratio|rate|days?|growth|percent|percentage|share|"
                    r"return|change|average|mean|divided|times|minus|plus|less|over|per|"
                    r"multiple|coverage|yield|cover|covered|fiscal|years|quarters?|weeks?|ended|"
                    r"ending|millions?|billions?|thousands?|usd|dollars?|decimals?|places?|"
                    r"rounded|round|statements?|sheets?|release|report|filing|relying|using|"
                    r"mainly|based|according|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|"
                    r"[0-9][0-9a-z]*|fy[0-9]*|q[1-4]|h[12])\b")
# a maturity's words ("within the year") end a description only as a whole maturity
_MATURITY_END = {"year", "months", "within", "due", "after", "twelve"}
# whose share a line item is ("profit attributable to its own shareholders"): the words after
# these name the holders, never a line item
_HOLDER_BEFORE = {("attributable", "to"), ("belonging", "to"), ("belongs", "to"),
                  ("available", "to"), ("allocable", "to")}
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\u2019&\-]*")
MAX_SPAN = 6


@dataclass(frozen=True)
class Replacement:
    words: str      # the question's words
    concept: str    # the vocabulary concept the glossary read them as
    term: str       # the vocabulary term put in their place
    score: float    # the glossary's score


def name_described_items(question: str, asked: str,
                         read: Callable[[str], tuple[str, float] | None], vocab: Vocabulary,
                         library: dict[str, Metric], skip_words: frozenset[str] = frozenset(),
                         max_items: int = 2) -> tuple[str, list[Replacement]]:
    """The question with up to ``max_items`` described line items of its asked phrase
    (``asked``, a substring of ``question``) replaced by their vocabulary terms, and the
    replacements; the question unchanged and [] when the glossary reads no span.
    ``skip_words``: the normalised words that spell the company, never part of a line item."""
    start = question.find(asked)
    if start < 0:
        # the parser's reading of the question ("turn over" -> "turnover"): read it all
        asked, start = question, 0
    tokens = [(m.start() + start, m.end() + start, normalise_phrase(m.group(0)))
              for m in _WORD.finditer(asked)]
    known = _known_tokens([w for _, _, w in tokens], vocab, library)
    taken: list[tuple[int, int]] = []
    out: list[tuple[int, int, Replacement]] = []
    for size in range(min(MAX_SPAN, len(tokens)), 1, -1):
        for i in range(len(tokens) - size + 1):
            span = tokens[i:i + size]
            words = [w for _, _, w in span]
            a, b = span[0][0], span[-1][1]
            if words[0] in _EDGE or words[-1] in _EDGE or words[0] in _MATURITY_END or \
                    (words[-1] in _MATURITY_END and horizon(" ".join(words)) is None) or \
                    any(a < y and x < b for x, y in taken) or \
                    any(i <= k < i + size for k in known) or \
                    any(w in skip_words or _SHAPE.fullmatch(w) for w in words) or \
                    _after_holder_words([w for _, _, w in tokens[:i]], skip_words):
                continue
            got = read(" ".join(words))
            if got is None or not vocab.concepts.get(got[0]) or \
                    not vocab.concepts[got[0]].terms:
                continue
            term = vocab.concepts[got[0]].terms[0]
            taken.append((a, b))
            out.append((a, b, Replacement(question[a:b], got[0], term, got[1])))
            if len(out) == max_items:
                break
        if len(out) == max_items:
            break
    text = question
    for a, b, r in sorted(out, key=lambda x: -x[0]):
        text = text[:a] + r.term.lower() + text[b:]
    return text, [r for _, _, r in sorted(out, key=lambda x: x[0])]


def _after_holder_words(before: list[str], skip_words: frozenset[str]) -> bool:
    """Whether the words before a span end with "attributable to" (or "belonging to", ...),
    the company's name and possessives in between skipped: the span names whose share it is."""
    words = [w for w in before if w not in skip_words and w not in ("its", "the", "their")
             and not w.endswith(("'", "\u2019", "s'"))]
    return tuple(words[-2:]) in _HOLDER_BEFORE


def _known_tokens(words: list[str], vocab: Vocabulary, library: dict[str, Metric]) -> set[int]:
    """The positions of the (normalised) words that a vocabulary term or a library metric
    already names, found in the words joined as one text."""
    text, starts = "", []
    for w in words:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text} {w}" if text else w
    spans = [(a, b) for a, b, _ in vocab.find_terms(text)] + \
        metric_term_spans(text, library.values())
    return {i for i, s in enumerate(starts) if any(a <= s < b for a, b in spans)}
