"""DVC stage: one cross-encoder reranker per document-grouped fold."""

from pathlib import Path

from fingap.core.io import write_json
from fingap.core.params import section
from fingap.steps.reranker import run_train_reranker
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking, log_fold_models, training_run
from fingap.steps.zoo import PATHS


def main() -> None:
    with stage("train_reranker") as params:
        check_tracking(Path("."))  # fail before training, not after
        train = section(params, "reranker_train")
        models, report_path = Path("models/reranker"), Path("reports/reranker_training.json")
        with training_run(Path("."), section(params, "track")["experiment"], "train_reranker",
                          train) as run_id:
            report = run_train_reranker(train, PATHS, models, report_path,
                                        report_to=("mlflow",))
            log_fold_models(report, models)
        report["mlflow_run_id"] = run_id
        write_json(report_path, report)


if __name__ == "__main__":
    main()
