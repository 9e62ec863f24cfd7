"""Chunk retrievers. Each returns a :data:`fingap.runs.Run` through ``Retriever.search``."""

from .base import Retriever
from .bm25 import BM25Retriever
from .dense import DenseRetriever

__all__ = ["Retriever", "BM25Retriever", "DenseRetriever"]
