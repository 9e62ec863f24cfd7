"""DVC stage: one of Table 1's other methods (``python stages/retrieve_zoo.py METHOD``)."""

import sys
from pathlib import Path

from fingap.steps.stagekit import stage
from fingap.steps.zoo import run_method


def main(method: str) -> None:
    with stage(f"retrieve_zoo@{method}") as params:
        run_method(method, params, Path(f"data/runs/{method}"))


if __name__ == "__main__":
    main(sys.argv[1])
