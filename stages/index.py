"""DVC stage: build one chunk index (``python stages/index.py bm25|dense``)."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.index import run_index
from fingap.steps.stagekit import record_in_timing, stage

EMBEDDING_CACHE = Path("data/cache/embeddings.sqlite")


def main(method: str) -> None:
    with stage(f"index@{method}") as params:
        stats = run_index(method, section(params, method), Path("data/chunks/chunks.jsonl"),
                          Path(f"data/indexes/{method}"), EMBEDDING_CACHE)
        record_in_timing(index=stats)


if __name__ == "__main__":
    main(sys.argv[1])
