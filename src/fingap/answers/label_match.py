"""The gate's label matcher: how well a printed row label means what the question asks.

The verification gate must check meaning with a score that took no part in choosing the row:
the answer agent chooses rows by the finance vocabulary's label patterns and word overlap with
the question, so the gate scores (operand phrase, row label) pairs with a sentence embedder
instead (``answer.gate_matcher``; the bundled all-MiniLM-L6-v2 by default, or any
sentence-transformers model by path or hub id). The score is the cosine of the two normalised
embeddings. Texts are normalised first (lower case, footnote marks and punctuation dropped),
so "Property, plant & equipment, net (a)" and "property plant and equipment net" score alike.
Embeddings are kept per text for the life of the matcher: a page's labels are embedded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..core.models import resolve_model
from .labels import normalise_label, normalise_phrase


class LabelMatcher:
    """Cosine similarity of sentence embeddings between phrases and labels."""

    def __init__(self, model: str = "minilm"):
        self.model_name = model
        self._model = None
        self._cache: dict[str, np.ndarray] = {}

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            if self._model is None:
                self._model = _load(self.model_name)
            vectors = self._model.encode(todo, batch_size=64, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
            self._cache.update(zip(todo, vectors, strict=True))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1))

    def matrix(self, phrases: Sequence[str], labels: Sequence[str]) -> np.ndarray:
        """(len(phrases), len(labels)) cosines; empty phrases are dropped."""
        phrases = [p for p in (normalise_phrase(x) for x in phrases) if p]
        labels = [normalise_label(x) or "-" for x in labels]
        if not phrases or not labels:
            return np.zeros((len(phrases), len(labels)))
        return self._encode(phrases) @ self._encode(labels).T

    def scores(self, phrases: Sequence[str], labels: Sequence[str]) -> np.ndarray:
        """(len(labels),) best cosine of each label against any of ``phrases``."""
        sims = self.matrix(phrases, labels)
        return sims.max(axis=0) if len(sims) else np.zeros(len(labels))


@lru_cache(maxsize=2)
def _load(name: str):
    """One loaded embedder per model and process: every gate (a stage's, each test's) shares
    it, since loading costs more than scoring a page's labels."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(resolve_model(name), device="cpu")
