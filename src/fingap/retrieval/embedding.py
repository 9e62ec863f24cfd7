"""Dense text encoder with an on-disk embedding cache.

Long texts: the embedder has a maximum sequence length (256 tokens for all-MiniLM-L6-v2 as
configured, 512 positions). With ``long_text="mean_pool"`` (default) a text longer than that is
split into consecutive windows of the model's length, each window is embedded, and the text's
embedding is the re-normalised mean of its windows, so no part of a 1024-token chunk is ignored.
``long_text="truncate"`` embeds only the first window (what sentence-transformers does).

BGE models (``BAAI/bge-m3``, ``bge-small-en-v1.5``, ...) are loaded through FlagEmbedding's
``FlagModel`` (CLS pooling, as they were trained); every other model through
sentence-transformers.

Cache: embeddings are stored in SQLite keyed by sha1(model fingerprint, settings, text), so
re-chunking only encodes chunks whose text is new; a text's window embeddings (asked for by the
dense chunk index, whose windows are the parent-child children) under a key of their own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.caches import VectorCache
from ..core.models import ensure_offline, model_fingerprint, resolve_model
from ..core.params import ParamError
from ..core.precision import autocast
from ..ingestion.chunking import windows

LONG_TEXT_MODES = ("mean_pool", "truncate")
PRECISIONS = ("fp32", "bf16")


# the store is the generic one: embeddings here, cross-encoder scores in reranking
EmbeddingCache = VectorCache


class TextEncoder:
    """Sentence-transformers encoder returning L2-normalised float32 embeddings."""

    def __init__(
        self,
        model: str,
        max_seq_length: int | None = None,
        long_text: str = "mean_pool",
        precision: str = "bf16",
        batch_size: int = 32,
        cache_path: str | Path | None = None,
        show_progress: bool = True,
    ):
        if long_text not in LONG_TEXT_MODES:
            raise ParamError(f"dense.long_text must be one of {LONG_TEXT_MODES}, got {long_text!r}")
        if precision not in PRECISIONS:
            raise ParamError(f"dense.precision must be one of {PRECISIONS}, got {precision!r}")
        ensure_offline()
        from .bge import FlagDenseEncoder, is_bge

        self.model_name = model
        self.flag = None
        self._model = None
        self._requested_length = max_seq_length
        if is_bge(model):
            self.max_seq_length = max_seq_length or 512
            self.flag = FlagDenseEncoder(model, max_length=self.max_seq_length,
                                         batch_size=batch_size)
        elif max_seq_length:
            # the model is loaded on the first text the cache does not hold: a stage whose
            # queries were all encoded before never imports sentence-transformers
            self.max_seq_length = max_seq_length
        else:
            self.max_seq_length = self.model.max_seq_length  # the model's own setting
        self.long_text = long_text
        self.precision = precision
        self.batch_size = batch_size
        self.show_progress = show_progress
        self.cache = EmbeddingCache(cache_path) if cache_path else None
        self._settings = f"{model_fingerprint(model)}|{self.max_seq_length}|{long_text}|{precision}"
        if self.flag is not None:
            self._settings += "|flagembedding"
        self.stats = {"encoded": 0, "cached": 0, "windows": 0}

    @property
    def model(self):
        """The sentence-transformers model, loaded on first use (None for a BGE model)."""
        if self._model is None and self.flag is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(resolve_model(self.model_name), device="cpu")
            if self._requested_length:
                self._model.max_seq_length = self._requested_length
        return self._model

    @property
    def tokenizer(self):
        return self.flag.tokenizer if self.flag is not None else self.model.tokenizer

    @property
    def dim(self) -> int:
        if self.flag is not None:
            return int(self.flag.model.model.config.hidden_size)
        return self.model.get_embedding_dimension()

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self._settings}\x00{text}".encode()).hexdigest()

    def encode_raw(self, texts: list[str], desc: str = "encode") -> np.ndarray:
        """The model forward pass on whole texts (truncated at max_seq_length), normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        ctx = autocast(self.precision)
        if self.flag is not None:
            with ctx:
                return self.flag.encode(texts)
        with ctx:
            emb = self.model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=self.show_progress and len(texts) > self.batch_size,
            )
        return np.asarray(emb, dtype=np.float32)

    def split_long(self, text: str) -> list[str]:
        """Windows of at most max_seq_length - 2 tokens (room for [CLS]/[SEP])."""
        if self.long_text == "truncate":
            return [text]
        tok = self.tokenizer
        offs = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)[
            "offset_mapping"
        ]
        size = self.max_seq_length - 2
        if len(offs) <= size:
            return [text]
        return [text[offs[s][0] : offs[e - 1][1]] for s, e in windows(len(offs), size, 0)]

    def encode(self, texts: Sequence[str], desc: str = "encode") -> np.ndarray:
        return self._encode(texts, desc, with_windows=False)[0]

    def encode_with_windows(self, texts: Sequence[str], desc: str = "encode"
                            ) -> tuple[np.ndarray, list[np.ndarray]]:
        """The texts' embeddings, as ``encode`` gives them, and each text's window embeddings
        (n_windows x dim): the very windows its embedding averages, so the parent-child index
        (children = these windows) costs no second pass over the corpus."""
        if self.long_text != "mean_pool":
            raise ParamError("window embeddings (the parent-child children) need "
                             f"dense.long_text: mean_pool, got {self.long_text!r}")
        return self._encode(texts, desc, with_windows=True)

    def _window_key(self, text: str) -> str:
        return self._key("\x00windows\x00" + text)

    def _encode(self, texts: Sequence[str], desc: str, with_windows: bool
                ) -> tuple[np.ndarray, list[np.ndarray]]:
        keys = [self._key(t) for t in texts]
        wkeys = [self._window_key(t) for t in texts] if with_windows else []
        found = self.cache.get_many(keys) if self.cache else {}
        found_w = self.cache.get_many(wkeys) if self.cache and with_windows else {}
        # a text is encoded afresh when its embedding, or its windows when asked, are not
        # cached; its embedding is then the mean of the very windows returned
        todo = sorted({k: t for k, w, t in zip(keys, wkeys or keys, texts, strict=True)
                       if k not in found or (with_windows and w not in found_w)}.items())
        self.stats["cached"] += len(texts) - len(todo)
        if todo:
            pieces, owner = [], []
            for i, (_, t) in enumerate(todo):
                for w in self.split_long(t):
                    pieces.append(w)
                    owner.append(i)
            self.stats["windows"] += len(pieces)
            self.stats["encoded"] += len(todo)
            emb = self.encode_raw(pieces, desc=desc)
            sums = np.zeros((len(todo), emb.shape[1]), dtype=np.float64)
            np.add.at(sums, np.asarray(owner), emb)
            sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
            new = {k: sums[i].astype(np.float32) for i, (k, _) in enumerate(todo)}
            new_w = {}
            if with_windows:  # each text's pieces are consecutive rows of emb
                bounds = np.searchsorted(np.asarray(owner), np.arange(len(todo) + 1))
                new_w = {self._window_key(t): emb[bounds[i]:bounds[i + 1]]
                         for i, (_, t) in enumerate(todo)}
            if self.cache:
                self.cache.put_many({**new, **{k: v.ravel() for k, v in new_w.items()}})
            found.update(new)
            found_w.update(new_w)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), []
        vectors = np.stack([found[k] for k in keys]).astype(np.float32)
        return vectors, [np.asarray(found_w[w], dtype=np.float32).reshape(-1, vectors.shape[1])
                         for w in wkeys]
