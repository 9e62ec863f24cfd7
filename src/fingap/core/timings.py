"""Stage wall times as data: one record per stage in ``reports/timings/STAGE.json``, written
when the stage's code actually ran, and their summary ``reports/timings.json``.

A stage DVC restores from its run cache gets its record restored too, with the time of the run
that made it; so "cached" in the summary means "measured before the previous summary", and a
stage's seconds are always those of its last real run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path

from .io import read_json, write_json

TIMINGS_DIR = Path("reports/timings")
SUMMARY = Path("reports/timings.json")


def stage_file(stage: str, timings_dir: Path = TIMINGS_DIR) -> Path:
    """Where a stage's record lives; the name is DVC's stage address (``index@bm25``)."""
    if not stage or "/" in stage or stage.startswith("."):
        raise ValueError(f"not a stage name: {stage!r}")
    return timings_dir / f"{stage}.json"


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def write_stage_timing(stage: str, seconds: float, timings_dir: Path = TIMINGS_DIR,
                       measured_at: str | None = None, detail: Mapping | None = None) -> Path:
    """``detail``: the wall-time figures the stage measured inside its work (an encoder's
    pages per second, ...): they belong here, beside its wall time, and never in its outputs,
    which must be the same bytes on every run."""
    path = stage_file(stage, timings_dir)
    record = {"stage": stage, "seconds": round(float(seconds), 2),
              "measured_at": measured_at or now_iso()}
    if detail:
        record["detail"] = dict(detail)
    write_json(path, record)
    return path


def dvc_stage_names(dvc_yaml: Mapping) -> list[str]:
    """DVC's addresses of every stage of a parsed dvc.yaml, ``foreach`` items expanded."""
    names = []
    for name, spec in (dvc_yaml.get("stages") or {}).items():
        items = spec.get("foreach") if isinstance(spec, Mapping) else None
        if items is None:
            names.append(name)
        elif isinstance(items, Mapping):
            names.extend(f"{name}@{key}" for key in items)
        else:
            names.extend(f"{name}@{i if isinstance(x, Mapping) else x}"
                         for i, x in enumerate(items))
    return names


def summarise(records: Mapping[str, dict], stages: Sequence[str],
              previous_generated_at: str | None, generated_at: str | None = None) -> dict:
    """The summary of reports/timings.json.

    ``records``: stage -> its record; ``stages``: every stage of the pipeline, in order (a
    stage with no record yet is listed under ``never_run``); a record measured before
    ``previous_generated_at`` (the last summary) is marked cached: that stage did not run
    since. ``full_run_seconds`` sums every stage's last real run."""
    before = _parse(previous_generated_at) if previous_generated_at else None
    out: dict = {}
    for name in stages:
        rec = records.get(name)
        if rec is None:
            continue
        cached = before is not None and _parse(rec["measured_at"]) <= before
        out[name] = {"seconds": rec["seconds"], "cached": cached,
                     "measured_at": rec["measured_at"]}
    return {"stages": out,
            "full_run_seconds": round(sum(v["seconds"] for v in out.values()), 2),
            "never_run": [s for s in stages if s not in records],
            "generated_at": generated_at or now_iso()}


def read_records(timings_dir: Path = TIMINGS_DIR) -> dict[str, dict]:
    out = {}
    for f in sorted(timings_dir.glob("*.json")):
        rec = read_json(f)
        if not isinstance(rec, dict) or not {"stage", "seconds", "measured_at"} <= set(rec):
            raise ValueError(f"{f}: not a stage timing record (stage, seconds, measured_at)")
        out[rec["stage"]] = rec
    return out


def render(summary: Mapping) -> str:
    """A markdown table, slowest stage first, with the total."""
    rows = sorted(summary["stages"].items(), key=lambda kv: -kv[1]["seconds"])
    lines = ["| stage | seconds | minutes | cached | measured at |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {r['seconds']:.1f} | {r['seconds'] / 60:.1f} | "
              f"{'yes' if r['cached'] else 'no'} | {r['measured_at']} |" for name, r in rows]
    total = summary["full_run_seconds"]
    lines.append(f"| **full run** | {total:.1f} | {total / 60:.1f} | | |")
    if summary.get("never_run"):
        lines.append("")
        lines.append(f"Never run: {', '.join(summary['never_run'])}")
    return "\n".join(lines) + "\n"


def _parse(iso: str) -> dt.datetime:
    t = dt.datetime.fromisoformat(iso)
    return t if t.tzinfo else t.replace(tzinfo=dt.UTC)
