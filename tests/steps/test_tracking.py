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
