"""DVC stage: reports/headline.json, the few numbers DVC shows as metrics."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.evaluate import run_headline
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("headline") as params:
        run_headline(section(params, "headline"), int(section(params, "evaluate")["k"]),
                     Path("reports/metrics.json"), Path("reports/answers.json"),
                     Path("reports/headline.json"))


if __name__ == "__main__":
    main()
