"""Dense index of the statement-table rows (the ``index_table_rows`` stage).

The ``tables`` stage serialises every table row as "statement | periods | label | cells" and
indexes it in BM25 (exact words: "capital expenditures"). This stage embeds the same rows with
the chunk encoder of ``params.dense``, so a row is also found by meaning ("money spent on
plant and equipment"). ``fingap search --method table_rows_dense`` queries it.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from ..core.io import read_jsonl, write_json
from ..retrieval.dense import DenseRetriever
from ..retrieval.loading import make_encoder

log = logging.getLogger("fingap")


def run_table_rows_index(dense_params: dict, rows_path: Path, out_dir: Path) -> dict:
    rows = read_jsonl(rows_path)
    if not rows:
        raise ValueError(f"{rows_path}: no table rows to index")
    # no embedding cache: rows change whenever the table parser does, and the cache is the
    # chunk indexes'
    encoder = make_encoder(dense_params, None)
    t0 = time.perf_counter()
    embeddings = encoder.encode([r["text"] for r in rows], desc="table rows")
    seconds = time.perf_counter() - t0
    DenseRetriever([r["row_id"] for r in rows], embeddings, encoder).save(out_dir)
    # wall time is logged, not written: the index must be the same bytes on every run
    stats = {"n_rows": len(rows), "model": dense_params["model"]}
    write_json(out_dir / "stats.json", stats)
    log.info("table rows: %d embedded in %.0fs (%.0f rows/s)", len(rows), seconds,
             len(rows) / max(seconds, 1e-9))
    return stats | {"seconds": round(seconds, 1)}
