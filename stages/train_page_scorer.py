"""DVC stage: fine-tune one page scorer per fold (MNR loss, in-batch negatives)."""

from pathlib import Path

from fingap.core.io import write_json
from fingap.core.params import section
from fingap.steps.page_scorer import run_train
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking, log_fold_models, training_run


def main() -> None:
    with stage("train_page_scorer") as params:
        check_tracking(Path("."))  # fail before training, not after
        train = section(params, "page_scorer_train")
        report_path = Path("reports/page_scorer_training.json")
        models = Path("models/page_scorer")
        with training_run(Path("."), section(params, "track")["experiment"],
                          "train_page_scorer", train) as run_id:
            report = run_train(train, Path("data/corpus"), Path("data/pages/pages.jsonl"),
                               Path("data/folds.json"), models, report_path,
                               report_to=("mlflow",))
            log_fold_models(report, models)
        report["mlflow_run_id"] = run_id
        write_json(report_path, report)


if __name__ == "__main__":
    main()
