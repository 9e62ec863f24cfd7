"""Untrained or fine-tuned: which sentence embedder should read an operand's words as a line item?
-> reports/answer_sets/label_matcher.json

Trains the phrase-to-label matcher (``fingap.answers.matcher_training``: the bundled MiniLM on
pairs from the finance vocabulary, its glossary and the fact store, never a question) and
answers every question set under Oracle-Page, in one process, with:

- ``default``: the product (rows chosen by the vocabulary's prior and the words of the printed
  label, a described phrase read by the glossary on the gate's untrained MiniLM);
- ``untrained_labels``: also a label's cosine to the phrase on the untrained MiniLM (the
  untrained row of the next one; a measurement only, since the gate scores with that model);
- ``trained_labels``: the same cosine on the fine-tuned matcher (``answer.resolver_matcher``);
- ``trained_glossary``: the resolver reads a described phrase with the glossary on the
  fine-tuned matcher; the gate keeps its untrained one, so it checks that reading independently.

Each row gives right answers (StrictAcc x n), verified answers and wrong verified answers, per
set and in total. The default stays unless a trained row adds right answers without adding a
wrong verified one.

    python benchmarks/label_matcher.py [--epochs 2] [--max-per-concept 120] [--negatives 1]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from vocabulary_prior import question_set, score_set

from fingap.answers.fact_store import FactStore
from fingap.answers.glossary import Glossary, load_meanings
from fingap.answers.label_match import LabelMatcher
from fingap.answers.labels import Vocabulary
from fingap.answers.matcher_training import train_label_matcher
from fingap.core.io import write_json
from fingap.core.params import load_params
from fingap.ingestion.extract import read_page_texts
from fingap.steps.answer import OWN_SETS, resolver_params
from fingap.steps.ask import answer_agent
from fingap.training.page_scorer import TrainConfig, save_model

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["public", *OWN_SETS])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-per-concept", type=int, default=120)
    parser.add_argument("--negatives", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    cfg = TrainConfig(model="minilm", lr=args.lr, batch_size=args.batch_size, epochs=args.epochs,
                      max_seq_length=48, precision="bf16", seed=args.seed)
    db = ROOT / "data/facts/facts.sqlite"
    with tempfile.TemporaryDirectory(prefix="fingap-label-matcher-") as tmp:
        model, result, data = train_label_matcher(Vocabulary.load(), load_meanings(), db, cfg,
                                                  args.max_per_concept, args.negatives)
        trained = Path(tmp) / "model"
        save_model(model, trained)
        del model
        report = _compare(str(trained), args.sets)
    report["training"] = {"config": cfg.__dict__, "max_per_concept": args.max_per_concept,
                          "negatives_per_pair": args.negatives, "pairs": len(data.pairs),
                          "pairs_per_concept": data.per_concept,
                          "seconds": round(result.seconds, 1),
                          "epoch_loss": [round(x, 4) for x in result.epoch_loss]}
    write_json(ROOT / "reports/answer_sets/label_matcher.json", report)
    print(json.dumps(report["total"], indent=1))


def _compare(trained: str, sets: list[str]) -> dict:
    texts = read_page_texts(ROOT / "data/pages/pages.jsonl")
    base = resolver_params(load_params()["answer"])
    report: dict = {"condition": "oracle_page", "resolver": base.__dict__, "sets": {}}
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        agents = {"default": answer_agent(texts, store, base),
                  "untrained_labels": answer_agent(texts, store, replace(base, matcher="minilm")),
                  "trained_labels": answer_agent(texts, store, replace(base, matcher=trained))}
        reader = answer_agent(texts, store, base)
        reader.resolver_glossary = Glossary(reader.vocab, LabelMatcher(trained),
                                            params=reader.meaning.glossary.params)
        agents["trained_glossary"] = reader
        total = {k: {"n": 0, "right": 0, "verified": 0, "verified_wrong": 0} for k in agents}
        for name in sets:
            rows = question_set(name)
            t0 = time.perf_counter()
            report["sets"][name] = {k: score_set(a, rows) for k, a in agents.items()}
            for k, m in report["sets"][name].items():
                t = total[k]
                t["n"] += m["n"]
                t["right"] += round(m["StrictAcc"] * m["n"])
                t["verified"] += m["verified"]
                t["verified_wrong"] += m["verified_wrong"]
            print(name, {k: (round(m["StrictAcc"] * m["n"]), m["verified_wrong"])
                         for k, m in report["sets"][name].items()},
                  f"{time.perf_counter() - t0:.0f}s", flush=True)
    report["total"] = total
    return report


if __name__ == "__main__":
    main()
