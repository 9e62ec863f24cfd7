"""Retrieval metrics, as defined in Kobeissi & Langlais (and how fingap computes them).

For a question with gold (doc, page) set G and gold documents D, and its top-k chunks:
- DocRec@k   = 1 if any top-k chunk comes from a gold document, else 0.
- PageRec@k  = |G ∩ {(doc, page) of the top-k chunks}| / |G|. Pages are 0-based; a chunk from
               another document never counts (it is compared as a (doc, page) pair); duplicate
               gold entries count once (G is a set).
- BLEU@k     = max over top-k chunks of sacrebleu sentence BLEU(chunk, [gold evidence]) / 100.
- ROUGE-L@k  = max over top-k chunks of rouge-score ROUGE-L F-measure(gold evidence, chunk).
The gold evidence is the question's evidence snippets joined by newlines. FinanceBench's gold
text is ASCII-only (non-ASCII characters dropped from PyMuPDF text), so chunk text is normalised
the same way before BLEU/ROUGE-L. A question with no retrieved chunks scores 0 on every metric.
Aggregates are plain means over the evaluated questions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def ascii_only(text: str) -> str:
    return _NON_ASCII.sub("", text)


def doc_recall(gold_docs: Iterable[str], retrieved_docs: Sequence[str]) -> float:
    return float(bool(set(gold_docs) & set(retrieved_docs)))


def page_recall(
    gold_pages: Iterable[tuple[str, int]], retrieved: Sequence[tuple[str, int]]
) -> float:
    gold = {(d, int(p)) for d, p in gold_pages}
    if not gold:
        raise ValueError("a question needs at least one gold page")
    return len(gold & {(d, int(p)) for d, p in retrieved}) / len(gold)


# evaluate scores the same (chunk, evidence) pair once per run that retrieves it, ~126 runs;
# both scores are pure functions of the two strings, so memoising them changes no number
_TEXT_PAIR_CACHE = 1 << 16


@lru_cache(maxsize=_TEXT_PAIR_CACHE)
def bleu(candidate: str, reference: str) -> float:
    """sacrebleu sentence BLEU in [0, 1]."""
    import sacrebleu

    return sacrebleu.sentence_bleu(candidate, [reference]).score / 100.0


_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """rouge-score's default tokenisation: lower-case, non-alphanumerics as separators."""
    return _ROUGE_TOKEN.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Allison-Dix / Hyyrö).

    Exact, and O(len(a) * len(b) / wordsize): rouge-score's quadratic Python table takes
    seconds on page-sized texts; the test suite checks both agree.
    """
    if not a or not b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    masks: dict[str, int] = defaultdict(int)
    for i, tok in enumerate(a):
        masks[tok] |= 1 << i
    full = (1 << len(a)) - 1
    v = full
    for tok in b:
        m = masks.get(tok, 0)
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


@lru_cache(maxsize=_TEXT_PAIR_CACHE)
def rouge_l(reference: str, candidate: str) -> float:
    """ROUGE-L F-measure, as rouge_score.rouge_scorer.RougeScorer(['rougeL']) computes it."""
    ref, cand = rouge_tokens(reference), rouge_tokens(candidate)
    if not ref or not cand:
        return 0.0
    lcs = lcs_length(ref, cand)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(cand), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)


def max_text_scores(reference: str, chunk_texts: Sequence[str]) -> dict[str, float]:
    ref = ascii_only(reference)
    texts = [ascii_only(t) for t in chunk_texts]
    return {
        "BLEU": max((bleu(t, ref) for t in texts), default=0.0),
        "ROUGE-L": max((rouge_l(ref, t) for t in texts), default=0.0),
    }


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return float(np.mean(values)) if values else float("nan")
