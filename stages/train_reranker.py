"""DVC stage: one cross-encoder reranker per document-grouped fold."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.reranker import run_train_reranker
from fingap.steps.stagekit import stage
from fingap.steps.zoo import PATHS


def main() -> None:
    with stage("train_reranker") as params:
        run_train_reranker(section(params, "reranker_train"), PATHS, Path("models/reranker"),
                           Path("reports/reranker_training.json"))


if __name__ == "__main__":
    main()
