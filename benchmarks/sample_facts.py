"""Draw a seeded random sample of facts from the fact store for a hand check of extraction.

    python benchmarks/sample_facts.py [N]       # writes annotations/fact_sample.jsonl

Each line holds what a checker needs to find the fact on the page (doc, 0-based page, row label,
header year and period type, printed cell, scale) and empty ``verdict``/``cause`` fields. The
checker fills them in (annotations/fact_check.jsonl); `benchmarks/fact_accuracy.py` scores them.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from fingap.answers.fact_store import FactStore
from fingap.core.io import write_jsonl

ROOT = Path(__file__).resolve().parents[1]
SEED = 2026


def main(n: int = 110) -> None:
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        facts = list(store.iter_all())
    sample = random.Random(SEED).sample(facts, n)
    write_jsonl(ROOT / "annotations/fact_sample.jsonl", (
        {"sample_id": i, "doc": f["doc"], "page": f["page"], "statement": f["statement"],
         "label": f["label"], "header_year": f["year"], "fiscal_year": f["fiscal_year"],
         "duration": f["duration"], "printed": f["printed"], "value": f["value"],
         "scale": f["scale"], "verdict": None, "cause": None}
        for i, f in enumerate(sample)))
    print(f"wrote {n} facts of {len(facts)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 110)
