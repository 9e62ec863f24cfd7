"""Trained components: document-grouped folds, hard-negative mining and the validation split,
the page scorer (bi-encoder) and the reranker (cross-encoder). Uses ``fingap.retrieval``,
``fingap.ingestion`` and ``fingap.core``."""
