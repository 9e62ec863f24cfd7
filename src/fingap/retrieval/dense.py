"""Dense retrieval: normalised sentence embeddings in an exact inner-product FAISS index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..core.io import atomic_path, write_json
from ..core.runs import top_k
from .base import Retriever
from .embedding import TextEncoder


class DenseRetriever(Retriever):
    def __init__(self, ids: list[str], embeddings: np.ndarray, encoder: TextEncoder | None = None):
        import faiss

        if len(ids) != len(embeddings):
            raise ValueError(f"{len(ids)} ids but {len(embeddings)} embeddings")
        self.ids = list(ids)
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self.encoder = encoder
        self.index = faiss.IndexFlatIP(self.embeddings.shape[1])
        self.index.add(self.embeddings)

    def encode_queries(self, queries: list[str]) -> np.ndarray:
        if self.encoder is None:
            raise RuntimeError("DenseRetriever needs an encoder to search with text queries")
        return self.encoder.encode(queries, desc="queries")

    def score(self, queries: list[str]) -> np.ndarray:
        return self.score_vectors(self.encode_queries(queries))

    def score_vectors(self, q: np.ndarray) -> np.ndarray:
        return q @ self.embeddings.T

    def top_k_all(self, queries: list[str], k: int) -> list[list[tuple[str, float]]]:
        q = self.encode_queries(queries)
        m = min(len(self.ids), k + 8)  # over-fetch so ties at the cut are broken by chunk id
        scores, rows = self.index.search(np.ascontiguousarray(q), m)
        return [top_k((self.ids[i] for i in r if i >= 0), s[r >= 0], k)
                for s, r in zip(scores, rows, strict=True)]

    def save(self, directory: str | Path) -> None:
        import faiss

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_path(directory / "embeddings.npy") as tmp:
            with open(tmp, "wb") as f:
                np.save(f, self.embeddings)
        with atomic_path(directory / "index.faiss") as tmp:
            faiss.write_index(self.index, str(tmp))
        write_json(directory / "ids.json", self.ids)

    @classmethod
    def load(cls, directory: str | Path, encoder: TextEncoder | None = None) -> DenseRetriever:
        directory = Path(directory)
        ids = json.loads((directory / "ids.json").read_text())
        return cls(ids, np.load(directory / "embeddings.npy"), encoder)


# ---------------------------------------------------------------- retrieval side
class VectorQueries(Retriever):
    """A dense retriever queried by precomputed vectors. The "query text" handed to ``search``
    is the question id, so the generic search, conditions and page restriction all apply."""

    def __init__(self, dense, vectors: dict[str, np.ndarray]):
        self.dense = dense
        self.ids = dense.ids
        self.vectors = vectors

    def score(self, queries: list[str]) -> np.ndarray:
        return self.dense.score_vectors(np.stack([self.vectors[q] for q in queries]))
