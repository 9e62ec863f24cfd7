"""Top-k inner-product search over a fixed set of vectors: exact, or approximate (faiss IVF,
IVF-PQ or HNSW) once the set is large.

FinanceBench's indexes (about 10,000 pages, 20,000 chunks) stay exact: below
``exact_below`` vectors every kind searches exactly, so the default params change nothing there.
A corpus of many filings grows past it, where an exact search costs memory bandwidth per query
proportional to the corpus. Restricted searches (Oracle-Doc, Oracle-Page, routed documents)
score their allowed rows exactly when there are few of them (a document's pages), and go
through a faiss ID selector otherwise, so a restriction never searches outside its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.params import ParamError, section_dataclass

KINDS = ("exact", "ivf", "ivf_pq", "hnsw")


@dataclass(frozen=True)
class AnnConfig:
    kind: str = "ivf"            # exact | ivf | ivf_pq | hnsw: the index past exact_below
    exact_below: int = 200_000   # fewer vectors than this: exact search, whatever kind says
    nlist: int | None = None     # IVF lists; None: sqrt(n), rounded to a power of two
    nprobe: int = 128            # IVF lists searched per query: recall@100 0.994 on 1M (bench_ann)
    pq_m: int = 48               # IVF-PQ sub-quantisers (the dimension must divide by it)
    refine: int = 4              # IVF-PQ: re-score refine * k candidates with the full vectors
    hnsw_m: int = 32             # HNSW links per node
    ef_search: int = 128         # HNSW candidate list per query
    exact_subset: int = 50_000   # a restricted search over at most this many rows is exact
    seed: int = 13               # k-means initialisation of the IVF lists

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParamError(f"ann.kind must be one of {', '.join(KINDS)}; got {self.kind!r}")

    @classmethod
    def from_params(cls, p: dict | None, name: str = "ann") -> AnnConfig:
        return section_dataclass(cls, dict(p or {}), name)

    def kind_for(self, n: int) -> str:
        return "exact" if n < self.exact_below else self.kind

    def lists_for(self, n: int) -> int:
        if self.nlist:
            return int(self.nlist)
        return int(2 ** round(np.log2(max(1.0, np.sqrt(n)))))


def ann_config(retrieve_params: dict | None) -> AnnConfig:
    """The ``retrieve.ann`` params (defaults where absent)."""
    return AnnConfig.from_params((retrieve_params or {}).get("ann"), "retrieve.ann")


class VectorSearch:
    """Inner-product top-k over ``vectors`` (rows of float32, normalised by the caller)."""

    def __init__(self, vectors: np.ndarray, cfg: AnnConfig | None = None):
        self.cfg = cfg or AnnConfig()
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.kind = self.cfg.kind_for(len(self.vectors))
        self.index = _build(self.vectors, self.kind, self.cfg)

    def __len__(self) -> int:
        return len(self.vectors)

    def search(self, queries: np.ndarray, k: int,
               allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(scores, rows) of shape (n_queries, k'), best first, k' = min(k, candidates); a row
        of -1 (score -inf) pads a query with fewer candidates. ``allowed``: the rows searched
        (the same for every query)."""
        q = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        if allowed is not None:
            allowed = np.asarray(allowed, dtype=np.int64)
            if self.kind == "exact" or len(allowed) <= self.cfg.exact_subset:
                return _exact(self.vectors, q, k, allowed)
        if self.kind == "exact":
            return _exact(self.vectors, q, k, None)
        k = min(k, len(self.vectors) if allowed is None else len(allowed))
        if k <= 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        scores, rows = self.index.search(q, k, params=self._params(allowed))
        scores = np.where(rows < 0, -np.inf, scores).astype(np.float32)
        return scores, rows.astype(np.int64)

    def _params(self, allowed: np.ndarray | None):
        import faiss

        sel = None if allowed is None else faiss.IDSelectorBatch(allowed)
        if self.kind == "hnsw":
            return faiss.SearchParametersHNSW(efSearch=self.cfg.ef_search, sel=sel)
        ivf = faiss.SearchParametersIVF(nprobe=self.cfg.nprobe, sel=sel)
        if self.kind == "ivf_pq" and self.cfg.refine > 1:
            return faiss.IndexRefineSearchParameters(k_factor=float(self.cfg.refine),
                                                     base_index_params=ivf)
        return ivf


def _exact(vectors: np.ndarray, q: np.ndarray, k: int,
           allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    rows = np.arange(len(vectors)) if allowed is None else allowed
    k = min(k, len(rows))
    if k <= 0:
        return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
    scores = q @ (vectors if allowed is None else vectors[allowed]).T
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    part = np.take_along_axis(scores, top, axis=1)
    # best first; equal scores by row number, so the order never depends on the partition
    order = np.lexsort((top, -part), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    return np.take_along_axis(scores, top, axis=1), rows[top]


def _build(vectors: np.ndarray, kind: str, cfg: AnnConfig):
    import faiss

    n, d = vectors.shape
    if kind == "exact":
        return None  # numpy's matrix product: the same scores the rest of fingap computes
    if kind == "hnsw":
        index = faiss.IndexHNSWFlat(d, cfg.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = max(cfg.ef_search, 2 * cfg.hnsw_m)
        index.add(vectors)
        return index
    nlist = min(cfg.lists_for(n), max(1, n // 39))  # faiss wants >= 39 points per list
    quantizer = faiss.IndexFlatIP(d)
    if kind == "ivf":
        index = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
    else:
        if d % cfg.pq_m:
            raise ParamError(f"ann.pq_m = {cfg.pq_m} must divide the vector dimension {d}")
        index = faiss.IndexIVFPQ(quantizer, d, nlist, cfg.pq_m, 8, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = cfg.seed
    # k-means on a sample: 64 points per list is plenty for the centroids, and far cheaper
    rng = np.random.default_rng(cfg.seed)
    sample = vectors if n <= 64 * nlist else vectors[rng.choice(n, 64 * nlist, replace=False)]
    index.train(sample)
    if kind == "ivf_pq" and cfg.refine > 1:
        index = faiss.IndexRefineFlat(index)
    index.add(vectors)
    return index
