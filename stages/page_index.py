"""DVC stage: embed every page (``python stages/page_index.py trained|untrained|hn|hn_windows``;
hn_windows: every window of every page, page_windows.overlap/normalise)."""

import sys
from pathlib import Path

from fingap.core.compute import compute_of
from fingap.core.params import section
from fingap.retrieval.page_windows import WindowConfig
from fingap.steps.page_scorer import run_page_index
from fingap.steps.page_variants import page_variant
from fingap.steps.stagekit import record_in_timing, stage


def main(variant: str) -> None:
    # hn_windows is its own stage (page_index_windows): it reads other params than the others
    with stage("page_index_windows" if variant == "hn_windows" else f"page_index@{variant}") \
            as params:
        v = page_variant(variant)
        windows = (WindowConfig.from_params(section(params, "page_windows"), "page_windows")
                   if v.windows else None)
        stats = run_page_index(v.mode, section(params, "page_scorer_train"),
                       Path("data/pages/pages.jsonl"), v.models, Path("data/folds.json"), v.index,
                       windows, compute_of(params, "page_index"))
        record_in_timing(encode=stats["encode"])


if __name__ == "__main__":
    main(sys.argv[1])
