"""DVC stage: fine-tune one page scorer per fold (MNR loss, in-batch negatives)."""

from pathlib import Path

from fingap.page_scorer_steps import run_train
from fingap.params import section
from fingap.stagekit import stage


def main() -> None:
    with stage("train_page_scorer") as params:
        run_train(section(params, "page_scorer_train"), Path("data/corpus"),
                  Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                  Path("models/page_scorer"), Path("reports/page_scorer_training.json"))


if __name__ == "__main__":
    main()
