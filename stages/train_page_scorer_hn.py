"""DVC stage: the hard-negative page scorer, one per fold, early-stopped on a validation split
of the fold's training documents (fingap.steps.page_scorer_hn).

``python stages/train_page_scorer_hn.py [windows]``; ``windows``: trained on whole pages as
token windows (page_windows), into models/page_scorer_hn_windows.
"""

import sys
from pathlib import Path

from fingap.core.io import write_json, write_text
from fingap.core.params import section
from fingap.evaluation.epochs_report import render_epochs_report
from fingap.retrieval.page_windows import WindowConfig
from fingap.steps.page_scorer_hn import HardNegativeConfig, run_train_hn
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking, log_fold_models, training_run


def main(mode: str = "") -> None:
    if mode not in ("", "windows"):
        raise SystemExit(f"train_page_scorer_hn: the argument must be 'windows', got {mode!r}")
    name = "train_page_scorer_hn" + ("_windows" if mode else "")
    with stage(name) as params:
        hn = section(params, "page_scorer_hn")
        windows, extra = None, {}
        if mode:  # page_scorer_hn with the whole-page scorer's own epochs
            extra = section(params, "page_windows")
            windows = WindowConfig.from_params(extra, "page_windows")
            hn = {**hn, "epochs": extra.get("epochs", hn.get("epochs"))}
        HardNegativeConfig.from_params(hn)  # fail fast on a bad parameter
        check_tracking(Path("."))
        train = section(params, "page_scorer_train")
        stem = "page_scorer_hn" + ("_windows" if mode else "")
        report_path = Path(f"reports/{stem}_training.json")
        models = Path(f"models/{stem}")
        with training_run(Path("."), section(params, "track")["experiment"], name,
                          {**train, **hn, **extra}) as run_id:
            report = run_train_hn(train, hn, Path("data/corpus"),
                                  Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                                  Path("models/page_scorer"), Path("data/page_index/trained"),
                                  models, report_path, report_to=("mlflow",), windows=windows,
                                  facts_path=Path("data/synthetic/facts.jsonl"),
                                  doc2query_path=Path("data/synthetic/doc2query.jsonl"))
            log_fold_models(report, models)
        report["mlflow_run_id"] = run_id
        write_json(report_path, report)
        write_text(Path(f"reports/{stem}.md"), render_epochs_report(
            report, "Hard-negative page scorer" + (", whole pages (windows)" if mode else "")))


if __name__ == "__main__":
    main(*sys.argv[1:])
