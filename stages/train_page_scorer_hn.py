"""DVC stage: the hard-negative page scorer, one per fold, early-stopped on a validation split
of the fold's training documents (fingap.steps.page_scorer_hn)."""

from pathlib import Path

from fingap.core.io import write_json, write_text
from fingap.core.params import section
from fingap.evaluation.epochs_report import render_epochs_report
from fingap.steps.page_scorer_hn import HardNegativeConfig, run_train_hn
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking, log_fold_models, training_run


def main() -> None:
    with stage("train_page_scorer_hn") as params:
        hn = section(params, "page_scorer_hn")
        HardNegativeConfig.from_params(hn)  # fail fast on a bad parameter
        check_tracking(Path("."))
        train = section(params, "page_scorer_train")
        report_path = Path("reports/page_scorer_hn_training.json")
        models = Path("models/page_scorer_hn")
        with training_run(Path("."), section(params, "track")["experiment"],
                          "train_page_scorer_hn", {**train, **hn}) as run_id:
            report = run_train_hn(train, hn, Path("data/corpus"),
                                  Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                                  Path("models/page_scorer"), Path("data/page_index/trained"),
                                  models, report_path, report_to=("mlflow",))
            log_fold_models(report, models)
        report["mlflow_run_id"] = run_id
        write_json(report_path, report)
        write_text(Path("reports/page_scorer_hn.md"),
                   render_epochs_report(report, "Hard-negative page scorer"))


if __name__ == "__main__":
    main()
