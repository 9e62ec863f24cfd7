"""A phrase-to-label matcher fine-tuned on what the filings print: the bundled MiniLM trained to
place a line item's plain-English meanings, its vocabulary names and the row labels the pages
print for it close together.

The pairs come from the finance vocabulary, its glossary and the fact store, never from a
question: for each concept of the vocabulary, each of its meanings (``finance_glossary.yaml``)
and terms (``finance_vocabulary.yaml``) is an anchor, and each distinct row label the fact store
reads as that concept (and each of its other terms) a positive. The loss is sentence-
transformers' ``MultipleNegativesRankingLoss`` with the page scorer's trainer
(``fingap.training.page_scorer.train_bi_encoder``): another row of the same concept in the batch
is masked, not counted as a negative, and each pair draws as a hard negative a row printed on
the same page as its positive that the vocabulary reads as another line item or as none ("Total
current assets" beside "Total assets"). Pairs are capped per concept so that net income's many
printed forms do not drown the rarer line items.

A saved model can serve as ``answer.resolver_matcher`` (it chooses rows; the gate keeps the
untrained model, so its check stays independent of the choice).
``benchmarks/label_matcher.py`` measures it against the untrained MiniLM on the question sets;
it did not beat the default (docs/answers.md), so no stage of the product trains it.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.params import ParamError
from ..training.page_scorer import Pair, TrainConfig, TrainResult, train_bi_encoder
from .labels import Vocabulary, normalise_label, normalise_phrase

NONE = "-"   # the concept key of a row the vocabulary reads as no line item


@dataclass(frozen=True)
class MatcherPairs:
    pairs: list[Pair]                              # (concept, anchor, positive, (concept, text))
    negatives: list[list[tuple[str, tuple[str, str]]]]   # per pair: (text, (concept, text))
    gold: dict[str, set[tuple[str, str]]]          # concept -> keys of its texts (masked)
    per_concept: dict[str, int]                    # pairs kept per concept


def printed_rows(db: Path) -> list[tuple[str, int, str, str | None]]:
    """(doc, page, normalised label, concept) of every distinct row the fact store holds."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return [(d, int(p), lab, c) for d, p, lab, c in conn.execute(
            "SELECT DISTINCT doc, page, label_norm, concept FROM facts "
            "WHERE label_norm IS NOT NULL AND label_norm != '' ORDER BY doc, page, label_norm")]


def matcher_pairs(vocab: Vocabulary, meanings: Mapping[str, Sequence[str]],
                  rows: Sequence[tuple[str, int, str, str | None]], max_per_concept: int,
                  seed: int) -> MatcherPairs:
    """The training pairs (module docstring), sorted and drawn reproducibly from ``seed``."""
    labels: dict[str, set[str]] = defaultdict(set)
    pages: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    for doc, page, label, concept in rows:
        if concept:
            labels[concept].add(label)
        pages[(doc, page)].setdefault(label, concept or NONE)
    # the pages each label is printed on, for its hard negatives
    where: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for key, on_page in pages.items():
        for label in on_page:
            where[label].append(key)
    rng = random.Random(seed)
    pairs: list[Pair] = []
    negatives: list[list[tuple[str, tuple[str, str]]]] = []
    gold: dict[str, set[tuple[str, str]]] = {}
    kept: dict[str, int] = {}
    for name in sorted(vocab.concepts):
        terms = [normalise_label(t) for t in vocab.concepts[name].terms]
        anchors = sorted({normalise_phrase(m) for m in meanings.get(name, ())} | set(terms))
        positives = sorted(labels.get(name, set()) | set(terms))
        cand = [(a, p) for a in anchors for p in positives if a and p and a != p]
        rng.shuffle(cand)
        cand = sorted(cand[:max_per_concept])
        kept[name] = len(cand)
        gold[name] = {(name, p) for p in positives} | {(name, a) for a in anchors}
        for a, p in cand:
            pairs.append((name, a, p, (name, p)))
            pool = sorted({(other, (c, other)) for key in where.get(p, ())
                           for other, c in pages[key].items() if c != name and other != p})
            negatives.append(pool)
    return MatcherPairs(pairs, negatives, gold, kept)


def train_label_matcher(vocab: Vocabulary, meanings: Mapping[str, Sequence[str]], db: Path,
                        cfg: TrainConfig, max_per_concept: int,
                        negatives_per_pair: int) -> tuple[object, TrainResult, MatcherPairs]:
    """(the fine-tuned SentenceTransformer, its training record, the pairs it saw)."""
    if max_per_concept < 1 or negatives_per_pair < 0:
        raise ParamError("label_matcher: max_per_concept must be >= 1 and negatives_per_pair "
                         f">= 0, got {max_per_concept}, {negatives_per_pair}")
    data = matcher_pairs(vocab, meanings, printed_rows(db), max_per_concept, cfg.seed)
    if not data.pairs:
        raise ValueError(f"{db}: the fact store reads no row as a vocabulary concept; no pairs "
                         "to train the label matcher on")
    model, result = train_bi_encoder(
        data.pairs, cfg, cfg.seed,
        negatives=data.negatives if negatives_per_pair else None,
        negatives_per_pair=negatives_per_pair, gold=data.gold)
    return model, result, data
