"""DVC stage: the page reranker, one cross-encoder per fold over (question, page window),
early-stopped on the hard-negative scorer's validation documents (fingap.steps.page_reranker)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_reranker import run_train_page_reranker
from fingap.steps.stagekit import stage
from fingap.steps.tracked_training import run_tracked_training
from fingap.steps.zoo import PATHS
from fingap.training.page_reranker import PageRerankerConfig


def main() -> None:
    with stage("train_page_reranker") as params:
        cfg = section(params, "page_reranker")
        PageRerankerConfig.from_params(cfg)  # fail fast on a bad parameter
        models, report = Path("models/page_reranker"), Path("reports/page_reranker_training.json")
        run_tracked_training(
            Path("."), section(params, "track")["experiment"], "train_page_reranker", cfg,
            models, report,
            lambda report_to: run_train_page_reranker(params, PATHS, models, report,
                                                      report_to=report_to))


if __name__ == "__main__":
    main()
