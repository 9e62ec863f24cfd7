"""compute.engine: ray gives the local engine's outputs on the tiny corpus (extraction and
statement tables byte for byte; page vectors within bf16 rounding)."""

import filecmp
from pathlib import Path

import numpy as np

from fingap.core.compute import LOCAL, Compute
from fingap.core.io import read_json
from fingap.steps.ingest import run_corpus, run_extract
from fingap.steps.page_scorer import run_page_index
from fingap.steps.tables import run_tables

from ..conftest import append_statement_page, make_corpus

# the largest |difference| of a unit-length page vector's component between engines: Ray cuts
# the pages into other encode batches (other padding) on single-threaded workers
VECTOR_TOLERANCE = 2e-3
TRAIN = {"model": "minilm", "max_seq_length": 64, "max_chars": 2000, "precision": "bf16"}


def _run_page_level(corpus: Path, out: Path, compute: Compute) -> None:
    run_corpus({"dir": str(corpus)}, out / "corpus")
    run_extract({"alignment_window": 2, "max_page_chars": 200000}, {"dir": str(corpus)},
                out / "corpus", out / "pages", out / "extract.json", compute=compute)
    run_tables({"dir": str(corpus)}, out / "corpus", out / "pages/pages.jsonl", out / "facts",
               out / "tables.json", compute=compute)
    run_page_index("untrained", TRAIN, out / "pages/pages.jsonl", out / "models",
                   out / "folds.json", out / "page_index", compute=compute)


def test_ray_engine_gives_the_local_outputs_on_the_tiny_corpus(tmp_path, ray_cluster):
    corpus = make_corpus(tmp_path / "financebench")
    append_statement_page(corpus / "pdfs/ACME_2022_10K.pdf")
    (corpus / "pdfs/BROKEN_2020_10K.pdf").write_bytes(b"%PDF-1.7 truncated")
    local, ray = tmp_path / "local", tmp_path / "ray"
    _run_page_level(corpus, local, LOCAL)
    # batches of one document and of two page texts: several tasks over two workers
    _run_page_level(corpus, ray, Compute(engine="ray", workers=2, batch_docs=1, batch_texts=2))
    for path in ("pages/pages.jsonl", "pages/errors.jsonl", "pages/alignment.jsonl",
                 "facts/table_rows.jsonl", "facts/skipped.jsonl", "extract.json",
                 "page_index/keys.json", "page_index/stats.json"):
        assert filecmp.cmp(local / path, ray / path, shallow=False), path
    assert read_json(local / "tables.json")["n_facts"] > 0
    assert read_json(ray / "extract.json")["failed_docs"] == ["BROKEN_2020_10K"]
    a, b = np.load(local / "page_index/base.npy"), np.load(ray / "page_index/base.npy")
    assert a.shape == b.shape and a.shape[0] == len(read_json(local / "page_index/keys.json"))
    assert np.abs(a - b).max() <= VECTOR_TOLERANCE
