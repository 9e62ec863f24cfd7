"""DVC stage: embed every page (``python stages/page_index.py trained|untrained|hn``)."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_scorer import run_page_index
from fingap.steps.page_variants import page_variant
from fingap.steps.stagekit import stage


def main(variant: str) -> None:
    with stage(f"page_index@{variant}") as params:
        v = page_variant(variant)
        run_page_index(v.mode, section(params, "page_scorer_train"),
                       Path("data/pages/pages.jsonl"), v.models, Path("data/folds.json"), v.index)


if __name__ == "__main__":
    main(sys.argv[1])
