"""DVC stage: fine-tune one page scorer per fold (MNR loss, in-batch negatives)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_scorer import run_train
from fingap.steps.stagekit import stage
from fingap.steps.tracked_training import run_tracked_training


def main() -> None:
    with stage("train_page_scorer") as params:
        train = section(params, "page_scorer_train")
        models, report = Path("models/page_scorer"), Path("reports/page_scorer_training.json")
        run_tracked_training(
            Path("."), section(params, "track")["experiment"], "train_page_scorer", train,
            models, report,
            lambda report_to: run_train(train, Path("data/corpus"), Path("data/pages/pages.jsonl"),
                                        Path("data/folds.json"), models, report,
                                        report_to=report_to))


if __name__ == "__main__":
    main()
