"""DVC stage: embed every page (``python stages/page_index.py trained|untrained``)."""

import sys
from pathlib import Path

from fingap.page_scorer_steps import run_page_index
from fingap.params import section
from fingap.stagekit import stage


def main(variant: str) -> None:
    with stage(f"page_index_{variant}") as params:
        run_page_index(variant, section(params, "page_scorer_train"),
                       Path("data/pages/pages.jsonl"), Path("models/page_scorer"),
                       Path("data/folds.json"), Path(f"data/page_index/{variant}"))


if __name__ == "__main__":
    main(sys.argv[1])
