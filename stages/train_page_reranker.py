"""DVC stage: the page reranker, one cross-encoder per fold over (question, page window),
early-stopped on the hard-negative scorer's validation documents (fingap.steps.page_reranker)."""

from pathlib import Path

from fingap.core.io import write_json
from fingap.core.params import section
from fingap.steps.page_reranker import run_train_page_reranker
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking, log_fold_models, training_run
from fingap.steps.zoo import PATHS
from fingap.training.page_reranker import PageRerankerConfig


def main() -> None:
    with stage("train_page_reranker") as params:
        cfg = section(params, "page_reranker")
        PageRerankerConfig.from_params(cfg)  # fail fast on a bad parameter
        check_tracking(Path("."))
        models, report_path = Path("models/page_reranker"), Path(
            "reports/page_reranker_training.json")
        with training_run(Path("."), section(params, "track")["experiment"],
                          "train_page_reranker", cfg) as run_id:
            report = run_train_page_reranker(params, PATHS, models, report_path,
                                             report_to=("mlflow",))
            log_fold_models(report, models)
        report["mlflow_run_id"] = run_id
        write_json(report_path, report)


if __name__ == "__main__":
    main()
