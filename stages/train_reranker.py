"""DVC stage: one cross-encoder reranker per document-grouped fold."""

from pathlib import Path

from fingap.params import section
from fingap.stagekit import stage
from fingap.zoo_steps import PATHS, run_train_reranker


def main() -> None:
    with stage("train_reranker") as params:
        run_train_reranker(section(params, "reranker_train"), PATHS, Path("models/reranker"),
                           Path("reports/reranker_training.json"))


if __name__ == "__main__":
    main()
