"""DVC stage: the hard-negative page scorer, one per fold, early-stopped on a validation split
of the fold's training documents (fingap.steps.page_scorer_hn).

``python stages/train_page_scorer_hn.py [windows]``; ``windows``: trained on whole pages as
token windows (page_windows), into models/page_scorer_hn_windows.
"""

import sys
from pathlib import Path

from fingap.steps.page_scorer_hn import run_train_hn_stage
from fingap.steps.stagekit import stage


def main(mode: str = "") -> None:
    if mode not in ("", "windows"):
        raise SystemExit(f"train_page_scorer_hn: the argument must be 'windows', got {mode!r}")
    stem = "page_scorer_hn" + ("_windows" if mode else "")
    with stage(f"train_{stem}") as params:
        run_train_hn_stage(params, bool(mode), f"train_{stem}", Path("data/corpus"),
                           Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                           Path("models/page_scorer"), Path("data/page_index/trained"),
                           Path("data/synthetic/facts.jsonl"),
                           Path("data/synthetic/doc2query.jsonl"), Path(f"models/{stem}"),
                           Path(f"reports/{stem}_training.json"), Path(f"reports/{stem}.md"))


if __name__ == "__main__":
    main(*sys.argv[1:])
