import os

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
    import mlflow

    from fingap.steps.tracking import log_fold_models, training_run
    from fingap.training.page_scorer import TrainConfig, train_bi_encoder

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    pairs = [("q0", "What was capex?", "Capex was $1,577 million.", ("D", 0)),
             ("q1", "What was the dividend?", "The dividend was $0.42.", ("D", 1))]
    cfg = TrainConfig(batch_size=2, epochs=2, max_seq_length=32, precision="fp32")
    with training_run(tmp_path, "test", "train_page_scorer", {"epochs": 2}) as run_id:
        _, res = train_bi_encoder(pairs, cfg, seed=0, report_to=("mlflow",), run_name="fold_0")
        log_fold_models({"folds": [{"fold": 0, "seconds": res.seconds}]}, tmp_path / "none")
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert mlflow.get_run(run_id).data.params["epochs"] == "2"
    children = mlflow.search_runs(experiment_names=["test"],
                                  filter_string=f"tags.mlflow.parentRunId = '{run_id}'")
    assert list(children["tags.mlflow.runName"]) == ["fold_0"]
    history = mlflow.MlflowClient().get_metric_history(children.iloc[0]["run_id"], "loss")
    assert len(history) == res.n_steps == 2  # the trainer's own loss curve, per step
    assert "MLFLOW_NESTED_RUN" not in os.environ
