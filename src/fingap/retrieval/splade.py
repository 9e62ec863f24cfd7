"""SPLADE retrieval over a sparse inverted index.

Encoding (as in SPLADE): w_t = max over positions of log(1 + relu(MLM logit_t)), inputs truncated
to 512 tokens; each chunk keeps its ``top_terms`` (N = 256) highest-weighted terms. The index is
a CSC matrix (term -> chunks postings); a query touches only the postings of its own terms, never
a dense scan over the vocabulary.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.io import atomic_path, write_json
from .base import Retriever


class SpladeEncoder:
    def __init__(self, model: str = "splade-tiny", max_length: int = 512, batch_size: int = 32,
                 precision: str = "fp32"):
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        from ..core.models import ensure_offline, resolve_model

        ensure_offline()
        path = resolve_model(model)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForMaskedLM.from_pretrained(path, use_safetensors=True).eval()
        self.max_length = max_length
        self.batch_size = batch_size
        self.vocab_size = self.model.config.vocab_size
        if precision not in ("fp32", "bf16"):
            raise ValueError(f"splade.precision must be fp32 or bf16, got {precision!r}")
        self.precision = precision

    def encode(self, texts: list[str], top_terms: int | None = None,
               show_progress: bool = False) -> sp.csr_matrix:
        """Sparse (n_texts, vocab) weights; rows keep at most ``top_terms`` terms."""
        import torch
        from tqdm import tqdm

        rows, cols, vals = [], [], []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # less padding
        starts = range(0, len(order), self.batch_size)
        for b in tqdm(starts, desc="splade", disable=not show_progress):
            idx = order[b : b + self.batch_size]
            enc = self.tokenizer([texts[i] for i in idx], padding=True, truncation=True,
                                 max_length=self.max_length, return_tensors="pt")
            autocast = (torch.autocast("cpu", dtype=torch.bfloat16) if self.precision == "bf16"
                        else contextlib.nullcontext())
            with torch.inference_mode(), autocast:
                logits = self.model(**enc).logits
            # log(1 + relu(x)) is monotonic, so the max over positions can be taken first
            pad = enc["attention_mask"].unsqueeze(-1) == 0
            w = torch.log1p(torch.relu(logits.float().masked_fill(pad, 0.0).max(dim=1).values))
            if top_terms is not None and top_terms < w.shape[1]:
                top = torch.topk(w, top_terms, dim=1)
                w = torch.zeros_like(w).scatter_(1, top.indices, top.values)
            w = w.numpy()
            for r, i in enumerate(idx):
                nz = np.flatnonzero(w[r])
                rows.extend([i] * len(nz))
                cols.extend(nz.tolist())
                vals.extend(w[r, nz].tolist())
        return sp.csr_matrix((np.asarray(vals, dtype=np.float32), (rows, cols)),
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
