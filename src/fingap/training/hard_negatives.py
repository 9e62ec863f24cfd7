"""Hard negatives for the page scorer and the validation split it is early-stopped on.

In-batch negatives mostly come from other filings, which the scorer separates easily; what it
must learn is which page *of the right filing* holds the answer. Hard negatives are therefore
non-gold pages of the question's own document that a ranker puts high. FinanceBench labels one
evidence page per snippet, but the same figure often appears on several pages (the income
statement and the MD&A), so a candidate holding most of the tokens of a gold evidence snippet is
treated as an unlabelled positive and never used as a negative.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import numpy as np

from ..core.params import ParamError
from ..core.text_tokens import tokenize
from ..ingestion.corpus import Question
from ..retrieval.page_ranking import PageKey, PageRows

MINERS = ("scorer", "bm25")


def evidence_recall(evidence: str, page: str) -> float:
    """Share of the evidence's distinct tokens (finance tokenizer) that occur on the page."""
    ev = set(tokenize(evidence))
    if not ev:
        return 0.0
    return len(ev & set(tokenize(page))) / len(ev)


def mine_negatives(questions: Sequence[Question], ranked_in_doc: Callable[[Question], list],
                   page_texts: dict[PageKey, str], top: int,
                   false_negative_recall: float) -> tuple[dict[str, list[PageKey]], dict]:
    """Per question: up to ``top`` non-gold pages of its own document, best-ranked first,
    skipping likely unlabelled positives. Returns (negatives, counts)."""
    out: dict[str, list[PageKey]] = {}
    dropped = 0
    for q in questions:
        gold = set(q.gold_pages)
        snippets = [e.text for e in q.evidence if e.text.strip()]
        picked: list[PageKey] = []
        for key in ranked_in_doc(q):
            if len(picked) >= top:
                break
            if key in gold or key not in page_texts:
                continue
            if any(evidence_recall(t, page_texts[key]) >= false_negative_recall
                   for t in snippets):
                dropped += 1
                continue
            picked.append(key)
        out[q.id] = picked
    counts = {"questions": len(questions), "negatives": sum(len(v) for v in out.values()),
              "dropped_as_likely_positive": dropped,
              "questions_without_negatives": sum(1 for v in out.values() if not v)}
    return out, counts


def rank_by_scores(keys: Sequence[PageKey], scores_of: Callable[[Question], np.ndarray]):
    """A ``ranked_in_doc`` function: the question's document's pages, best score first, from
    scores over all ``keys``."""
    page_rows = PageRows(keys)

    def ranked(q: Question) -> list[PageKey]:
        rows = page_rows.of_doc(q.doc)
        if not len(rows):
            return []
        s = scores_of(q)[rows]
        return [keys[r] for r in rows[np.argsort(-s, kind="stable")]]

    return ranked


def split_validation(questions: Sequence[Question], fraction: float,
                     seed: int) -> tuple[list[Question], list[Question]]:
    """Document-grouped split of a fold's training questions into (fit, validation): whole
    documents go to validation, so early stopping is judged on unseen filings as the test is."""
    if not 0 < fraction < 1:
        raise ParamError(f"page_scorer_hn.val_fraction must be in (0, 1), got {fraction!r}")
    docs = sorted({q.doc for q in questions})
    if len(docs) < 2:
        raise ParamError("page_scorer_hn: a validation split needs >= 2 training documents")
    random.Random(seed).shuffle(docs)
    n_val = min(len(docs) - 1, max(1, math.ceil(fraction * len(docs))))
    val_docs = set(docs[:n_val])
    return ([q for q in questions if q.doc not in val_docs],
            [q for q in questions if q.doc in val_docs])


