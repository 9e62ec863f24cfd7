"""The page reranker (#14 part 3) on a built project: its learning curve on the validation
documents, its cost, and its rows against the routed hard-negative scorer it reranks and
against the untrained reranker (reports/page_reranker_study.json).

    dvc repro retrieve_pages_reranked retrieve_zoo@page_scorer_hn_page_order_routed
    python studies/study_page_reranker.py

Rows are scored as evaluate scores them (PageRec@5 / DocRec@5 of the top-5 chunks, paired
bootstrap 95% CI over questions; see studies/study_routing.py).
"""

from __future__ import annotations

from pathlib import Path

from study_routing import rows, study_setup

from fingap.core.io import read_json, update_json_section

OUT = Path(__file__).resolve().parents[1] / "reports/page_reranker_study.json"
PAIRS = [["page_reranker_routed", "page_scorer_hn_page_order_routed"],
         ["page_reranker_routed", "page_reranker_untrained_routed"],
         ["page_reranker_untrained_routed", "page_scorer_hn_page_order_routed"]]


def training_summary(report: dict) -> dict:
    folds = report["folds"]
    return {"learning_curve": report["learning_curve"],
            "best_epoch_per_fold": [f["best_epoch"] for f in folds],
            "epochs_run_per_fold": [f["epochs_run"] for f in folds],
            "examples_per_fold": [f["n_examples"] for f in folds],
            "minutes_per_fold": [round(f["seconds"] / 60, 2) for f in folds],
            "seconds_per_step": [f["seconds_per_step"] for f in folds]}


def main() -> None:
    args, questions = study_setup(__doc__, OUT)
    result = {"training": training_summary(read_json(
                  args.root / "reports/page_reranker_training.json")),
              **rows(args.root, PAIRS, questions),
              "command": "python studies/study_page_reranker.py"}
    update_json_section(args.out, "page_reranker", result)
    print(result)


if __name__ == "__main__":
    main()
