"""Cross-encoder reranking at query time: rescore a run's first candidates with a
sequence-classification cross-encoder (fingap's fold-trained MiniLM, or any by name or path,
e.g. ``BAAI/bge-reranker-v2-m3``).

Pairs are scored in batches of equal token length, so nothing is padded and a pair's score does
not depend on the pairs scored beside it (in bf16, padding changes the kernels' rounding: a short
pair batched with long ones moved by one bf16 step in 2 of 70 trials). That makes a score
cache exact: with ``cache_path``, scores are kept in SQLite keyed on a hash of the loaded
weights (the fresh head of an untrained model included), the length, the precision and the
pair's text, so a ``page_scorer.P`` sweep rescores only the pairs it has not seen.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path

import numpy as np

from ..core.caches import VectorCache
from ..core.precision import autocast
from ..core.runs import Run, top_k


def load_cross_encoder(model: str, max_length: int = 256, seed: int = 0):
    """A sentence-transformers ``CrossEncoder`` with one logit and no activation (raw scores);
    a bi-encoder checkpoint (the bundled MiniLM) gets a fresh head initialised from ``seed``."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    from ..core.models import ensure_offline, resolve_model

    ensure_offline()
    path = resolve_model(model)
    torch.manual_seed(seed)
    return CrossEncoder(path, num_labels=1, max_length=max_length, device="cpu",
                        activation_fn=torch.nn.Identity())


class CrossEncoderReranker:
    def __init__(self, model: str, max_length: int = 256, batch_size: int = 32,
                 precision: str = "bf16", seed: int = 0, cache_path: str | Path | None = None):
        self.model = load_cross_encoder(model, max_length=max_length, seed=seed)
        self.max_length, self.batch_size, self.precision = max_length, batch_size, precision
        self.cache = VectorCache(cache_path) if cache_path else None  # one float per pair
        self._settings: str | None = None

    @classmethod
    def of_model(cls, model, max_length: int, batch_size: int = 32,
                 precision: str = "bf16") -> CrossEncoderReranker:
        """Wrap a loaded ``CrossEncoder`` (e.g. one just trained), without a score cache."""
        rr = cls.__new__(cls)
        rr.model, rr.max_length, rr.batch_size, rr.precision = model, max_length, batch_size, \
            precision
        rr.cache, rr._settings = None, None
        return rr

    def _key(self, query: str, passage: str) -> str:
        if self._settings is None:
            h = hashlib.sha1()
            for name, tensor in sorted(self.model.state_dict().items()):
                h.update(name.encode())
                h.update(tensor.detach().float().cpu().numpy().tobytes())
            self._settings = f"{h.hexdigest()}|{self.max_length}|{self.precision}"
        return hashlib.sha1(f"{self._settings}\x00{query}\x00{passage}".encode()).hexdigest()

    def _compute(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        out = np.zeros(len(pairs), dtype=np.float32)
        if not pairs:
            return out
        ids = self.model.tokenizer([q for q, _ in pairs], [p for _, p in pairs],
                                   truncation=True, max_length=self.max_length)["input_ids"]
        order = sorted(range(len(pairs)), key=lambda i: (len(ids[i]), i))
        for _, same in groupby(order, key=lambda i: len(ids[i])):
            same = list(same)
            for b in range(0, len(same), self.batch_size):
                idx = same[b : b + self.batch_size]
                with autocast(self.precision):
                    scores = self.model.predict([pairs[i] for i in idx], batch_size=len(idx),
                                                convert_to_numpy=True, show_progress_bar=False)
                out[idx] = np.asarray(scores, dtype=np.float32).reshape(-1)
        return out

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if self.cache is None:
            return self._compute(pairs)
        keys = [self._key(q, p) for q, p in pairs]
        known = {k: v[0] for k, v in self.cache.get_many(keys).items()}
        todo = [i for i, k in enumerate(keys) if k not in known]
        fresh = self._compute([pairs[i] for i in todo])
        self.cache.put_many({keys[i]: fresh[j : j + 1] for j, i in enumerate(todo)})
        known.update({keys[i]: fresh[j] for j, i in enumerate(todo)})
        return np.array([known[k] for k in keys], dtype=np.float32)

    def rerank(self, run: Run, queries: Mapping[str, str], texts: Mapping[str, str], k: int,
               n_candidates: int) -> Run:
        """Rescore the first ``n_candidates`` of each question's list; keep the top ``k``."""
        out: Run = {}
        for qid in sorted(run):
            cands = [c for c, _ in run[qid][:n_candidates]]
            if not cands:
                out[qid] = []
                continue
            scores = self.score([(queries[qid], texts[c]) for c in cands])
            out[qid] = top_k(cands, scores, k)
        return out
