"""The scale benchmark's row merge and the cost model's arithmetic (benchmarks/bench_scale.py,
benchmarks/cost_model.py), on made-up rows: no PDF, no model."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(work: str, size: float, engine: str, pages_per_s: float, n_pages: int = 1000) -> dict:
    return {"work": work, "size": size, "engine": engine, "n_pages": n_pages,
            "seconds": round(n_pages / pages_per_s, 1), "pages_per_s": pages_per_s,
            "peak_rss_mb_per_worker": 300.0}


def test_a_run_replaces_the_rows_it_measured_and_keeps_the_others(tmp_path):
    scale = _load("bench_scale")
    out = tmp_path / "benchmarks.json"
    out.write_text(json.dumps({"other": {"kept": True}}))
    scale.save_rows(out, [_row("extract", 1.0, "local", 100), _row("extract", 1.0, "ray2", 150)])
    scale.save_rows(out, [_row("extract", 1.0, "ray2", 200), _row("extract", 3.0, "local", 110,
                                                                  3000)])
    data = json.loads(out.read_text())
    assert data["other"] == {"kept": True}
    rows = {(r["work"], r["size"], r["engine"]): r["pages_per_s"] for r in data["scale"]["rows"]}
    assert rows == {("extract", 1.0, "local"): 100, ("extract", 1.0, "ray2"): 200,
                    ("extract", 3.0, "local"): 110}
    # sorted by work, size, then engine in the benchmark's order
    assert [r["engine"] for r in data["scale"]["rows"]] == ["local", "ray2", "local"]
    assert data["scale"]["seconds_per_1000_pages"]["extract/local"] == {"1.0": 10.0,
                                                                       "3.0": 9.1}


def test_the_cost_model_uses_the_largest_size_and_scales_linearly():
    cost = _load("cost_model")
    rows = [_row(w, s, e, r, 1000 * int(s)) for w, r in
            (("extract", 500.0), ("tables", 250.0), ("encode", 50.0))
            for s in (1.0, 10.0) for e in ("local", "ray2")]
    rows.append(_row("encode", 0.1, "local", 1.0, 100))   # a smaller size is never the rate
    bench = {"scale": {"rows": rows}}
    per_form = {"10K": 160.0, "10Q": 120.0, "8K": 40.0, "all": 100.0, "n_filings": 3}
    out = cost.model(bench, per_form, chunks_per_page=1.5)
    case = out["cases"]["FinanceBench's mean"]
    filings = cost.ASSUMPTIONS["filings"]["value"]
    pages = filings * 100.0
    assert case["pages"] == int(pages)
    assert case["encode_hours_per_model_2_cores"] == pytest.approx(pages / 50 / 3600, abs=0.1)
    assert case["hours_on_2_cores"]["extract/local"] == pytest.approx(pages / 500 / 3600,
                                                                       abs=0.1)
    assert case["page_index_gb"]["exact_fp32"] == pytest.approx(pages * 384 * 4 / 1e9, abs=0.1)
    assert case["page_index_gb"]["ivf_pq"] == pytest.approx(pages * 56 / 1e9, abs=0.01)
    assert case["chunk_index_gb_exact_fp32"] == pytest.approx(1.5 * pages * 384 * 4 / 1e9,
                                                              abs=0.1)
    # the yearly mix: (160 + 3 * 120 + 4 * 40) / 8 pages a filing
    assert out["cases"]["a filer's yearly mix"]["pages_per_filing"] == 85.0
    # 16 GPUs share the 11 page indexes; the faster GPU gives the shorter time
    lo, hi = case["cluster_16_gpus"]["encode_hours_all_page_indexes_range"]
    assert lo < case["cluster_16_gpus"]["encode_hours_all_page_indexes"] < hi


def test_the_cost_model_asks_for_the_benchmark_when_a_row_is_missing():
    cost = _load("cost_model")
    with pytest.raises(SystemExit, match="bench_scale"):
        cost.model({"scale": {"rows": []}}, {"all": 1.0}, 1.0)
