"""The paper's three retrieval conditions, as per-question candidate restrictions.

- ``standard``: every chunk of the corpus.
- ``oracle_doc``: only chunks of the question's gold document(s).
- ``oracle_page``: only chunks lying on a gold (doc, page).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ..ingestion.corpus import Question

CONDITIONS = ("standard", "oracle_doc", "oracle_page")


def allowed_rows(
    condition: str, questions: Sequence[Question], chunk_docs: Sequence[str],
    chunk_pages: Sequence[int],
) -> dict[str, np.ndarray] | None:
    """Row indices each question may retrieve under ``condition`` (None = no restriction)."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    if condition == "standard":
        return None
    by_doc: dict[str, list[int]] = defaultdict(list)
    by_page: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, (d, p) in enumerate(zip(chunk_docs, chunk_pages, strict=True)):
        by_doc[d].append(i)
        by_page[(d, p)].append(i)
    out = {}
    for q in questions:
        keys = q.gold_docs if condition == "oracle_doc" else q.gold_pages
        index = by_doc if condition == "oracle_doc" else by_page
        out[q.id] = np.array(sorted(i for key in keys for i in index.get(key, [])), dtype=np.int64)
    return out
