"""Dense retrieval: normalised sentence embeddings in an exact inner-product FAISS index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..core.io import atomic_path, write_json
from ..core.runs import top_k
from .ann import AnnConfig, VectorSearch
from .base import Retriever
from .embedding import TextEncoder


class DenseRetriever(Retriever):
    """``ann``: approximate search once the index is large (fingap.retrieval.ann); below its
    ``exact_below`` vectors, or without it, the search is exact (faiss IndexFlatIP)."""

    def __init__(self, ids: list[str], embeddings: np.ndarray, encoder: TextEncoder | None = None,
                 ann: AnnConfig | None = None):
        import faiss

        if len(ids) != len(embeddings):
            raise ValueError(f"{len(ids)} ids but {len(embeddings)} embeddings")
        self.ids = list(ids)
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self.encoder = encoder
        self.ann = (VectorSearch(self.embeddings, ann)
                    if ann is not None and ann.kind_for(len(self.ids)) != "exact" else None)
        self.index = faiss.IndexFlatIP(self.embeddings.shape[1])
        if self.ann is None:
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
        search = self.ann.search if self.ann is not None else self.index.search
        scores, rows = search(np.ascontiguousarray(q), m)
        return [top_k((self.ids[i] for i in r if i >= 0), s[r >= 0], k)
                for s, r in zip(scores, rows, strict=True)]

    def search(self, queries, k: int, allowed=None):
        if self.ann is None or allowed is None:
            return super().search(queries, k, allowed)
        # approximate: each question searches its own allowed rows (exactly when they are few)
        qids = sorted(queries)
        vecs = self.encode_queries([queries[q] for q in qids])
        run = {}
        for qid, v in zip(qids, vecs, strict=True):
            scores, rows = self.ann.search(v, k + 8, allowed[qid])
            keep = rows[0] >= 0
            run[qid] = top_k((self.ids[i] for i in rows[0][keep]), scores[0][keep], k)
        return run

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
    def load(cls, directory: str | Path, encoder: TextEncoder | None = None,
             ann: AnnConfig | None = None) -> DenseRetriever:
        directory = Path(directory)
        ids = json.loads((directory / "ids.json").read_text())
        return cls(ids, np.load(directory / "embeddings.npy"), encoder, ann)


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
