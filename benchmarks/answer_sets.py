"""Answer the trust question sets the way a user does, and score them with selective metrics.

For each set (``annotations/<name>_questions.jsonl``) this runs what ``fingap ask --questions
FILE --condition oracle_page`` runs (the answer agent on the gold pages, the configured LLM as
fallback), then scores every record with StrictAcc and ``fingap.evaluation.selective``:
coverage, reliability, strict accuracy, the share of ``verified`` answers that are right (with
its Wilson interval), AURC. Answers that carry no ``confidence`` (code before the meaning gate)
are ranked by ``verified`` alone.

    python benchmarks/answer_sets.py --sets paraphrase fresh --label untouched
    python benchmarks/answer_sets.py --sets final --label final_bm25 --condition standard \
        --method bm25

writes ``reports/answer_sets/<label>.json`` and the records to
``reports/answer_sets/<label>/<set>.jsonl``, so every figure traces to a per-question file.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from fingap.core.io import read_jsonl, write_json
from fingap.evaluation.selective import selective_metrics
from fingap.steps.answer import record_value_matches

try:
    from fingap.steps.answer import candidate_scores
except ImportError:  # the answer code before the gate (measured from an old checkout)
    def candidate_scores(rec: dict, gold: str) -> dict:
        return {}
from fingap.steps.ask import ask_file

ROOT = Path(__file__).resolve().parents[1]


def score(records: list[dict], questions: dict[str, dict]) -> list[dict]:
    rows = []
    for rec in records:
        q = questions[rec["question_id"]]
        answered = rec["value"] is not None and not rec["abstained"]
        rows.append({
            "question_id": rec["question_id"], "path": rec["path"], "answered": answered,
            "correct": answered and record_value_matches(rec, q["answer"]),
            "verified": bool(rec["verified"]) and answered,
            "confidence": rec.get("confidence", 1.0 if rec["verified"] else 0.0),
            **candidate_scores(rec, q["answer"])})
    return rows


def by_path(rows: list[dict]) -> dict:
    return {p: selective_metrics([r for r in rows if r["path"] == p] +
                                 [r | {"answered": False} for r in rows if r["path"] != p])
            for p in sorted({r["path"] for r in rows})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--condition", default="oracle_page")
    parser.add_argument("--method", default="fingap_best",
                        help="the retrieval method under the standard condition (e.g. bm25)")
    args = parser.parse_args()
    out_dir = ROOT / "reports" / "answer_sets"
    report = {"condition": args.condition, "method": args.method, "sets": {}}
    for name in args.sets:
        path = ROOT / "annotations" / f"{name}_questions.jsonl"
        records_path = out_dir / args.label / f"{name}.jsonl"
        t0 = time.perf_counter()
        ask_file(path, records_path, args.condition, args.method, 5)
        questions = {q["financebench_id"]: q for q in read_jsonl(path)}
        rows = score([r | {"question_id": r["question_id"]} for r in read_jsonl(records_path)],
                     questions)
        m = selective_metrics(rows)
        m["by_path"] = {p: {k: v for k, v in pm.items() if k != "curve"}
                        for p, pm in by_path(rows).items()}
        m["wrong_verified_ids"] = sorted(r["question_id"] for r in rows
                                         if r["verified"] and not r["correct"])
        report["sets"][name] = m
        print(name, json.dumps({k: v for k, v in m.items() if k not in ("curve", "by_path")}),
              f"{time.perf_counter() - t0:.0f}s")
    write_json(out_dir / f"{args.label}.json", report)


if __name__ == "__main__":
    main()
