"""What a `page_scorer.P` change costs on a built workspace (reports/benchmarks.json -> p_change).

The compute issue asks that changing P reruns in <= 3 min, not counting LLM calls for contexts
never seen before. This sets P to ``--value`` in params.yaml, times ``dvc repro
--no-run-cache`` (every stage that reads P or its outputs really runs: none is restored from
DVC's run cache), then puts params.yaml back and times the way back the same way. The LLM
seconds spent on new contexts are read from reports/generation.json and subtracted. Run it
on a workspace whose `dvc repro` is up to date; it leaves the workspace as it found it.

    python benchmarks/bench_p_change.py --value 10
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

from fingap.core.io import read_json, update_json_section

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT / "params.yaml"
OUT = ROOT / "reports/benchmarks.json"
P_LINE = re.compile(r"^(page_scorer:\n(?:  .*\n|\s*#.*\n)*?  P: )(\d+)", re.MULTILINE)


def set_p(text: str, value: int) -> str:
    """params.yaml with page_scorer.P set to ``value`` (comments and layout kept)."""
    new, n = P_LINE.subn(lambda m: f"{m.group(1)}{value}", text, count=1)
    if n != 1:
        raise SystemExit(f"{PARAMS}: no `P:` line in the page_scorer section")
    return new


def timed_repro() -> dict:
    """Wall seconds of `dvc repro --no-run-cache`, the stages it ran and the LLM seconds."""
    since = datetime.now(UTC).isoformat(timespec="milliseconds")
    start = time.perf_counter()
    done = subprocess.run(["dvc", "repro", "--no-run-cache"], cwd=ROOT, capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"dvc repro failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    ran = re.findall(r"^Running stage '([^']+)'", done.stdout, re.MULTILINE)
    gen = read_json(ROOT / "reports/generation.json")
    llm = sum(r.get("seconds", 0.0) for r in gen["runs"].values() if r.get("llm_calls", 0))
    stages = read_json(ROOT / "reports/timings.json")["stages"]
    # the stage records this repro wrote (their own wall time, without DVC's bookkeeping)
    own = {s: stages[s]["seconds"] for s in ran if s in stages
           and stages[s]["measured_at"] >= since}
    return {"wall_s": round(wall, 1), "llm_new_contexts_s": round(llm, 1),
            "wall_without_new_llm_calls_s": round(wall - llm, 1), "stages_run": len(ran),
            "llm_calls": int(gen.get("llm_calls", 0)),
            "stage_seconds_sum": round(sum(own.values()), 1),
            "slowest_stages_s": dict(sorted(own.items(), key=lambda kv: -kv[1])[:6])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--value", type=int, default=10, help="the P to switch to and back from")
    args = ap.parse_args()
    original = PARAMS.read_text()
    old = int(P_LINE.search(original).group(2))
    if old == args.value:
        raise SystemExit(f"page_scorer.P is already {old}")
    try:
        PARAMS.write_text(set_p(original, args.value))
        there = timed_repro()
    finally:
        PARAMS.write_text(original)
    back = timed_repro()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    result = {"command": f"python benchmarks/bench_p_change.py --value {args.value}",
              "commit": commit, "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "target_s": 180, f"P_{old}_to_{args.value}": there,
              f"P_{args.value}_to_{old}": back}
    update_json_section(OUT, "p_change", result)
    for name, r in (("there", there), ("back", back)):
        print(f"{name}: {r['wall_without_new_llm_calls_s']} s without new LLM calls "
              f"({r['wall_s']} s wall, {r['stages_run']} stages)")


if __name__ == "__main__":
    main()
