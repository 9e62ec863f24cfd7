"""DVC stage: locate and validate FinanceBench, write the manifest and normalised questions."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.ingest import run_corpus
from fingap.steps.stagekit import stage
from fingap.steps.tracking import check_tracking


def main() -> None:
    with stage("corpus") as params:
        check_tracking(Path("."))  # an unreachable tracking server fails now, not at the end
        run_corpus(section(params, "corpus"), Path("data/corpus"))


if __name__ == "__main__":
    main()
