"""DVC stage: locate and validate FinanceBench, write the manifest and normalised questions."""

from pathlib import Path

from fingap.params import section
from fingap.pipeline import run_corpus
from fingap.stagekit import stage
from fingap.tracking import check_tracking


def main() -> None:
    with stage("corpus") as params:
        check_tracking(Path("."))  # an unreachable tracking server fails now, not at the end
        run_corpus(section(params, "corpus"), Path("data/corpus"))


if __name__ == "__main__":
    main()
