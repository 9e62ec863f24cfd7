"""Cross-encoder reranking at query time: rescore a run's first candidates with a
sequence-classification cross-encoder (fingap's fold-trained MiniLM, or any by name or path,
e.g. ``BAAI/bge-reranker-v2-m3``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

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
                 precision: str = "bf16", seed: int = 0):
        self.model = load_cross_encoder(model, max_length=max_length, seed=seed)
        self.max_length, self.batch_size, self.precision = max_length, batch_size, precision

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        out = np.zeros(len(pairs), dtype=np.float32)
        # fingap's own batches (pairs sorted by page length): a batch's padded shape sets the
        # kernels' rounding, so scores do not depend on sentence-transformers' batching
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][1]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            with autocast(self.precision):
                scores = self.model.predict([pairs[i] for i in idx], batch_size=len(idx),
                                            convert_to_numpy=True, show_progress_bar=False)
            out[idx] = np.asarray(scores, dtype=np.float32).reshape(-1)
        return out

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
