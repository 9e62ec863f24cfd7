"""DVC stage: token-window chunks within pages (chunk.size / chunk.overlap)."""

import sys
from pathlib import Path

from fingap.params import section
from fingap.pipeline import run_chunk
from fingap.stagekit import check_cmd_params, stage


def main() -> None:
    with stage("chunk") as params:
        check_cmd_params(section(params, "chunk"), "chunk", ("size", "overlap"), sys.argv[1:])
        run_chunk(section(params, "chunk"), section(params, "dense"),
                  Path("data/pages/pages.jsonl"), Path("data/chunks/chunks.jsonl"),
                  Path("reports/chunks.json"))


if __name__ == "__main__":
    main()
