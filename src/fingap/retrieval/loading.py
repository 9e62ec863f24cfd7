"""Loading what the index stages built: the dense text encoder a ``dense`` params section
describes, and a chunk retriever from its index folder."""

from __future__ import annotations

from pathlib import Path

from ..core.params import ParamError


# ---------------------------------------------------------------- indexes
def make_encoder(dense_params: dict, cache_path: Path | None, show_progress: bool = True):
    from ..retrieval.embedding import TextEncoder

    return TextEncoder(
        dense_params["model"],
        max_seq_length=dense_params.get("max_seq_length") or None,
        long_text=dense_params.get("long_text", "mean_pool"),
        precision=dense_params.get("precision", "bf16"),
        batch_size=int(dense_params.get("batch_size", 32)),
        cache_path=cache_path,
        show_progress=show_progress,
    )


def load_retriever(method: str, method_params: dict, index_dir: Path,
                   cache_path: Path | None = None, retrieve_params: dict | None = None):
    """``retrieve_params``: the ``retrieve`` section, whose ``ann`` makes a large dense index
    search approximately (fingap.retrieval.ann)."""
    if method == "bm25":
        from ..retrieval.bm25 import BM25Retriever

        return BM25Retriever.load(index_dir, backend=method_params.get("backend"))
    if method == "dense":
        from ..retrieval.ann import ann_config
        from ..retrieval.dense import DenseRetriever

        return DenseRetriever.load(index_dir, make_encoder(method_params, cache_path, False),
                                   ann_config(retrieve_params))
    raise ParamError(f"unknown retrieval method {method!r}; expected bm25 or dense")
