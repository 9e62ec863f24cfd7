"""The line-item resolver's variants side by side -> reports/answer_sets/vocabulary_prior.json.

Every question set is answered under Oracle-Page (its gold pages) by each variant in one
process: the finance vocabulary's prior on (rows the vocabulary reads as the operand's concept
first) or off (every operand resolved by its words alone), each by lexical overlap only or
also by meaning (``--semantic MODEL``: a sentence embedder's cosine to the printed labels);
and the prior on without the glossary (``answer.gloss: false``: no operand read by the
plain-English meaning of a concept, ``fingap.answers.glossary``). The glossary is the
vocabulary's knowledge, so it is off whenever the prior is.
With the bundled MiniLM as ``--semantic``, the semantic rows are a measurement only: the gate
scores labels with the same model, so its label check would no longer be independent
(``answer.resolver_matcher`` refuses the gate's matcher). The sets: the public 45
metrics-generated FinanceBench questions and the project's own sets
(``annotations/<name>_questions.jsonl``). Everything else comes from params.yaml ``answer``.

    python benchmarks/vocabulary_prior.py [--sets public paraphrase ...] [--semantic minilm]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from fingap.answers.agent import Agent
from fingap.answers.fact_store import FactStore
from fingap.core.io import read_jsonl, write_json
from fingap.core.params import load_params
from fingap.evaluation.scoring import METRICS_GENERATED
from fingap.evaluation.selective import selective_metrics
from fingap.ingestion.extract import read_page_texts
from fingap.steps.answer import (
    OWN_SETS,
    doc_type_of,
    gold_pages_of,
    record_value_matches,
    resolver_params,
)
from fingap.steps.ask import answer_agent

ROOT = Path(__file__).resolve().parents[1]
KEEP = ("n", "StrictAcc", "Coverage", "verified", "verified_correct", "verified_wrong",
        "VerifiedPrecision", "VerifiedPrecision_CI95")


def question_set(name: str) -> list[dict]:
    """(id, question, answer, doc, gold pages) of a set; "public": FinanceBench's 45."""
    if name == "public":
        return [{"id": q["id"], "question": q["question"], "answer": q["answer"],
                 "doc": q["doc"], "pages": [tuple(p) for p in q["gold_pages"]]}
                for q in read_jsonl(ROOT / "data/corpus/questions.jsonl")
                if q["status"] == "evaluated" and q["question_type"] == METRICS_GENERATED]
    return [{"id": r["financebench_id"], "question": r["question"], "answer": r["answer"],
             "doc": r.get("doc_name"), "pages": gold_pages_of(r)}
            for r in read_jsonl(ROOT / f"annotations/{name}_questions.jsonl")]


def score_set(agent: Agent, rows: list[dict]) -> dict:
    scores = []
    for r in rows:
        rec = agent.answer(r["id"], r["question"], r["pages"], "", doc_hint=r["doc"],
                           doc_type=doc_type_of(r["doc"]))
        answered = rec.value is not None and not rec.abstained
        scores.append({"question_id": r["id"], "answered": answered,
                       "correct": answered and record_value_matches(rec.to_dict(), r["answer"]),
                       "verified": rec.verified and answered, "confidence": rec.confidence})
    m = selective_metrics(scores)
    return {k: m[k] for k in KEEP}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["public", *OWN_SETS])
    parser.add_argument("--semantic", default=None,
                        help="also run each variant with this resolver matcher")
    args = parser.parse_args()
    ap = load_params()["answer"]
    texts = read_page_texts(ROOT / "data/pages/pages.jsonl")
    base = resolver_params(ap)
    report: dict = {"condition": "oracle_page", "resolver": base.__dict__,
                    "semantic": args.semantic, "sets": {}}
    variants = {"prior_on": replace(base, vocabulary_prior=True),
                "prior_off": replace(base, vocabulary_prior=False)}
    if args.semantic:
        variants |= {f"{k}_semantic": replace(v, matcher=args.semantic)
                     for k, v in list(variants.items())}
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        agents = {k: answer_agent(texts, store, v) for k, v in variants.items()}
        agents["prior_on_no_gloss"] = answer_agent(texts, store, variants["prior_on"],
                                                   {"gloss": False})
        for name in args.sets:
            rows = question_set(name)
            t0 = time.perf_counter()
            report["sets"][name] = {k: score_set(a, rows) for k, a in agents.items()}
            print(name, json.dumps({k: (v["StrictAcc"], v["verified"], v["verified_wrong"])
                                    for k, v in report["sets"][name].items()}),
                  f"{time.perf_counter() - t0:.0f}s")
    write_json(ROOT / "reports/answer_sets/vocabulary_prior.json", report)


if __name__ == "__main__":
    main()
