"""Draw a seeded random sample of facts from the fact store for a hand check of extraction.

    python benchmarks/sample_facts.py --n 120 --seed 3601 --out annotations/fact_sample2.jsonl

Each line holds what a checker needs to find the fact on the page (doc, 0-based page, row label,
header year, period type and end, printed cell, scale) and empty ``verdict``/``cause`` fields.
The checker fills them in (annotations/fact_check*.jsonl); `benchmarks/fact_accuracy.py` scores
them. Draw a new sample with a new seed after every parser change that the figure must cover:
a sample the fixes were made against says nothing about the facts they were not.

Samples so far (checked in annotations/fact_check*.jsonl): seed 2026, 110 facts
(fact_sample.jsonl, the store before issue #36's fixes); seeds 3601, 3602, 3603 and 3604, 120
facts each (fact_sample2/3/4/5.jsonl), each drawn after a round of fixes.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from fingap.answers.fact_store import FactStore
from fingap.core.io import write_jsonl

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        facts = list(store.iter_all())
    sample = random.Random(args.seed).sample(facts, args.n)
    write_jsonl(args.out, (
        {"sample_id": i, "doc": f["doc"], "page": f["page"], "statement": f["statement"],
         "section": f["section"], "label": f["label"], "header_year": f["year"],
         "fiscal_year": f["fiscal_year"], "duration": f["duration"],
         "period_end": f["period_end"], "end_date": f["end_date"], "column": f["col"],
         "n_columns": f["n_cols"], "printed": f["printed"], "value": f["value"],
         "percent": bool(f["percent"]), "scale": f["scale"], "verdict": None, "cause": None}
        for i, f in enumerate(sample)))
    print(f"wrote {args.n} facts of {len(facts)} (seed {args.seed}) to {args.out}")


if __name__ == "__main__":
    main()
