import json
from pathlib import Path

import pytest
import yaml

from fingap.core.timings import (
    dvc_stage_names,
    read_records,
    render,
    stage_file,
    summarise,
    write_stage_timing,
)

REPO = Path(__file__).resolve().parents[2]


def test_records_round_trip_under_dvc_stage_addresses(tmp_path):
    write_stage_timing("index@bm25", 7.456, tmp_path, measured_at="2026-01-01T00:00:00+00:00")
    assert (tmp_path / "index@bm25.json").exists()
    assert read_records(tmp_path) == {"index@bm25": {
        "stage": "index@bm25", "seconds": 7.46, "measured_at": "2026-01-01T00:00:00+00:00"}}
    with pytest.raises(ValueError, match="not a stage name"):
        stage_file("../evil")


def test_a_stages_own_speeds_go_in_its_record_and_the_summary_reads_it_alike(tmp_path):
    encode = [{"model": "fold_0", "seconds": 3.2, "pages_per_s": 50.0}]
    write_stage_timing("page_index@trained", 9.0, tmp_path,
                       measured_at="2026-01-01T00:00:00+00:00", detail={"encode": encode})
    record = read_records(tmp_path)["page_index@trained"]
    assert record["detail"] == {"encode": encode} and record["seconds"] == 9.0
    summary = summarise({"page_index@trained": record}, ["page_index@trained"], None)
    assert summary["full_run_seconds"] == 9.0
    write_stage_timing("chunk", 1.0, tmp_path, detail={})  # nothing measured: no detail key
    assert "detail" not in read_records(tmp_path)["chunk"]


def test_a_file_that_is_not_a_record_is_named(tmp_path):
    (tmp_path / "x.json").write_text(json.dumps({"seconds": 1}))
    with pytest.raises(ValueError, match="x.json: not a stage timing record"):
        read_records(tmp_path)


def test_foreach_stages_expand_to_their_addresses():
    spec = {"stages": {"corpus": {"cmd": "a"},
                       "index": {"foreach": {"bm25": {}, "dense": {}}, "do": {}},
                       "grid": {"foreach": ["a", "b"], "do": {}}}}
    assert dvc_stage_names(spec) == ["corpus", "index@bm25", "index@dense", "grid@a",
                                     "grid@b"]


def _rec(seconds, at):
    return {"seconds": seconds, "measured_at": at}


def test_records_older_than_the_previous_summary_are_cached():
    records = {"a": _rec(10.0, "2026-01-01T10:00:00+00:00"),   # before the last summary
               "b": _rec(2.5, "2026-01-01T12:00:00+00:00")}    # ran since
    s = summarise(records, ["a", "b", "c"], previous_generated_at="2026-01-01T11:00:00+00:00",
                  generated_at="2026-01-01T12:01:00+00:00")
    assert s["stages"]["a"]["cached"] is True and s["stages"]["b"]["cached"] is False
    assert s["full_run_seconds"] == 12.5  # the last real run of every stage, cached or not
    assert s["never_run"] == ["c"]
    assert s["generated_at"] == "2026-01-01T12:01:00+00:00"
    # the first summary has nothing before it: every stage ran in this run
    first = summarise(records, ["a", "b"], previous_generated_at=None)
    assert not any(v["cached"] for v in first["stages"].values())


def test_render_lists_the_slowest_stage_first_with_the_total():
    s = summarise({"a": _rec(60.0, "2026-01-01T10:00:00+00:00"),
                   "b": _rec(120.0, "2026-01-01T10:00:00+00:00")}, ["a", "b"], None)
    table = render(s)
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert rows[0].startswith("| b | 120.0 | 2.0 | no")
    assert rows[-1] == "| **full run** | 180.0 | 3.0 | | |"


def test_every_stage_declares_its_record_as_an_uncached_plot_not_an_out():
    """A stage's record must be declared (DVC orders the timings stage after it and restores it
    with the stage), and never as an out: DVC keeps no run cache for uncached outs."""
    spec = yaml.safe_load((REPO / "dvc.yaml").read_text())
    for name, st in spec["stages"].items():
        body = st.get("do", st)
        addr = f"{name}@${{key}}" if "foreach" in st else name
        path = f"reports/timings/{addr}.json"
        plots = [next(iter(p)) if isinstance(p, dict) else p for p in body.get("plots", [])]
        outs = [next(iter(o)) if isinstance(o, dict) else o for o in body.get("outs", [])]
        assert not any(o.startswith("reports/timings/") for o in outs), name
        if name == "timings":
            assert "reports/timings" in body["deps"]
            continue
        assert path in plots, f"stage {name}: declare {path} under plots (cache: false)"
        entry = next(p for p in body["plots"] if isinstance(p, dict) and path in p)
        assert entry[path] == {"cache": False}
