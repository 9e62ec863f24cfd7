"""DVC stage: log the pipeline execution to MLflow (parent run + one child per method x cond)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.stagekit import stage
from fingap.steps.tracking import run_track


def main() -> None:
    with stage("track") as params:
        run_track(Path("."), section(params, "track")["experiment"], params, Path("reports"),
                  Path("data/corpus/manifest.json"), Path("reports/mlflow_run.json"))


if __name__ == "__main__":
    main()
