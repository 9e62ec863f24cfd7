"""Accuracy of the table parser's facts, from the hand check of a random sample.

Reads annotations/fact_check.jsonl (annotations/fact_sample.jsonl with ``verdict``, ``cause``,
``note`` and ``caveats`` filled in by hand) and writes reports/tables_accuracy.json: the number
checked, the number correct, the accuracy with a Wilson 95% interval, the wrong facts counted by
cause, and the list of wrong facts with the checker's notes.

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
CHECK = ROOT / "annotations/fact_check.jsonl"
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
        "source": str(CHECK.relative_to(ROOT)),
    }


def main() -> None:
    report = summarise(read_jsonl(CHECK))
    write_json(OUT, report)
    lo, hi = report["wilson95"]
    print(f"{report['n_correct']}/{report['n']} correct = {report['accuracy']:.1%} "
          f"(Wilson 95% {lo:.1%}-{hi:.1%}); wrong by cause: {report['wrong_by_cause']}")
    print(f"strict (column-group caveats counted wrong): {report['strict']['accuracy']:.1%}")


if __name__ == "__main__":
    main()
