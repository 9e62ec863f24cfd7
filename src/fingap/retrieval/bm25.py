"""BM25 over chunks with the finance-aware tokenizer; bm25s by default, rank-bm25 selectable.

IDF statistics come from the whole chunk collection in every condition: the oracle conditions
only restrict which chunks may be returned.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..core.io import atomic_path, write_json
from ..core.params import ParamError
from ..core.runs import top_k
from ..core.text_tokens import tokenize
from .base import Retriever

BACKENDS = ("bm25s", "rank_bm25")


class BM25Retriever(Retriever):
    def __init__(self, ids: list[str], corpus_tokens: list[list[str]], backend: str = "bm25s",
                 k1: float = 1.5, b: float = 0.75):
        if backend not in BACKENDS:
            raise ParamError(f"bm25.backend must be one of {BACKENDS}, got {backend!r}")
        self.ids, self.backend, self.k1, self.b = list(ids), backend, k1, b
        self.corpus_tokens = corpus_tokens
        if backend == "bm25s":
            import bm25s

            self.index = bm25s.BM25(k1=k1, b=b, method="lucene")
            self.index.index(corpus_tokens, show_progress=False)
            self.vocab = set(self.index.vocab_dict)
        else:
            from rank_bm25 import BM25Okapi

            # rank-bm25 divides by zero on an all-empty corpus; an empty doc gets a dummy token
            self.index = BM25Okapi([t or ["\x00"] for t in corpus_tokens], k1=k1, b=b)

    @classmethod
    def from_texts(cls, ids: list[str], texts: list[str], **kw) -> BM25Retriever:
        return cls(ids, [tokenize(t) for t in texts], **kw)

    def _score_one(self, tokens: list[str]) -> np.ndarray:
        if self.backend == "bm25s":
            tokens = [t for t in tokens if t in self.vocab]
            if not tokens:
                return np.zeros(len(self.ids), dtype=np.float32)
            return np.asarray(self.index.get_scores(tokens), dtype=np.float32)
        return np.asarray(self.index.get_scores(tokens), dtype=np.float32)

    def score(self, queries: list[str]) -> np.ndarray:
        return np.stack([self._score_one(tokenize(q)) for q in queries]) if queries else \
            np.zeros((0, len(self.ids)), dtype=np.float32)

    def top_k_all(self, queries: list[str], k: int) -> list[list[tuple[str, float]]]:
        if self.backend != "bm25s":
            return super().top_k_all(queries, k)
        out = []
        for q in queries:
            tokens = [t for t in tokenize(q) if t in self.vocab]
            if not tokens:
                out.append(top_k(self.ids[:k], [0.0] * min(k, len(self.ids)), k))
                continue
            # over-fetch so ties at the cut are broken by chunk id, like the other paths
            m = min(len(self.ids), k + 8)
            docs, scores = self.index.retrieve([tokens], k=m, show_progress=False)
            out.append(top_k((self.ids[i] for i in docs[0]), scores[0], k))
        return out

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_path(directory / "tokens.jsonl") as tmp, open(tmp, "w") as f:
            for cid, toks in zip(self.ids, self.corpus_tokens, strict=True):
                f.write(json.dumps([cid, toks]) + "\n")
        write_json(directory / "config.json", {"backend": self.backend, "k1": self.k1, "b": self.b,
                                               "n_chunks": len(self.ids)})

    @classmethod
    def load(cls, directory: str | Path, backend: str | None = None) -> BM25Retriever:
        """Rebuild from the saved tokens (index building takes seconds; no pickles on disk)."""
        directory = Path(directory)
        cfg = json.loads((directory / "config.json").read_text())
        ids, toks = [], []
        with open(directory / "tokens.jsonl") as f:
            for line in f:
                cid, t = json.loads(line)
                ids.append(cid)
                toks.append(t)
        return cls(ids, toks, backend=backend or cfg["backend"], k1=cfg["k1"], b=cfg["b"])
