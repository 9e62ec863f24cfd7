"""Stage ``timings``: the summary of every stage's wall time (reports/timings.json)."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..core.io import read_json, write_json
from ..core.timings import dvc_stage_names, read_records, summarise


def run_timings(timings_dir: Path, summary_path: Path, dvc_yaml: Path,
                own_stage: str = "timings") -> dict:
    """Summarise the records of the stages a pipeline's dvc.yaml defines; a record measured
    before the previous summary (this output persists between runs) belongs to a stage that did
    not run since, so it is marked cached."""
    stages = dvc_stage_names(yaml.safe_load(dvc_yaml.read_text()) or {})
    stages = [s for s in stages if s != own_stage]  # this stage reads the records, writes none
    previous = read_json(summary_path).get("generated_at") if summary_path.exists() else None
    summary = summarise(read_records(timings_dir), stages, previous)
    write_json(summary_path, summary)
    return summary
