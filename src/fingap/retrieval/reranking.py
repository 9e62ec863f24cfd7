"""Cross-encoder reranking at query time: rescore a run's first candidates with a
sequence-classification cross-encoder (fingap's fold-trained MiniLM, or any by name or path,
e.g. ``BAAI/bge-reranker-v2-m3``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..core.precision import autocast
from ..core.runs import Run, top_k


def load_cross_encoder(model: str, seed: int = 0):
    """(tokenizer, model) for a one-logit sequence classifier; a bi-encoder checkpoint gets a
    fresh head initialised from ``seed``."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from ..core.models import ensure_offline, resolve_model

    ensure_offline()
    path = resolve_model(model)
    torch.manual_seed(seed)
    tok = AutoTokenizer.from_pretrained(path)
    m = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
    return tok, m.eval()


class CrossEncoderReranker:
    def __init__(self, model: str, max_length: int = 256, batch_size: int = 32,
                 precision: str = "bf16", seed: int = 0):
        self.tok, self.model = load_cross_encoder(model, seed=seed)
        self.max_length, self.batch_size, self.precision = max_length, batch_size, precision

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        import torch

        out = np.zeros(len(pairs), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][1]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            enc = self.tok([pairs[i][0] for i in idx], [pairs[i][1] for i in idx],
                           truncation="only_second", max_length=self.max_length, padding=True,
                           return_tensors="pt")
            with torch.inference_mode(), autocast(self.precision):
                logits = self.model(**enc).logits.squeeze(-1).float().numpy()
            out[idx] = logits
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
