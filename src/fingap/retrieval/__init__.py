"""Every retriever returns the same plain run (``fingap.core.runs.Run``): BM25, dense, SPLADE,
parent-child, page-then-chunk; plus fusion, query expansion, the oracle conditions, the embedding
cache, page ranking, the final step and cross-encoder reranking at query time. Uses
``fingap.ingestion`` and ``fingap.core``."""
