"""BGE models through FlagEmbedding, for users who have BGE weights (hub or local copy).

- Dense: a configured dense model whose name says BGE (``BAAI/bge-m3``, ``bge-small-en-v1.5``)
  is encoded with ``FlagModel`` (CLS pooling, as BGE was trained); ``dense.backend`` can force
  either loader. The bundled MiniLM loads through ``FlagModel`` too (mean pooling), which is how
  the tests exercise this path without BGE weights.
- Reranker: a ``bge-reranker`` model scores pairs with ``FlagReranker``.
- "BGE-M3 all three": ``BGEM3FlagModel`` rescoring a first-stage list with its dense,
  lexical-sparse and ColBERT scores combined. Only BGE-M3's own weights can do this; without
  them every entry point raises ModelNotFound saying what is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.models import ModelNotFound, ensure_offline, resolve_model
from .reranking import CrossEncoderReranker

# BGE-M3's paper weights for dense, sparse and multi-vector scores (normalised to sum to 1)
M3_WEIGHTS = (0.4, 0.2, 0.4)


def is_bge(model: str) -> bool:
    """By the last path part, so a hub id (BAAI/bge-m3) and a local folder both count."""
    return "bge" in Path(str(model)).name.lower()


def is_bge_m3(model: str) -> bool:
    return "bge-m3" in str(model).lower()


def is_bge_reranker(model: str) -> bool:
    return "bge-reranker" in str(model).lower()


def _locate(model: str, what: str) -> str:
    """A local folder for ``model``, or its hub id when the hub is allowed; else a clear error."""
    import os

    ensure_offline()
    path = resolve_model(model)  # a registered name, an existing folder, or a hub id
    if Path(path).exists():
        return str(path)
    if os.environ.get("HF_HUB_OFFLINE", "1") != "0":
        raise ModelNotFound(
            f"{what} needs the weights of {model!r}, which are not a local folder, and the model "
            "hub is off (HF_HUB_OFFLINE=1). Download them on a machine with a hub "
            "(BAAI/bge-m3 is about 2.3 GB) and point the param at the folder, or set "
            "HF_HUB_OFFLINE=0 where a hub is reachable.")
    return str(model)


class FlagDenseEncoder:
    """``FlagModel`` behind a plain ``encode(texts) -> L2-normalised float32`` call."""

    def __init__(self, model: str, pooling: str | None = None, max_length: int = 512,
                 batch_size: int = 32):
        from FlagEmbedding import FlagModel

        path = _locate(model, "the FlagEmbedding dense encoder")
        self.pooling = pooling or ("cls" if is_bge(model) else "mean")
        self.model = FlagModel(path, pooling_method=self.pooling, normalize_embeddings=True,
                               use_fp16=False, devices="cpu", batch_size=batch_size,
                               query_max_length=max_length, passage_max_length=max_length,
                               query_instruction_for_retrieval=None)
        self.tokenizer = self.model.tokenizer
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.model.config.hidden_size), dtype=np.float32)
        return np.asarray(self.model.encode(list(texts), batch_size=self.batch_size),
                          dtype=np.float32)


class FlagRerankerAdapter(CrossEncoderReranker):
    """A bge-reranker through ``FlagReranker``, with the reranking logic of the base class."""

    def __init__(self, model: str, max_length: int = 512, batch_size: int = 32):
        from FlagEmbedding import FlagReranker

        self.model = FlagReranker(_locate(model, "the bge-reranker"), use_fp16=False,
                                  devices="cpu", max_length=max_length, batch_size=batch_size)
        self.max_length, self.batch_size = max_length, batch_size

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        scores = self.model.compute_score([list(p) for p in pairs], batch_size=self.batch_size,
                                          max_length=self.max_length)
        return np.atleast_1d(np.asarray(scores, dtype=np.float32))


class BGEM3AllThree(CrossEncoderReranker):
    """Rescore candidates with BGE-M3's dense + lexical-sparse + ColBERT scores (M3_WEIGHTS).

    Run as a second stage over a first-stage list: ColBERT vectors for every chunk of the corpus
    would need tens of GB, and this is also how the BGE-M3 paper combines the three."""

    def __init__(self, model: str = "BAAI/bge-m3", max_length: int = 1024,
                 batch_size: int = 8, weights: Sequence[float] = M3_WEIGHTS):
        if not is_bge_m3(model) and not Path(str(model)).exists():
            raise ModelNotFound(f"'BGE-M3 all three' needs BGE-M3 weights; {model!r} is not "
                                "BGE-M3 (set bge_m3.model to BAAI/bge-m3 or a local copy)")
        path = _locate(model, "the 'BGE-M3 all three' row")
        from FlagEmbedding import BGEM3FlagModel

        self.model = BGEM3FlagModel(path, use_fp16=False, devices="cpu")
        self.max_length, self.batch_size, self.weights = max_length, batch_size, list(weights)

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        out = self.model.compute_score([list(p) for p in pairs], batch_size=self.batch_size,
                                       max_query_length=self.max_length,
                                       max_passage_length=self.max_length,
                                       weights_for_different_modes=self.weights)
        return np.asarray(out["colbert+sparse+dense"], dtype=np.float32)
