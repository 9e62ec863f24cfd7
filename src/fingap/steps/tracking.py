"""MLflow tracking: one parent run per pipeline execution, one child per method x condition.

The default store is ``sqlite:///<repo>/mlflow.db`` with artifacts under ``<repo>/mlartifacts``,
so ``mlflow ui`` run from the repository shows everything with no server;
``MLFLOW_TRACKING_URI`` points at a shared server instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

DEFAULT_DB = "mlflow.db"


class TrackingUnavailable(RuntimeError):
    pass


def tracking_uri(root: Path) -> str:
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{(root / DEFAULT_DB).resolve()}"


def check_tracking(root: Path, timeout: float = 5.0) -> str:
    """Fail fast, before any work, if a configured remote tracking server cannot be reached."""
    uri = tracking_uri(root)
    if uri.startswith(("http://", "https://")):
        import urllib.error
        import urllib.request

        url = uri.rstrip("/") + "/health"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 (user's URI)
                if r.status != 200:
                    raise TrackingUnavailable(f"MLflow server {uri} answered {r.status} on /health")
        except (urllib.error.URLError, OSError) as e:
            raise TrackingUnavailable(
                f"MLflow tracking server {uri} (from MLFLOW_TRACKING_URI) is unreachable: {e}. "
                "Start it, or unset MLFLOW_TRACKING_URI to use the local store."
            ) from None
    return uri


def metric_key(name: str) -> str:
    """MLflow metric names allow [A-Za-z0-9_-. /:]; 'PageRec@5' becomes 'PageRec_at_5'."""
    return re.sub(r"[^A-Za-z0-9_\-. /:]", "_", name.replace("@", "_at_"))


def flatten(d: dict, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def git_commit(root: Path) -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def dataset_digest(manifest: dict) -> str:
    h = hashlib.sha256()
    for name, digest in sorted(manifest["files"].items()):
        h.update(f"{name}\0{digest}\n".encode())
    return h.hexdigest()


SELECTIVE_KEYS = ("StrictAcc", "Coverage", "Reliability", "VerifiedPrecision", "verified",
                  "verified_wrong", "AURC")


def answer_metrics(answers: dict) -> dict[str, float]:
    """The selective-answer metrics of answers.json, flat: ``answers.<run or set>.<metric>``
    for every answered run (its metrics-generated questions) and own question set."""
    out: dict[str, float] = {}
    groups = [(f"{m}.{c}", row.get("selective") or {})
              for m, conds in answers.get("runs", {}).items() for c, row in conds.items()]
    groups += [(name, answers[name]["oracle_page"]) for name in answers.get("own_sets", [])]
    for name, row in groups:
        for k in SELECTIVE_KEYS:
            if row.get(k) is not None:
                out[f"answers.{name}.{metric_key(k)}"] = float(row[k])
    return out


def log_pipeline(root: Path, experiment: str, params: dict, metrics: dict, manifest: dict,
                 per_question_dir: Path, report_files: list[Path],
                 extra_tags: dict[str, str] | None = None, answers: dict | None = None,
                 run_name: str = "pipeline") -> str:
    """Log one pipeline execution; returns the parent run id."""
    import mlflow

    _set_experiment(root, experiment)
    tags = {
        "git_commit": git_commit(root),
        "dataset_sha256": dataset_digest(manifest),
        "questions_sha256": manifest["files"].get("data/financebench_open_source.jsonl", ""),
        "n_evaluated": str(manifest["questions"]["n_evaluated"]),
        "n_missing_doc": str(manifest["questions"]["n_missing_doc"]),
        **(extra_tags or {}),
    }
    methods = [m for m, v in metrics.items() if isinstance(v, dict) and "standard" in v]
    with mlflow.start_run(run_name=run_name, tags=tags) as parent:
        mlflow.log_params({k: str(v)[:6000] for k, v in flatten(params).items()})
        for path in report_files:
            if path.exists():
                mlflow.log_artifact(str(path))
        if answers:
            mlflow.log_metrics(answer_metrics(answers))
        for method in methods:
            for cond, row in metrics[method].items():
                values = {metric_key(k): float(v) for k, v in row.items() if v is not None}
                mlflow.log_metrics({f"{method}.{cond}.{k}": v for k, v in values.items()})
                with mlflow.start_run(run_name=f"{method}/{cond}", nested=True,
                                      tags={"method": method, "condition": cond, **tags}):
                    mlflow.log_params({"method": method, "condition": cond})
                    mlflow.log_metrics(values)
                    pq = per_question_dir / f"{method}__{cond}.jsonl"
                    if pq.exists():
                        mlflow.log_artifact(str(pq))
        return parent.info.run_id


# the reports logged as each pipeline's parent run's artifacts (those that exist), under reports/
PIPELINE_REPORTS = {
    "product": ("metrics.json", "breakdown.json", "retrieval.md", "gap.md", "gap.json",
                "plots/by_question_type.png", "hyde.json", "generation.json",
                "best_selection.json", "page_scorer_hn.md", "answers.json", "answers.md",
                "plots/risk_coverage.png"),
    "studies": ("studies/metrics.json", "studies/breakdown.json", "studies/retrieval.md",
                "studies/plots/by_question_type.png", "page_scorer_hn_windows.md"),
}


def training_reports(track_deps: list[str]) -> list[Path]:
    """The training stages' reports a track stage reads (its ``reports/*_training.json``
    deps): each one's MLflow run id tags the pipeline's run. Read from dvc.yaml, so a training
    stage that moves between the pipelines takes its tag with it."""
    return [Path(d) for d in track_deps if d.startswith("reports/") and
            d.endswith("_training.json")]


def run_track(root: Path, experiment: str, params: dict, reports: Path, manifest_path: Path,
              out_path: Path, pipeline: str = "product",
              training: list[Path] | None = None) -> str:
    """A track stage: log one pipeline's execution (fingap.steps.tracking.log_pipeline) with
    the training stages' run ids as tags, and write its parent run's id to ``out_path``.

    ``pipeline``: ``product`` (reports/metrics.json, the answers) or ``studies``
    (reports/studies/metrics.json; its run is tagged with the product run whose outputs it
    read, reports/mlflow_run.json)."""
    from ..core.io import read_json, write_json

    own = reports if pipeline == "product" else reports / pipeline
    tags = {"pipeline": pipeline}
    for path in training or []:
        if path.exists():
            tags[f"{path.stem}_run_id"] = read_json(path).get("mlflow_run_id", "")
    if pipeline != "product":
        product_run = reports / "mlflow_run.json"
        if not product_run.exists():
            raise FileNotFoundError(f"{product_run}: the product's track stage has not run; "
                                    f"the {pipeline} run is tagged with its run id")
        tags["product_run_id"] = read_json(product_run)["parent_run_id"]
    answers = own / "answers.json"
    run_id = log_pipeline(root, experiment, params, read_json(own / "metrics.json"),
                          read_json(manifest_path), own / "per_question",
                          [reports / name for name in PIPELINE_REPORTS[pipeline]], extra_tags=tags,
                          answers=read_json(answers) if answers.exists() else None,
                          run_name="pipeline" if pipeline == "product" else pipeline)
    write_json(out_path, {"parent_run_id": run_id})
    return run_id


def _set_experiment(root: Path, experiment: str) -> str:
    import mlflow

    uri = check_tracking(root)
    mlflow.set_tracking_uri(uri)
    if mlflow.get_experiment_by_name(experiment) is None:
        location = None
        if uri.startswith("sqlite:"):
            location = (root / "mlartifacts").resolve().as_uri()
        mlflow.create_experiment(experiment, artifact_location=location)
    mlflow.set_experiment(experiment)
    return uri


@contextlib.contextmanager
def training_run(root: Path, experiment: str, name: str, config: dict) -> Iterator[str]:
    """An MLflow run for a training stage; yields its id. Inside it, trainers given
    ``report_to=("mlflow",)`` log each fold as a nested run through the trainer's own MLflow
    integration (loss curve, learning rate, validation metrics)."""
    import mlflow

    _set_experiment(root, experiment)
    before = os.environ.get("MLFLOW_NESTED_RUN")
    os.environ["MLFLOW_NESTED_RUN"] = "TRUE"  # the trainer's run goes under this one
    try:
        with mlflow.start_run(run_name=name, tags={"git_commit": git_commit(root),
                                                    "stage": name}) as run:
            mlflow.log_params({k: str(v) for k, v in flatten(config).items()})
            yield run.info.run_id
    finally:
        if before is None:
            os.environ.pop("MLFLOW_NESTED_RUN", None)
        else:
            os.environ["MLFLOW_NESTED_RUN"] = before


def log_fold_models(report: dict, models_dir: Path, run_id: str) -> None:
    """Into the training run ``run_id``: each fold's wall time and model folder. Logged by id,
    not to the active run: with transformers' stock MLflow callback the active run was gone by
    then (training.trainer_common.fold_run_callback), and the fluent API started a stray run."""
    import mlflow

    client = mlflow.MlflowClient()
    for fold in report["folds"]:
        f = fold["fold"]
        if "seconds" in fold:  # a fold that trained nothing (no gold evidence) has no time
            client.log_metric(run_id, f"fold_{f}.seconds", fold["seconds"])
        model_dir = models_dir / f"fold_{f}"
        if model_dir.exists():
            client.log_artifacts(run_id, str(model_dir), artifact_path=f"models/fold_{f}")
