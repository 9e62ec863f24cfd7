"""The whole page for the page scorer: token windows over a page's full text, and the page
score from its windows' scores (MaxP, or the mean weighted by each window's tokens).

A bi-encoder reads max_seq_length tokens (256 for the page scorer), about the first 1,000
characters of a page that averages 2,800; windows let it see the rest. The normaliser is for
the scorer's input only: ``data/pages`` stays as extracted, since the parser fingerprint and
every row depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core.params import ParamError

PageKey = tuple[str, int]

# a table cell PyMuPDF puts on its own line: a currency sign alone, or a value
_CURRENCY = frozenset({"$", "€", "£", "¥"})
_VALUE = re.compile(r"^[(\-–—]?[$€£¥]?\s*\(?\d[\d,]*(?:\.\d+)?\)?\s*%?\)?$|^[—–-]+$")
_SPACED_PERCENT = re.compile(r"(\d)\s+%")
AGGREGATIONS = ("maxp", "mean")


def normalise_page_text(text: str) -> str:
    """One line per table row (its label, then its values) and one line per line of prose:
    lone currency signs and blank lines dropped, ``37.2 %`` written ``37.2%``, runs of
    whitespace made one space. Values that PyMuPDF wrote one per line join their label's
    line, so a window cut never leaves a row's values without their label."""
    rows: list[list[str]] = []
    for raw in text.splitlines():
        line = _SPACED_PERCENT.sub(r"\1%", " ".join(raw.split()))
        if not line or line in _CURRENCY:
            continue
        if _VALUE.match(line) and rows:
            rows[-1].append(line)
        else:
            rows.append([line])
    return "\n".join(" ".join(r) for r in rows)


class Window(NamedTuple):
    text: str
    n_tokens: int


def page_windows(text: str, tokenizer, size: int, stride: int) -> list[Window]:
    """Windows of at most ``size`` word-piece tokens, each starting ``stride`` tokens after the
    last (``stride`` < ``size``: consecutive windows overlap by ``size - stride``), cut at
    token boundaries of ``text`` and covering all of it. An empty page is one empty window."""
    if size < 1 or not 0 < stride <= size:
        raise ValueError(f"page windows need size >= 1 and 0 < stride <= size, got {size}, "
                         f"{stride}")
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                    truncation=False, verbose=False)  # long on purpose: no length warning
    offsets = enc["offset_mapping"]
    if not offsets:
        return [Window(text.strip(), 0)]
    out = []
    start = 0
    while True:
        end = min(start + size, len(offsets))
        out.append(Window(text[offsets[start][0]:offsets[end - 1][1]], end - start))
        if end == len(offsets):
            return out
        start += stride


def page_scores(window_scores: np.ndarray, window_page: np.ndarray, window_tokens: np.ndarray,
                n_pages: int, how: str) -> np.ndarray:
    """Each page's score from its windows' scores: ``maxp``, the best window; ``mean``, the
    mean weighted by each window's token count. ``window_page[i]`` is window i's page row."""
    if how == "maxp":
        out = np.full(n_pages, -np.inf, dtype=np.float64)
        np.maximum.at(out, window_page, window_scores)
        return out
    if how == "mean":
        weights = np.maximum(window_tokens, 1).astype(np.float64)
        total = np.bincount(window_page, weights=window_scores * weights, minlength=n_pages)
        return total / np.bincount(window_page, weights=weights, minlength=n_pages)
    raise ValueError(f"page window aggregation must be one of {AGGREGATIONS}, got {how!r}")


def best_window(windows: Sequence[str], evidence: str) -> int:
    """The window (by its text) sharing the most word types with ``evidence`` (the first on a
    tie): the positive of a training pair when the scorer trains on windows."""
    want = set(re.findall(r"\w+", evidence.lower()))
    overlap = [len(want & set(re.findall(r"\w+", w.lower()))) for w in windows]
    return int(np.argmax(overlap)) if overlap else 0


@dataclass(frozen=True)
class WindowConfig:
    """How the scorer windows a page: ``overlap`` tokens shared by consecutive windows, the
    page text normalised first or not. The window size is the encoder's max_seq_length less
    its two special tokens."""

    overlap: int = 32
    normalise: bool = True

    @classmethod
    def from_params(cls, p: dict, section: str) -> WindowConfig:
        cfg = cls(overlap=p.get("overlap", 32), normalise=p.get("normalise", True))
        if not isinstance(cfg.overlap, int) or cfg.overlap < 0:
            raise ParamError(f"{section}.overlap must be an integer >= 0, got {cfg.overlap!r}")
        if not isinstance(cfg.normalise, bool):
            raise ParamError(f"{section}.normalise must be true or false, got "
                             f"{cfg.normalise!r}")
        return cfg

    def windows(self, text: str, tokenizer, max_seq_length: int) -> list[Window]:
        size = max_seq_length - 2  # [CLS] and [SEP]
        if self.overlap >= size:
            raise ParamError(f"page window overlap ({self.overlap}) must be smaller than "
                             f"max_seq_length - 2 ({size})")
        return page_windows(normalise_page_text(text) if self.normalise else text, tokenizer,
                            size, size - self.overlap)


class PageWindowTexts:
    """Each page's window texts as an encoder's tokenizer cuts them (``model``, windows of
    ``max_seq_length``), computed once per page: the view shared by whole-page training, the
    page reranker and late interaction."""

    def __init__(self, pages: Mapping[PageKey, str], model: str, max_seq_length: int,
                 cfg: WindowConfig):
        from transformers import AutoTokenizer

        from ..core.models import ensure_offline, resolve_model

        ensure_offline()
        self.pages, self.max_seq_length, self.cfg = pages, max_seq_length, cfg
        self.tokenizer = AutoTokenizer.from_pretrained(resolve_model(model))
        self._texts: dict[PageKey, list[str]] = {}

    def __call__(self, key: PageKey) -> list[str]:
        key = tuple(key)
        if key not in self._texts:
            self._texts[key] = [w.text for w in self.cfg.windows(
                self.pages[key], self.tokenizer, self.max_seq_length)]
        return self._texts[key]


def windowed_pages(pages: Mapping[PageKey, str], keys: Sequence[PageKey], tokenizer,
                   max_seq_length: int, cfg: WindowConfig
                   ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(window texts, each window's row in ``keys``, each window's token count)."""
    texts, rows, tokens = [], [], []
    for r, key in enumerate(keys):
        for w in cfg.windows(pages[key], tokenizer, max_seq_length):
            texts.append(w.text)
            rows.append(r)
            tokens.append(w.n_tokens)
    return texts, np.array(rows, dtype=np.int64), np.array(tokens, dtype=np.int64)


class WindowPageIndex:
    """Pages ranked by their windows' scores (``how``: maxp or mean); the same ``rank`` as
    ``page_ranking.PageIndex``, with ``allowed`` naming page rows."""

    def __init__(self, keys: Sequence[PageKey], embeddings: np.ndarray, window_page: np.ndarray,
                 window_tokens: np.ndarray, how: str):
        if not len(embeddings) == len(window_page) == len(window_tokens):
            raise ValueError(f"{len(embeddings)} window embeddings, {len(window_page)} window "
                             f"pages, {len(window_tokens)} token counts")
        if how not in AGGREGATIONS:
            raise ValueError(f"page window aggregation must be one of {AGGREGATIONS}: {how!r}")
        self.keys = [tuple(k) for k in keys]
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self.window_page, self.window_tokens, self.how = window_page, window_tokens, how

    def rank(self, query_vec: np.ndarray, top: int,
             allowed: np.ndarray | None = None) -> list[tuple[PageKey, float]]:
        scores = page_scores(self.embeddings @ query_vec, self.window_page, self.window_tokens,
                             len(self.keys), self.how)
        rows = np.arange(len(self.keys)) if allowed is None else np.asarray(allowed)
        # best first; ties by page order, as PageIndex breaks them by page id
        order = rows[np.lexsort((rows, -scores[rows]))][:top]
        return [(self.keys[r], float(scores[r])) for r in order]
