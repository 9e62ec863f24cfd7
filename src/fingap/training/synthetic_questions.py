"""More training signal for the page scorer, fold-safe: questions templated from the fact store.

A statement-table fact (a recognised line item, a fiscal year, the page it is printed on)
becomes "What was {company}'s {line item} in FY{year}?", a training pair whose positive is that
statement page. Only documents of a fold's training side may be used; asking for any of its test
documents raises ``FoldLeak`` before anything is generated.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .folds import FoldLeak

TEMPLATE = "What was {company}'s {item} in FY{year}?"


@dataclass(frozen=True)
class SyntheticQuestion:
    id: str
    question: str
    doc: str
    page: int
    concept: str
    fiscal_year: int
    item: str = ""          # the printed line item, as the question names it


def _item(label: str) -> str:
    """A printed row label as a noun phrase: no trailing colon or footnote marks."""
    text = " ".join(label.split()).rstrip(":*").strip()
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _preference(fact: Mapping) -> tuple:
    """The preferred label pattern first, then the earliest page and table."""
    return (fact.get("concept_rank") or 0, fact["page"], fact.get("tbl") or 0)


def qualifies(fact: Mapping) -> bool:
    """A fact a question can be templated from: a recognised line item (``concept``), an
    amount (not a percent), a fiscal year."""
    return bool(fact.get("concept")) and not fact.get("percent") and \
        fact.get("fiscal_year") is not None


def template_questions(facts: Iterable[Mapping], company_of: Mapping[str, str],
                       train_docs: Iterable[str], test_docs: Iterable[str],
                       per_doc: int, seed: int) -> list[SyntheticQuestion]:
    """Up to ``per_doc`` questions per training document, one per (line item, fiscal year),
    drawn reproducibly from ``seed``. Facts qualify when their label maps to a vocabulary
    concept (``concept`` set), they are amounts (not percents) with a fiscal year, and their
    document is in ``train_docs``; among a concept's labels the preferred one
    (``concept_rank`` 0 first) names the item."""
    train, test = set(train_docs), set(test_docs)
    leak = train & test
    if leak:
        raise FoldLeak(f"synthetic questions asked for test documents {sorted(leak)}")
    best: dict[tuple[str, str, int], Mapping] = {}
    for f in facts:
        if f["doc"] not in train or not qualifies(f) or f["doc"] not in company_of:
            continue
        key = (f["doc"], f["concept"], int(f["fiscal_year"]))
        if key not in best or _preference(f) < _preference(best[key]):
            best[key] = f
    by_doc: dict[str, list[tuple[str, str, int]]] = {}
    for key in sorted(best):
        by_doc.setdefault(key[0], []).append(key)
    rng = random.Random(seed)
    out = []
    for doc in sorted(by_doc):
        keys = by_doc[doc]
        for doc_, concept, year in sorted(rng.sample(keys, min(per_doc, len(keys)))):
            f = best[(doc_, concept, year)]
            item = _item(f["label"])
            out.append(SyntheticQuestion(
                id=f"syn::{doc}::{concept}::{year}",
                question=TEMPLATE.format(company=company_of[doc], item=item, year=year),
                doc=doc, page=int(f["page"]), concept=concept, fiscal_year=year, item=item))
    return out
