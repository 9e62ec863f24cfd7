"""DVC stage: document-grouped folds for the trained components."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_scorer import run_folds
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("folds") as params:
        run_folds(section(params, "folds"), Path("data/corpus"), Path("data/folds.json"))


if __name__ == "__main__":
    main()
