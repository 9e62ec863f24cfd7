import os
from pathlib import Path

import pytest

from fingap.steps.tracking import (
    TrackingUnavailable,
    check_tracking,
    flatten,
    log_pipeline,
    metric_key,
)


def test_metric_key_is_mlflow_safe():
    assert metric_key("PageRec@5") == "PageRec_at_5"
    assert metric_key("ROUGE-L@5") == "ROUGE-L_at_5"


def test_flatten():
    assert flatten({"a": {"b": 1, "c": {"d": 2}}, "e": 3}) == {"a.b": 1, "a.c.d": 2, "e": 3}


def test_unreachable_server_fails_fast_with_url(monkeypatch, tmp_path):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9")  # discard port: refused
    with pytest.raises(TrackingUnavailable, match=r"http://127.0.0.1:9.*unreachable"):
        check_tracking(tmp_path, timeout=2)


def test_log_pipeline_parent_and_children(monkeypatch, tmp_path):
    import mlflow

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    pq = tmp_path / "per_question"
    pq.mkdir()
    (pq / "bm25__standard.jsonl").write_text('{"question_id": "q1"}\n')
    metrics = {"bm25": {"standard": {"DocRec@5": 0.5, "PageRec@5": 0.25, "n": 2}},
               "oracle_gap": {"bm25": 0.1}, "questions": {"n_evaluated": 2}}
    manifest = {"files": {"a": "0" * 64}, "questions": {"n_evaluated": 2, "n_missing_doc": 1}}
    run_id = log_pipeline(tmp_path, "test", {"chunk": {"size": 1024}}, metrics, manifest, pq, [])
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    parent = mlflow.get_run(run_id)
    assert parent.data.params["chunk.size"] == "1024"
    assert parent.data.metrics["bm25.standard.PageRec_at_5"] == 0.25
    assert parent.data.tags["n_missing_doc"] == "1"
    children = mlflow.search_runs(experiment_names=["test"],
                                  filter_string=f"tags.mlflow.parentRunId = '{run_id}'")
    assert len(children) == 1
    assert children.iloc[0]["metrics.DocRec_at_5"] == 0.5
    child_id = children.iloc[0]["run_id"]
    arts = [a.path for a in mlflow.MlflowClient().list_artifacts(child_id)]
    assert arts == ["bm25__standard.jsonl"]


def test_training_runs_nest_each_folds_trainer_run(monkeypatch, tmp_path):
    """Two folds, each a trainer of its own: both fold runs sit under the stage's run (the
    stock MLflow callback, collected after fold 0, ended the stage's run, and fold 1 came out
    top-level), the fold times land on the stage's run, and no other run appears."""
    import gc
    import json

    import mlflow

    from fingap.steps.tracked_training import run_tracked_training
    from fingap.training.page_scorer import TrainConfig, train_bi_encoder

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    pairs = [("q0", "What was capex?", "Capex was $1,577 million.", ("D", 0)),
             ("q1", "What was the dividend?", "The dividend was $0.42.", ("D", 1))]
    cfg = TrainConfig(batch_size=2, epochs=2, max_seq_length=32, precision="fp32")
    seen = {"n_steps": []}

    def train(report_to):
        seen["report_to"] = report_to
        folds = []
        for fold in (0, 1):
            _, res = train_bi_encoder(pairs, cfg, seed=fold, report_to=report_to,
                                      run_name=f"fold_{fold}")
            gc.collect()  # the trainer and its callbacks are collected between folds
            seen["n_steps"].append(res.n_steps)
            folds.append({"fold": fold, "seconds": res.seconds})
        return {"folds": folds}

    report_path = tmp_path / "reports" / "training.json"
    report = run_tracked_training(tmp_path, "test", "train_page_scorer", {"epochs": 2},
                                  tmp_path / "none", report_path, train)
    run_id = report["mlflow_run_id"]
    assert seen["report_to"] == ("mlflow",)
    assert json.loads(report_path.read_text()) == report  # written with the run's id
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    run = mlflow.get_run(run_id)
    assert run.data.params["epochs"] == "2" and run.data.tags["stage"] == "train_page_scorer"
    assert set(run.data.metrics) == {"fold_0.seconds", "fold_1.seconds"}
    assert run.info.status == "FINISHED"
    runs = mlflow.search_runs(experiment_names=["test"])
    assert len(runs) == 3  # the stage's run and its two folds
    children = runs[runs["tags.mlflow.parentRunId"] == run_id]
    assert sorted(children["tags.mlflow.runName"]) == ["fold_0", "fold_1"]
    assert set(children["status"]) == {"FINISHED"}
    # each fold's end precedes the stage run's end: the stage's run was not ended early
    assert (children["end_time"] <= runs.loc[runs["run_id"] == run_id, "end_time"].iloc[0]).all()
    history = mlflow.MlflowClient().get_metric_history(children.iloc[0]["run_id"], "loss")
    assert len(history) == seen["n_steps"][0] == 2  # the trainer's own loss curve, per step
    assert mlflow.active_run() is None
    assert "MLFLOW_NESTED_RUN" not in os.environ


def test_tracked_training_checks_the_server_before_training(monkeypatch, tmp_path):
    from fingap.steps.tracked_training import run_tracked_training

    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9")
    trained = []
    with pytest.raises(TrackingUnavailable):
        run_tracked_training(tmp_path, "test", "train_x", {}, tmp_path / "m",
                             tmp_path / "r.json", lambda report_to: trained.append(1) or {})
    assert trained == [] and not (tmp_path / "r.json").exists()


def test_track_tags_the_parent_run_with_every_training_run(monkeypatch, tmp_path):
    import json

    import mlflow

    from fingap.steps.tracking import run_track, training_reports

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    reports = tmp_path / "reports"
    (reports / "per_question").mkdir(parents=True)
    (reports / "metrics.json").write_text(json.dumps({"bm25": {"standard": {"PageRec@5": 0.5}}}))
    (reports / "reranker_training.json").write_text(json.dumps({"mlflow_run_id": "abc"}))
    (reports / "gap.md").write_text("# gap\n")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"files": {}, "questions": {"n_evaluated": 1,
                                                               "n_missing_doc": 0}}))
    out = reports / "mlflow_run.json"
    training = training_reports(["reports/metrics.json", "reports/reranker_training.json",
                                 "reports/page_scorer_training.json"])
    assert training == [Path("reports/reranker_training.json"),
                        Path("reports/page_scorer_training.json")]
    run_id = run_track(tmp_path, "test", {"k": 1}, reports, manifest, out,
                       training=[tmp_path / p for p in training])
    assert json.loads(out.read_text()) == {"parent_run_id": run_id}
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    tags = mlflow.get_run(run_id).data.tags
    assert tags["reranker_training_run_id"] == "abc" and tags["pipeline"] == "product"
    assert "page_scorer_training_run_id" not in tags  # no report, no tag
    arts = [a.path for a in mlflow.MlflowClient().list_artifacts(run_id)]
    assert arts == ["gap.md", "metrics.json"]

    # the studies' run: its own metrics, tagged with the product run it read
    studies = reports / "studies"
    (studies / "per_question").mkdir(parents=True)
    (studies / "metrics.json").write_text(
        json.dumps({"page_maxsim_routed": {"standard": {"PageRec@5": 0.6}}}))
    study_id = run_track(tmp_path, "test", {"k": 1}, reports, manifest,
                         studies / "mlflow_run.json", pipeline="studies")
    run = mlflow.get_run(study_id)
    assert run.data.tags["product_run_id"] == run_id and run.info.run_name == "studies"
    assert run.data.metrics == {"page_maxsim_routed.standard.PageRec_at_5": 0.6}
    assert [a.path for a in mlflow.MlflowClient().list_artifacts(study_id)] == ["metrics.json"]


def test_studies_track_needs_the_product_run(tmp_path):
    from fingap.steps.tracking import run_track

    (tmp_path / "reports/studies").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="product's track stage has not run"):
        run_track(tmp_path, "test", {}, tmp_path / "reports", tmp_path / "manifest.json",
                  tmp_path / "out.json", pipeline="studies")
