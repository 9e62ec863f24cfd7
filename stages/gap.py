"""DVC stage: where the best page-then-chunk pipeline loses each missed gold page."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.gap import run_gap
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("gap") as params:
        run_gap(section(params, "gap")["method"], params, Path("data/runs"),
                Path("reports/gap.json"), Path("reports/gap.md"))


if __name__ == "__main__":
    main()
