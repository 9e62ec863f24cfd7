"""Where each page scorer variant keeps its fold models and its page index.

``mode`` is how page_scorer_steps treats it: ``trained`` (one model per fold, each question
scored by its held-out fold's model) or ``untrained`` (the base model for every question).
``windows``: the scorer reads every page as token windows (fingap.retrieval.page_windows), and
``aggregate`` turns a page's window scores into its score.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..core.params import ParamError


class PageVariant(NamedTuple):
    mode: str
    models: Path
    index: Path
    windows: bool = False
    aggregate: str = "maxp"


_WINDOWS = PageVariant("trained", Path("models/page_scorer_hn_windows"),
                       Path("data/page_index/hn_windows"), windows=True)
VARIANTS = {
    "trained": PageVariant("trained", Path("models/page_scorer"), Path("data/page_index/trained")),
    "untrained": PageVariant("untrained", Path("models/page_scorer"),
                             Path("data/page_index/untrained")),
    # beyond the paper: hard negatives + early stopping (fingap.steps.page_scorer_hn)
    "hn": PageVariant("trained", Path("models/page_scorer_hn"), Path("data/page_index/hn")),
    # the hard-negative scorer trained and indexed on whole pages, as windows; its page index
    # serves both aggregations
    "hn_windows": _WINDOWS,
    "hn_windows_maxp": _WINDOWS,
    "hn_windows_mean": _WINDOWS._replace(aggregate="mean"),
}


def page_variant(name: str) -> PageVariant:
    if name not in VARIANTS:
        raise ParamError(f"unknown page scorer variant {name!r}; known: {', '.join(VARIANTS)}")
    return VARIANTS[name]
