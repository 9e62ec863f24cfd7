"""Parity of retrained rows with the rows of an earlier commit (reports/parity.json).

The layout issue asks, for every trained row, that the paired 95% CI of (new - old) PageRec@5
contains 0 and that |new - old| <= 0.03, "old" being the row at a given commit. This scores the
runs of a workspace (a checkout whose ``data/runs`` holds the retrained runs, with its own
``data/chunks`` and ``data/corpus``) and pairs them, question by question, with the old
``reports/per_question`` records read from git. Rows whose run is missing from the workspace
are listed as not retrained, never scored. Untrained rows make a control: their delta must be 0.

    python maintainers/check_parity.py --workspace ../fresh --old 06b07eb --methods dense_reranker
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from fingap.core.io import read_jsonl, write_json
from fingap.core.params import load_params
from fingap.core.runs import read_run
from fingap.evaluation.parity import parity_row
from fingap.evaluation.scoring import ChunkLookup, score_run
from fingap.ingestion.corpus import read_questions
from fingap.retrieval.conditions import CONDITIONS

ROOT = Path(__file__).resolve().parents[1]
MAX_ABS_DELTA = 0.03  # the issue's bound on |new - old| PageRec@5


def old_records(ref: str, method: str, cond: str) -> list[dict] | None:
    """The per-question records of (method, cond) at git ref, or None when it had none."""
    path = f"reports/per_question/{method}__{cond}.jsonl"
    done = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", type=Path, required=True,
                    help="checkout whose data/runs holds the retrained runs")
    ap.add_argument("--old", required=True, help="git ref of the old rows")
    ap.add_argument("--methods", nargs="+", required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "reports/parity.json")
    ap.add_argument("--max-abs-delta", type=float, default=MAX_ABS_DELTA,
                    help="the bound on |new - old| PageRec@5 (the default run's issue: 2/129)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of --out for methods not scored now (same --old only)")
    args = ap.parse_args()

    ws = args.workspace.resolve()
    params = load_params(ws / "params.yaml")
    k = int(params["evaluate"]["k"])
    if k != 5:
        raise SystemExit(f"{ws / 'params.yaml'}: evaluate.k is {k}; parity is on PageRec@5")
    ev = params["evaluate"]
    questions = read_questions(ws / "data/corpus")
    chunks = read_jsonl(ws / "data/chunks/chunks.jsonl")
    lookup = ChunkLookup.of_chunks(chunks)
    rows: dict = {}
    not_retrained: list[str] = []
    if args.merge and args.out.exists():
        kept = json.loads(args.out.read_text())
        if kept["old_ref"] != args.old:
            raise SystemExit(f"{args.out} compares with {kept['old_ref']}, not {args.old}")
        rows = {name: r for name, r in kept["rows"].items()
                if name.split("__")[0] not in args.methods}
        not_retrained = [n for n in kept["not_retrained"] if n.split("__")[0] not in args.methods]
    for method in args.methods:
        for cond in CONDITIONS:
            run_path = ws / "data/runs" / method / f"{cond}.json"
            old = old_records(args.old, method, cond)
            if old is None:
                raise SystemExit(f"{method}__{cond}: no per-question records at {args.old}")
            if not run_path.exists():
                not_retrained.append(f"{method}__{cond}")
                continue
            new = score_run(questions, read_run(run_path), lookup, k, text=False)  # recalls only
            rows[f"{method}__{cond}"] = parity_row(
                old, new, args.max_abs_delta, int(ev.get("bootstrap_resamples", 10000)),
                int(ev.get("bootstrap_seed", 0)))
            r = rows[f"{method}__{cond}"]
            print(f"{method:28s} {cond:11s} old {r['old']:.3f} new {r['new']:.3f} "
                  f"diff {r['mean_diff']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] "
                  f"flipped {len(r['flipped'])} parity {r['parity']}")
    write_json(args.out, {"old_ref": args.old, "k": k, "max_abs_delta": args.max_abs_delta,
                          "rows": dict(sorted(rows.items())), "not_retrained": not_retrained,
                          "all_parity": all(r["parity"] for r in rows.values())})


if __name__ == "__main__":
    main()
