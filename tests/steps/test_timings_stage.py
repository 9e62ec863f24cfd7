import datetime as dt
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from fingap.cli import app
from fingap.core.io import read_json
from fingap.core.timings import write_stage_timing
from fingap.steps.stagekit import record_in_timing, stage
from fingap.steps.timings import run_timings


def _dvc_yaml(tmp_path: Path) -> Path:
    p = tmp_path / "dvc.yaml"
    p.write_text(yaml.safe_dump({"stages": {
        "chunk": {"cmd": "x"}, "index": {"foreach": {"bm25": {}}, "do": {"cmd": "y"}},
        "timings": {"cmd": "z"}}}))
    return p


def test_a_second_summary_marks_the_stages_that_did_not_run_since_as_cached(tmp_path):
    d, out = tmp_path / "timings", tmp_path / "timings.json"
    write_stage_timing("chunk", 13.0, d, measured_at="2026-01-01T10:00:00+00:00")
    write_stage_timing("index@bm25", 7.0, d, measured_at="2026-01-01T10:05:00+00:00")
    first = run_timings(d, out, _dvc_yaml(tmp_path))
    assert set(first["stages"]) == {"chunk", "index@bm25"} and first["never_run"] == []
    assert not any(v["cached"] for v in first["stages"].values())
    # only BM25 reran, after the first summary
    later = (dt.datetime.fromisoformat(first["generated_at"]) + dt.timedelta(seconds=1))
    write_stage_timing("index@bm25", 6.0, d, measured_at=later.isoformat())
    second = run_timings(d, out, _dvc_yaml(tmp_path))
    assert second["stages"]["chunk"]["cached"] is True
    assert second["stages"]["index@bm25"] == {**second["stages"]["index@bm25"],
                                              "seconds": 6.0, "cached": False}
    assert second["full_run_seconds"] == 19.0
    assert read_json(out) == second


def test_a_stage_records_its_time_under_dvc_stage_address(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("params.yaml").write_text("{}\n")
    monkeypatch.setenv("DVC_STAGE", "retrieve_zoo@hybrid")
    with stage("retrieve_zoo@hybrid"):
        pass
    rec = read_json("reports/timings/retrieve_zoo@hybrid.json")
    assert rec["stage"] == "retrieve_zoo@hybrid" and rec["seconds"] >= 0
    assert "detail" not in rec
    monkeypatch.delenv("DVC_STAGE")
    with stage("chunk"):  # run by hand: its own name
        record_in_timing(index={"texts_per_s": 12.5})  # the stage's own speed, not an output
    assert read_json("reports/timings/chunk.json")["detail"] == {"index": {"texts_per_s": 12.5}}
    with stage("chunk"):  # the next stage run in this process starts without it
        pass
    assert "detail" not in read_json("reports/timings/chunk.json")
    with stage("timings", record_time=False):
        pass
    assert not os.path.exists("reports/timings/timings.json")


def test_a_failed_stage_records_no_time(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("params.yaml").write_text("{}\n")
    with pytest.raises(SystemExit):
        with stage("chunk"):
            raise FileNotFoundError("data/pages/pages.jsonl")
    assert not os.path.exists("reports/timings/chunk.json")


def test_fingap_timings_prints_the_table_or_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    missing = CliRunner().invoke(app, ["timings"])
    assert missing.exit_code == 2 and "dvc repro timings" in missing.output
    write_stage_timing("chunk", 90.0, Path("reports/timings"))
    run_timings(Path("reports/timings"), Path("reports/timings.json"), _dvc_yaml(tmp_path))
    shown = CliRunner().invoke(app, ["timings"])
    assert shown.exit_code == 0
    assert "| chunk | 90.0 | 1.5 | no |" in shown.output
    assert "Never run: index@bm25" in shown.output
