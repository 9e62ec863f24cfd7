"""Accuracy of the table parser's facts, from hand checks of random samples.

Each sample is drawn by `benchmarks/sample_facts.py` (a new seed after each round of parser
fixes) and checked by hand against the page image (``verdict``, ``cause``, ``note`` and
``caveats`` filled in). This script writes reports/tables_accuracy.json: per sample the number
checked, the number correct, the accuracy with a Wilson 95% interval, the wrong facts counted by
cause and listed with the checker's notes; the top level repeats the latest sample, the one
drawn from the store as it is now. Earlier samples describe the store they were drawn from:
their errors are what the later fixes were made against, so only the latest is a fresh figure.

Caveats mark facts judged correct under the checking rules that still carry a limitation (the
value is from one of several column groups of the same year, a stated period left as null, a
label joining two text cells of its row, no scale printed on the page). They are counted, and a
``strict`` accuracy also treats a correct fact with a ``column group`` caveat as wrong.

    python benchmarks/fact_accuracy.py
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from fingap.core.io import read_jsonl, write_json

ROOT = Path(__file__).resolve().parents[1]
# (check file, what the sample was drawn from), oldest first
SAMPLES = [
    ("annotations/fact_check.jsonl", "seed 2026, the store before issue #36's fixes"),
    ("annotations/fact_check2.jsonl", "seed 3601, after the first round of #36 fixes"),
    ("annotations/fact_check3.jsonl", "seed 3602, after the second round"),
    ("annotations/fact_check4.jsonl",
     "seed 3603, after the third round (a later end-date fix changed 3 of its facts, no verdict)"),
    ("annotations/fact_check5.jsonl",
     "seed 3604, the store after round 28's changes (asides, loss lines, cash reconciliation)"),
]
OUT = ROOT / "reports/tables_accuracy.json"
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def score(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"n": n, "n_correct": k, "accuracy": round(k / n, 4) if n else None,
            "wilson95": [round(lo, 4), round(hi, 4)]}


def summarise(rows: list[dict]) -> dict:
    unchecked = [r["sample_id"] for r in rows if r.get("verdict") not in ("correct", "wrong")]
    if unchecked:
        raise SystemExit(f"facts without a verdict: {unchecked}")
    correct = [r for r in rows if r["verdict"] == "correct"]
    wrong = [r for r in rows if r["verdict"] == "wrong"]
    strict_ok = [r for r in correct if "column group" not in r.get("caveats", [])]
    return {
        **score(len(correct), len(rows)),
        "wrong_by_cause": dict(Counter(r["cause"] or "other" for r in wrong).most_common()),
        "wrong_by_statement": dict(Counter(r["statement"] for r in wrong).most_common()),
        "caveats_among_correct": dict(
            Counter(c for r in correct for c in r.get("caveats", [])).most_common()),
        "strict": score(len(strict_ok), len(rows)),
        "wrong": [{"sample_id": r["sample_id"], "doc": r["doc"], "page": r["page"],
                   "label": r["label"], "cause": r["cause"], "note": r.get("note")}
                  for r in wrong],
        "checked_by": sorted({r.get("checked_by") or "unknown" for r in rows}),
    }


def main() -> None:
    samples = []
    for path, drawn in SAMPLES:
        if (ROOT / path).exists():
            samples.append({"source": path, "drawn": drawn,
                            **summarise(read_jsonl(ROOT / path))})
    report = {**samples[-1], "samples": samples}
    write_json(OUT, report)
    for r in samples:
        lo, hi = r["wilson95"]
        print(f"{r['source']}: {r['n_correct']}/{r['n']} correct = {r['accuracy']:.1%} "
              f"(Wilson 95% {lo:.1%}-{hi:.1%}); wrong by cause: {r['wrong_by_cause']}")


if __name__ == "__main__":
    main()
