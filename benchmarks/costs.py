"""Training and index costs per fold, in one report (reports/costs.json; #14 asks for them in
reports/): each trained component's minutes per fold from its training report, each page
index's minutes per fold model from its stage's timing record (reports/timings/STAGE.json,
the studies' under reports/studies/), and each stage's wall time from reports/timings.json.

    python benchmarks/costs.py
"""

from __future__ import annotations

from pathlib import Path

from fingap.core.io import read_json, write_json
from fingap.core.pipelines import pipeline_of_stage

ROOT = Path(__file__).resolve().parents[1]
TRAINING = {  # component -> (training report, its stage)
    "page_scorer (in-batch, the paper's)": ("page_scorer_training", "train_page_scorer"),
    "page_scorer_hn (hard negatives)": ("page_scorer_hn_training", "train_page_scorer_hn"),
    "page_scorer_hn_windows (whole page)": ("page_scorer_hn_windows_training",
                                            "train_page_scorer_hn_windows"),
    "page_reranker (cross-encoder on page windows)": ("page_reranker_training",
                                                      "train_page_reranker"),
    "reranker (chunk cross-encoder)": ("reranker_training", "train_reranker"),
}
INDEXES = {"untrained": "page_index@untrained", "trained": "page_index@trained",
           "hn": "page_index@hn", "hn_windows": "page_index_windows"}


def minutes(seconds: float) -> float:
    return round(seconds / 60, 2)


def main() -> None:
    stages = read_json(ROOT / "reports/timings.json")["stages"]

    def stage_minutes(name: str) -> float | None:
        return minutes(stages[name]["seconds"]) if name in stages else None

    training = {}
    for component, (report, stage) in TRAINING.items():
        folds = read_json(ROOT / f"reports/{report}.json")["folds"]
        training[component] = {
            "minutes_per_fold": {f"fold_{f['fold']}": minutes(f["seconds"]) for f in folds},
            "validation_minutes_per_fold": {f"fold_{f['fold']}": minutes(f["validation_seconds"])
                                            for f in folds if "validation_seconds" in f},
            "stage_minutes": stage_minutes(stage), "report": f"reports/{report}.json"}
    indexes = {}
    for name, stage in INDEXES.items():
        record = ROOT / pipeline_of_stage(stage, ROOT).timings_dir / f"{stage}.json"
        encode = read_json(record).get("detail", {}).get("encode", []) if record.exists() else []
        indexes[name] = {"minutes_per_model": {e["model"]: minutes(e["seconds"])
                                               for e in encode} or None,
                         "pages_per_s": {e["model"]: e["pages_per_s"] for e in encode} or None,
                         "stage_minutes": stage_minutes(stage)}
        if not encode:  # a record written before the speeds moved there
            indexes[name]["note"] = f"{record.relative_to(ROOT)} holds no encoder speeds: " \
                f"rerun the stage ({stage})"
    write_json(ROOT / "reports/costs.json", {
        "command": "python benchmarks/costs.py",
        "note": ("stage minutes are reports/timings.json's last record of each stage; a stage "
                 "rerun on warm side caches records its warm time"),
        "training": training, "page_indexes": indexes})
    for component, row in {**training, **indexes}.items():
        per = row.get("minutes_per_fold") or row.get("minutes_per_model")
        print(f"{component:50s} {per}")


if __name__ == "__main__":
    main()
