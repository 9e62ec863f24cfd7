"""DVC stage: top-k run files of one method under every condition
(``python stages/retrieve.py bm25|dense``)."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.retrieve import run_retrieve
from fingap.steps.stagekit import stage

EMBEDDING_CACHE = Path("data/cache/embeddings.sqlite")


def main(method: str) -> None:
    with stage(f"retrieve@{method}") as params:
        run_retrieve(method, section(params, "retrieve"), section(params, method),
                     Path("data/corpus"), Path("data/chunks/chunks.jsonl"),
                     Path(f"data/indexes/{method}"), Path(f"data/runs/{method}"), EMBEDDING_CACHE)


if __name__ == "__main__":
    main(sys.argv[1])
