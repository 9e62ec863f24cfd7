"""Late interaction (MaxSim; #14 part 3's fallback) on a built project: its rows against the
routed hard-negative scorer whose top pages it reorders, and against the base model's token
vectors (reports/page_maxsim_study.json), with the stage's cost.

    dvc repro retrieve_pages_maxsim retrieve_zoo@page_scorer_hn_page_order_routed
    python benchmarks/study_page_maxsim.py --root <project>

Rows are scored as evaluate scores them (see benchmarks/study_routing.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from study_routing import rows

from fingap.core.io import read_json, update_json_section
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions

OUT = Path(__file__).resolve().parents[1] / "reports/page_maxsim_study.json"
PAIRS = [["page_maxsim_routed", "page_scorer_hn_page_order_routed"],
         ["page_maxsim_routed", "page_maxsim_untrained_routed"],
         ["page_maxsim_routed", "page_reranker_routed"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    questions = [q for q in read_questions(args.root / "data/corpus")
                 if q.status == STATUS_EVALUATED]
    seconds = {key: read_json(args.root / f"reports/timings/retrieve_pages_maxsim@{key}.json")
               ["seconds"] for key in ("page_maxsim_routed", "page_maxsim_untrained_routed")}
    result = {**rows(args.root, PAIRS, questions), "stage_seconds": seconds,
              "command": "python benchmarks/study_page_maxsim.py --root <project>"}
    update_json_section(args.out, "page_maxsim", result)
    print(result)


if __name__ == "__main__":
    main()
