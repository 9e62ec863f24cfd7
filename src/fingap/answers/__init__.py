"""The answer path: a numeric fact store -> question parsing -> formula and calculator -> a
verification gate, with the LLM path for everything else (gated the same way). Statement
tables and printed numbers come from ``fingap.ingestion``; StrictAcc from ``fingap.evaluation``.

``agent`` uses the other modules of this package. Nothing here imports ``fingap.steps``.
"""
