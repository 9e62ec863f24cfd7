"""DVC stage: one cross-encoder reranker per document-grouped fold."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.reranker import run_train_reranker
from fingap.steps.stagekit import stage
from fingap.steps.tracked_training import run_tracked_training
from fingap.steps.zoo import PATHS


def main() -> None:
    with stage("train_reranker") as params:
        train = section(params, "reranker_train")
        models, report = Path("models/reranker"), Path("reports/reranker_training.json")
        run_tracked_training(
            Path("."), section(params, "track")["experiment"], "train_reranker", train, models,
            report,
            lambda report_to: run_train_reranker(train, PATHS, models, report,
                                                 report_to=report_to))


if __name__ == "__main__":
    main()
