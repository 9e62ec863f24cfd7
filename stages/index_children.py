"""DVC stage: dense index of the child chunks (parent-child retrieval)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.index import run_index
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("index_children") as params:
        run_index("dense", section(params, "dense"), Path("data/chunks/children.jsonl"),
                  Path("data/indexes/dense_children"), Path("data/cache/embeddings.sqlite"))


if __name__ == "__main__":
    main()
