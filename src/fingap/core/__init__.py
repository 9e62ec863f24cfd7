"""Shared structures and utilities every other package may use: JSON/JSONL I/O with atomic
writes, params.yaml access and checks, model name resolution (bundled weights, no hub), the
run structure every retriever returns, and the finance-aware tokenizer. Imports nothing else of
fingap."""
