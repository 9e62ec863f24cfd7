"""Does fingap best serve a new question as the pipeline ran it? -> reports/benchmarks.json
(section "adhoc_best").

Every evaluated question is asked again as a user would (its text, no document; its own fold
by its id), through ``fingap.steps.adhoc`` with routing and heads computed at ask time, and its
top-5 chunks are compared with fingap best's run in ``data/runs/fingap_best/standard.json`` (or,
where the workspace lacks it, the chunks its committed per-question record lists:
``reports/per_question/fingap_best__standard.jsonl``, written from that run).
``same_top5`` must equal ``n`` (129 on FinanceBench). Needs the outputs of a full ``dvc repro``.

    python benchmarks/adhoc_best.py [--method fingap_best]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from fingap.core.io import update_json_section
from fingap.steps.adhoc import replay_evaluated

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="fingap_best")
    args = parser.parse_args()
    t0 = time.perf_counter()
    out = replay_evaluated(args.method, "standard", 5)
    out = {"same_top5": out["same_topk"], "n": out["n"], "method": out["method"],
           "differ": out["differ"], "substituted": out["substituted"],
           "reference": out["reference"],
           "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(out))
    update_json_section(ROOT / "reports/benchmarks.json", "adhoc_best", out)


if __name__ == "__main__":
    main()
