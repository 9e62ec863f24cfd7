"""SPLADE retrieval over a sparse inverted index.

Encoding (as in SPLADE): w_t = max over positions of log(1 + relu(MLM logit_t)), inputs truncated
to 512 tokens; each chunk keeps its ``top_terms`` (N = 256) highest-weighted terms. The index is
a CSC matrix (term -> chunks postings); a query touches only the postings of its own terms, never
a dense scan over the vocabulary.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.io import atomic_path, write_json
from ..core.precision import autocast
from .base import Retriever


def _max_then_log1p_pooling():
    """SPLADE's max pooling as a sentence-transformers module, with the max taken first.

    log(1 + relu(x)) is monotonic, so max-then-log1p equals sentence-transformers' log1p-then-max
    exactly. Taking the max on the raw MLM logits (in the model's dtype, bf16 under autocast)
    avoids a float32 copy of the (batch, length, vocab) logits (about 2 GB per 32 x 512 batch)
    and applies log1p to the pooled vector in float32, so the weights keep fingap's earlier
    SPLADE index bit for bit (tests/retrieval/test_splade.py).
    """
    import torch
    from sentence_transformers.sparse_encoder.modules import SpladePooling

    class MaxThenLog1pPooling(SpladePooling):
        def forward(self, features: dict) -> dict:
            logits = features["token_embeddings"]
            pad = features["attention_mask"].unsqueeze(-1) == 0
            pooled = logits.masked_fill(pad, 0.0).max(dim=1).values.float()
            features["sentence_embedding"] = torch.log1p(torch.relu(pooled))
            return features

    return MaxThenLog1pPooling("max")


class SpladeEncoder:
    """A sentence-transformers ``SparseEncoder`` (fill-mask Transformer + SPLADE max pooling)."""

    def __init__(self, model: str = "splade-tiny", max_length: int = 512, batch_size: int = 32,
                 precision: str = "fp32"):
        from sentence_transformers import SparseEncoder
        from sentence_transformers.sparse_encoder.modules import Transformer

        from ..core.models import ensure_offline, resolve_model

        if precision not in ("fp32", "bf16"):
            raise ValueError(f"splade.precision must be fp32 or bf16, got {precision!r}")
        ensure_offline()
        path = resolve_model(model)
        # safetensors only: some SPLADE packages also ship pickled .pt files
        mlm = Transformer(path, transformer_task="fill-mask",
                          model_kwargs={"use_safetensors": True})
        self.model = SparseEncoder(modules=[mlm, _max_then_log1p_pooling()], device="cpu")
        self.model.max_seq_length = max_length
        self.tokenizer = self.model.tokenizer
        self.max_length = max_length
        self.batch_size = batch_size
        self.vocab_size = int(mlm.auto_model.config.vocab_size)
        self.precision = precision

    def encode(self, texts: list[str], top_terms: int | None = None,
               show_progress: bool = False) -> sp.csr_matrix:
        """Sparse (n_texts, vocab) weights; rows keep at most ``top_terms`` terms."""
        from tqdm import tqdm

        rows, cols, vals = [], [], []
        # fingap's own batches (texts sorted by length, as the index was always built): a batch's
        # padded shape sets the kernels' rounding, so the same batches give the same weights
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        starts = range(0, len(order), self.batch_size)
        for b in tqdm(starts, desc="splade", disable=not show_progress):
            idx = order[b : b + self.batch_size]
            with autocast(self.precision):
                emb = self.model.encode([texts[i] for i in idx], batch_size=len(idx),
                                        max_active_dims=top_terms, convert_to_sparse_tensor=True)
            emb = emb.coalesce()
            r, c = emb.indices().numpy()
            v = emb.values().float().numpy()
            keep = v != 0  # relu zeros among the kept top terms are not postings
            rows.append(np.asarray(idx)[r[keep]])
            cols.append(c[keep])
            vals.append(v[keep])
        if not rows:
            return sp.csr_matrix((len(texts), self.vocab_size), dtype=np.float32)
        return sp.csr_matrix((np.concatenate(vals).astype(np.float32),
                              (np.concatenate(rows), np.concatenate(cols))),
                             shape=(len(texts), self.vocab_size))


class SpladeRetriever(Retriever):
    def __init__(self, ids: list[str], doc_matrix: sp.spmatrix, encoder: SpladeEncoder | None):
        self.ids = list(ids)
        self.index = sp.csc_matrix(doc_matrix, dtype=np.float32)  # column = postings of a term
        self.encoder = encoder

    def score_sparse(self, q: sp.csr_matrix) -> np.ndarray:
        """(n_queries, n_chunks) scores, touching only the postings of each query's terms."""
        out = np.zeros((q.shape[0], len(self.ids)), dtype=np.float32)
        for r in range(q.shape[0]):
            row = q.getrow(r)
            if row.nnz:
                out[r] = (self.index[:, row.indices] @ row.data).astype(np.float32)
        return out

    def score(self, queries: list[str]) -> np.ndarray:
        if self.encoder is None:
            raise RuntimeError("SpladeRetriever needs an encoder to search with text queries")
        return self.score_sparse(self.encoder.encode(queries))

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_path(directory / "index.npz") as tmp, open(tmp, "wb") as f:
            sp.save_npz(f, self.index.tocsr())
        write_json(directory / "ids.json", self.ids)

    @classmethod
    def load(cls, directory: str | Path, encoder: SpladeEncoder | None = None) -> SpladeRetriever:
        directory = Path(directory)
        ids = json.loads((directory / "ids.json").read_text())
        return cls(ids, sp.load_npz(directory / "index.npz"), encoder)
