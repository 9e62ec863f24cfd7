"""What every training stage does around its trainer, written once: check the tracking store
before any training, train inside one MLflow run (each fold's trainer logs a nested run through
its own integration), log each fold's time and model, and write the training report with that
run's id.

This module writes the report, so the training stages declare it in dvc.yaml; the MLflow
calls themselves live in fingap.steps.tracking, which no training stage declares (a change to
how runs are logged never retrains a model).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.io import write_json
from .tracking import check_tracking, log_fold_models, training_run

INTEGRATIONS = ("mlflow",)  # the trainers' report_to inside a tracked stage


def run_tracked_training(root: Path, experiment: str, name: str, config: dict,
                         models_dir: Path, report_path: Path,
                         train: Callable[[tuple[str, ...]], dict]) -> dict:
    """``train(report_to)`` trains every fold into ``models_dir`` and returns the report
    (``{"folds": [{"fold", "seconds", ...}], ...}``); ``config`` is logged as the run's
    parameters. Returns the report as written, ``mlflow_run_id`` included."""
    check_tracking(root)  # an unreachable server fails now, not after an hour of training
    with training_run(root, experiment, name, config) as run_id:
        report = train(INTEGRATIONS)
        log_fold_models(report, models_dir, run_id)
    report["mlflow_run_id"] = run_id
    write_json(report_path, report)
    return report
