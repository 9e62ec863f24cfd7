"""DVC stage: a pipeline's timings summary, every stage's last wall time (``python
stages/timings.py [studies]``: reports/timings.json or reports/studies/timings.json; `fingap
timings` prints it)."""

import sys

from fingap.core.pipelines import pipeline
from fingap.steps.stagekit import stage
from fingap.steps.timings import run_timings


def main(pipeline_name: str = "product") -> None:
    p = pipeline(pipeline_name)
    name = p.stage("timings")
    with stage(name, record_time=False):
        run_timings(p.timings_dir, p.timings_summary, p.dvc_yaml, own_stage=name)


if __name__ == "__main__":
    main(*sys.argv[1:])
