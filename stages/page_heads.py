"""DVC stage: a page-head method's reordered first pages (``python stages/page_heads.py
METHOD``; the page reranker and MaxSim rows), stored apart from the P-dependent final step."""

import sys
from pathlib import Path

from fingap.steps.stagekit import stage
from fingap.steps.zoo import run_page_heads


def main(method: str) -> None:
    with stage(f"page_heads@{method}") as params:
        run_page_heads(method, params, Path(f"data/page_heads/{method}.json"))


if __name__ == "__main__":
    main(sys.argv[1])
