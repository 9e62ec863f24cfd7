"""DVC stage: token-window chunks within pages (chunk.size / chunk.overlap)."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.ingest import run_chunk
from fingap.steps.stagekit import check_cmd_params, stage


def main() -> None:
    with stage("chunk") as params:
        check_cmd_params(section(params, "chunk"), "chunk", ("size", "overlap"), sys.argv[1:])
        run_chunk(section(params, "chunk"), section(params, "dense"),
                  Path("data/pages/pages.jsonl"), Path("data/chunks/chunks.jsonl"),
                  Path("reports/chunks.json"))


if __name__ == "__main__":
    main()
