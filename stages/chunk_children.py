"""DVC stage: child chunks (children.size/overlap) for parent-child retrieval."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.ingest import run_children
from fingap.steps.stagekit import check_cmd_params, stage


def main() -> None:
    with stage("chunk_children") as params:
        check_cmd_params(section(params, "children"), "children", ("size", "overlap"), sys.argv[1:])
        run_children(section(params, "children"), section(params, "dense"),
                     Path("data/pages/pages.jsonl"), Path("data/chunks/chunks.jsonl"),
                     Path("data/chunks/children.jsonl"))


if __name__ == "__main__":
    main()
