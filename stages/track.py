"""DVC stage: log a pipeline's execution to MLflow, a parent run + one child per method x
condition (``python stages/track.py [studies]``: the product, or the studies tagged with the
product run they read)."""

import sys
from pathlib import Path

import yaml

from fingap.core.params import section
from fingap.core.pipelines import pipeline
from fingap.steps.stagekit import stage
from fingap.steps.tracking import run_track, training_reports


def main(pipeline_name: str = "product") -> None:
    p = pipeline(pipeline_name)
    name = p.stage("track")
    with stage(name) as params:
        spec = yaml.safe_load(p.dvc_yaml.read_text())["stages"][name]
        run_track(Path("."), section(params, "track")["experiment"], params, Path("reports"),
                  Path("data/corpus/manifest.json"), p.reports / "mlflow_run.json", p.name,
                  training_reports(spec.get("deps", [])))


if __name__ == "__main__":
    main(*sys.argv[1:])
