"""Late interaction (MaxSim; #14 part 3's fallback) on a built project: its rows against the
routed hard-negative scorer whose top pages it reorders, and against the base model's token
vectors (reports/page_maxsim_study.json), with the stage's cost.

    dvc repro retrieve_pages_maxsim retrieve_zoo@page_scorer_hn_page_order_routed
    python studies/study_page_maxsim.py --root <project>

Rows are scored as evaluate scores them (see studies/study_routing.py).
"""

from __future__ import annotations

from pathlib import Path

from study_routing import rows, study_setup

from fingap.core.io import read_json, update_json_section

OUT = Path(__file__).resolve().parents[1] / "reports/page_maxsim_study.json"
PAIRS = [["page_maxsim_routed", "page_scorer_hn_page_order_routed"],
         ["page_maxsim_routed", "page_maxsim_untrained_routed"],
         ["page_maxsim_routed", "page_reranker_routed"]]


def main() -> None:
    args, questions = study_setup(__doc__, OUT)
    # the encoding is in the head stage, the final step in retrieve_pages_maxsim (before
    # 2fd4a06, one stage did both)
    seconds = {f"{stage}@{key}": read_json(path)["seconds"]
               for key in ("page_maxsim_routed", "page_maxsim_untrained_routed")
               for stage in ("page_heads_maxsim", "retrieve_pages_maxsim")
               if (path := args.root / f"reports/timings/{stage}@{key}.json").exists()}
    result = {**rows(args.root, PAIRS, questions), "stage_seconds": seconds,
              "command": "python studies/study_page_maxsim.py --root <project>"}
    update_json_section(args.out, "page_maxsim", result)
    print(result)


if __name__ == "__main__":
    main()
