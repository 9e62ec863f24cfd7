"""Pipeline step of doc2query (#14 part 4): LLM-written training questions for pages of each
fold's training documents (fingap.training.doc2query), for the hard-negative page scorers.

A fold's documents are split into fit and validation documents exactly as the scorers' training
splits them (page_scorer_hn.val_fraction and seed), and only fit documents are asked about; the
fold's test and validation documents are refused (FoldLeak). Off while ``doc2query.per_doc`` is
0: the stage then writes an empty file and never loads the LLM.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..core.io import read_json, write_json, write_jsonl
from ..generation.llm import open_llm
from ..generation.llm_base import Request
from ..ingestion.corpus import read_questions
from ..ingestion.extract import read_page_texts
from ..training.doc2query import Doc2QueryConfig, generate_questions
from ..training.folds import fold_training_sets
from ..training.hard_negatives import split_validation
from .page_scorer_hn import HardNegativeConfig


def run_doc2query(d2q_params: dict, hn_params: dict, llm_params: dict, corpus_out: Path,
                  pages_path: Path, folds_path: Path, out_path: Path, report_path: Path,
                  cache_path: Path) -> dict:
    """Writes one record per question (``fold``, ``id``, ``doc``, ``page``, ``question``) to
    ``out_path`` and the counts per fold to ``report_path``."""
    cfg = Doc2QueryConfig.from_params(d2q_params)
    hn = HardNegativeConfig.from_params(hn_params)
    rows: list[dict] = []
    report: dict = {"config": vars(cfg), "llm": None, "folds": []}
    if cfg.per_doc:
        questions = read_questions(corpus_out)
        company_of = {q.doc: q.company for q in questions}
        by_doc: dict[str, dict[int, str]] = {}
        for (doc, page), text in read_page_texts(pages_path).items():
            by_doc.setdefault(doc, {})[page] = text
        report["llm"] = {k: llm_params.get(k) for k in ("backend", "model")}
        with open_llm(llm_params, cache_path) as llm:
            def ask(prompts: Sequence[list[dict]], max_new_tokens: int) -> list[str | None]:
                results = llm.generate_many([Request(m, max_new_tokens) for m in prompts])
                return [None if r.error else r.text for r in results]

            for f, train_q in fold_training_sets(read_json(folds_path), questions):
                fold = f["fold"]
                if not f["train_docs"]:  # no gold evidence: no fold trains, nothing to ask
                    report["folds"].append({"fold": fold, "questions": 0,
                                            "rejected_replies": 0, "documents": 0})
                    continue
                _, val_q = split_validation(train_q, hn.val_fraction, hn.seed + fold)
                val_docs = {q.doc for q in val_q}
                made, rejected = generate_questions(
                    ask, by_doc, company_of, set(f["train_docs"]) - val_docs,
                    set(f["test_docs"]) | val_docs, cfg)
                rows += [{"fold": fold, **r} for r in made]
                report["folds"].append({"fold": fold, "questions": len(made),
                                        "rejected_replies": rejected,
                                        "documents": len({r["doc"] for r in made})})
    write_jsonl(out_path, rows)
    write_json(report_path, report)
    return report
