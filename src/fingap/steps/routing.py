"""Stage ``route_docs``: cover records of every filing and the router's document ranking for
every evaluated question (``fingap.retrieval.doc_routing``), with its DocRec on its own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.io import read_jsonl, write_json, write_jsonl
from ..core.params import ParamError, require_int
from ..ingestion.corpus import STATUS_EVALUATED, read_documents, read_questions, served
from ..ingestion.extract import read_page_texts
from ..retrieval.doc_routing import (
    CoverRecord,
    RoutingWeights,
    build_cover,
    doc_recall_at,
    route,
    share_company_facts,
)

CUTOFFS = (1, 3, 5, 10)
SUMMARIES = ("extractive", "llm")


def llm_summaries(covers: Sequence[CoverRecord], first_pages: dict[str, list[str]],
                  llm_params: dict, cache_path: Path) -> list[CoverRecord]:
    """Each cover with the configured LLM's summary of its first pages in place of the
    extractive one (kept where the LLM fails or replies nothing)."""
    from ..generation.cover_summary import clean_summary, summary_messages
    from ..generation.llm import open_llm
    from ..generation.llm_base import Request

    with open_llm(llm_params, cache_path) as llm:
        results = llm.generate_many([
            Request(summary_messages(c.company, c.form, c.doc, first_pages[c.doc]), 96)
            for c in covers])
    return [replace(c, summary=clean_summary(r.text) or c.summary) if r.error is None else c
            for c, r in zip(covers, results, strict=True)]


def ranking_for(questions: dict[str, str], covers: Sequence[CoverRecord],
                weights: RoutingWeights, keep: int) -> dict[str, list[list]]:
    """The route_docs ranking of ``questions`` as it is stored (``{qid: [[doc, score], ...]}``,
    the first ``keep`` documents, by question id). One function serves the stage, for the
    evaluated questions, and ``fingap ask`` / ``fingap search``, for any other: a question's
    ranking depends on its text and the cover records alone."""
    ranking = route(questions, covers, weights)
    return {q: [[d, sc] for d, sc in r[:keep]] for q, r in sorted(ranking.items())}


def run_route_docs(params: dict, corpus_out: Path, pages_path: Path,
                   out_dir: Path, report_path: Path, llm_params: dict | None = None,
                   cache_path: Path = Path("data/cache/llm_routing.sqlite")) -> dict:
    """``routing.summaries``: ``extractive`` (default, no LLM) or ``llm`` (the configured LLM
    writes each cover's summary; for a capable model only)."""
    weights = RoutingWeights.from_params(params.get("weights") or {})
    n_pages = require_int(params, "routing", "cover_pages", minimum=1)
    keep = require_int(params, "routing", "keep", minimum=1)
    summaries = params.get("summaries", "extractive")
    if summaries not in SUMMARIES:
        raise ParamError(f"routing.summaries must be one of {SUMMARIES}, got {summaries!r}")
    if summaries == "llm" and llm_params is None:
        raise ParamError("routing.summaries: llm needs the llm section")
    # the corpus stage's documents: FinanceBench's document information or a user's metadata
    # and cover pages, in one shape (build_cover reads FinanceBench's field names)
    meta = {d.doc: {"company": d.company, "doc_type": d.form,
                    "doc_period": str(d.year) if d.year else ""}
            for d in read_documents(corpus_out).values()}
    pages: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for (doc, page), text in read_page_texts(pages_path).items():
        pages[doc].append((page, text))
    first = {doc: [t for _, t in sorted(pages[doc])[:n_pages]] for doc in sorted(pages)}
    covers = share_company_facts([build_cover(doc, meta.get(doc, {}), first[doc])
                                  for doc in sorted(pages)])
    if summaries == "llm":
        covers = llm_summaries(covers, first, llm_params, cache_path)
    every = served(read_questions(corpus_out))  # routed; scored below only with gold
    ranking = ranking_for({q.id: q.question for q in every}, covers, weights, keep)
    questions = [q for q in every if q.status == STATUS_EVALUATED]
    write_jsonl(out_dir / "covers.jsonl", (c.to_dict() for c in covers))
    write_json(out_dir / "ranking.json", ranking)

    def recall(qs) -> dict:
        row = {f"DocRec@{n}": float(np.mean([doc_recall_at(q.gold_docs,
                                                          [d for d, _ in ranking[q.id]], n)
                                             for q in qs])) for n in CUTOFFS}
        row["n"] = len(qs)
        return row

    by_type: dict[str, list] = defaultdict(list)
    for q in questions:
        by_type[q.doc_type].append(q)
    report = {"n_docs": len(covers), "weights": weights.__dict__, "summaries": summaries,
              "overall": recall(questions) if questions else {"n": 0},
              "by_doc_type": {t: recall(qs) for t, qs in sorted(by_type.items())},
              "covers_with_ticker": sum(c.ticker is not None for c in covers),
              "covers_with_registrant": sum(c.registrant is not None for c in covers)}
    write_json(report_path, report)
    return report


def adhoc_ranking(questions: dict[str, str], routing_params: dict, covers_path: Path) -> dict:
    """The route_docs ranking of questions the stage never saw: the same router, cover
    records and parameters (``routing.weights``, ``routing.keep``) as the stage."""
    if not covers_path.exists():
        raise FileNotFoundError(f"{covers_path} not found; run `dvc repro route_docs` first")
    covers = [CoverRecord(**{**d, "aliases": tuple(d.get("aliases") or ())})
              for d in read_jsonl(covers_path)]
    weights = RoutingWeights.from_params(routing_params.get("weights") or {})
    keep = require_int(routing_params, "routing", "keep", minimum=1)
    return ranking_for(questions, covers, weights, keep)
