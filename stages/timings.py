"""DVC stage: reports/timings.json, every stage's last wall time (`fingap timings` prints it)."""

from pathlib import Path

from fingap.core.timings import SUMMARY, TIMINGS_DIR
from fingap.steps.stagekit import stage
from fingap.steps.timings import run_timings


def main() -> None:
    with stage("timings", record_time=False):
        run_timings(TIMINGS_DIR, SUMMARY, Path("dvc.yaml"))


if __name__ == "__main__":
    main()
