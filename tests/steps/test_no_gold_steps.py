"""A corpus whose questions have no gold evidence, stage by stage (docs/corpus.md): the folds
train nothing, each trainer keeps the named or base model, fingap best falls back to
``best.no_gold``, and evaluate writes every retrieval with no metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fingap.core.io import read_json, read_jsonl, write_json, write_jsonl
from fingap.core.runs import read_run, write_run
from fingap.ingestion.corpus import STATUS_NO_GOLD, Question
from fingap.steps.evaluate import NO_GOLD_METRICS, run_evaluate
from fingap.steps.page_scorer import run_folds
from fingap.steps.select_best import run_select_best

PAGES = {("A", 0): "Cover page of A.", ("A", 1): "Net sales were $9 million.",
         ("B", 0): "B's statement of cash flows."}
CHUNKS = [{"chunk_id": f"{d}::{p}", "doc": d, "page": p, "text": t}
          for (d, p), t in PAGES.items()]


@pytest.fixture
def no_gold_corpus(tmp_path: Path) -> Path:
    """data/corpus (two questions without evidence), pages, chunks and the folds stage's
    output, under tmp_path."""
    corpus = tmp_path / "corpus"
    questions = [Question(qid, "", doc, "10K", "", "", text, "", [], status=STATUS_NO_GOLD)
                 for qid, doc, text in (("u1", "A", "What were A's net sales?"),
                                        ("u2", "B", "B's cash flows?"))]
    write_jsonl(corpus / "questions.jsonl", (q.to_dict() for q in questions))
    write_json(corpus / "manifest.json", {"files": {}, "questions": {"n_total": 2}})
    write_jsonl(tmp_path / "pages.jsonl", ({"doc": d, "page": p, "text": t}
                                           for (d, p), t in PAGES.items()))
    write_jsonl(tmp_path / "chunks.jsonl", CHUNKS)
    run_folds({"n_folds": 5, "seed": 13, "no_gold_models": {"reranker": "minilm"}}, corpus,
              tmp_path / "folds.json")
    return tmp_path


def test_each_trainer_keeps_the_named_or_base_model(no_gold_corpus):
    from fingap.steps.page_scorer import run_train
    from fingap.steps.reranker import run_train_reranker

    root = no_gold_corpus
    report = run_train({"model": "minilm", "max_seq_length": 32}, root / "corpus",
                       root / "pages.jsonl", root / "folds.json", root / "models/page_scorer",
                       root / "page_scorer_training.json")
    assert report["folds"] == [{"fold": 0, "trained": False,
                                "model": "minilm (the base model, untrained)",
                                "why": "no question has gold evidence: nothing to train or "
                                       "score on"}]
    assert (root / "models/page_scorer/fold_0/model.safetensors").exists()
    assert read_json(root / "models/page_scorer/fold_0/fingap_fold.json")["train_docs"] == []
    paths = {"pages": root / "pages.jsonl", "folds": root / "folds.json",
             "corpus": root / "corpus"}
    report = run_train_reranker({"model": "minilm", "max_length": 32}, paths,
                                root / "models/reranker", root / "reranker_training.json")
    assert report["folds"][0]["model"] == "minilm (the base model, untrained)"
    assert (root / "models/reranker/fold_0/model.safetensors").exists()


def test_fingap_best_falls_back_to_its_no_gold_method(no_gold_corpus):
    root = no_gold_corpus
    runs = root / "runs"
    for method, chunk in (("a", "A::0"), ("b", "A::1")):
        for cond in ("standard", "oracle_doc", "oracle_page"):
            write_run(runs / method / f"{cond}.json", {"u1": [(chunk, 1.0)], "u2": []})
    params = {"best": {"candidates": ["a", "b"], "no_gold": "b"},
              "retrieve": {"k": 5, "conditions": ["standard", "oracle_doc", "oracle_page"]}}
    report = run_select_best(params, root / "corpus", root / "chunks.jsonl",
                             root / "folds.json", runs, root / "best", root / "best.json")
    assert report["no_gold"] == {"method": "b", "models": {
        "page_scorer": "", "page_scorer_hn": "", "reranker": "minilm", "page_reranker": ""}}
    assert report["folds"]["0"]["method"] == "b" and "nothing" in report["selected_on"]
    assert read_run(root / "best/standard.json") == read_run(runs / "b/standard.json")
    with pytest.raises(ValueError, match="best.no_gold must be one of best.candidates"):
        run_select_best({**params, "best": {"candidates": ["a"], "no_gold": "b"}},
                        root / "corpus", root / "chunks.jsonl", root / "folds.json", runs,
                        root / "best", root / "best.json")


def test_evaluate_writes_every_retrieval_and_no_metric(no_gold_corpus):
    root = no_gold_corpus
    runs = root / "runs"
    for cond in ("standard", "oracle_doc", "oracle_page"):
        write_run(runs / "dense" / f"{cond}.json",
                  {"u1": [("A::1", 0.9), ("A::0", 0.5)], "u2": [("B::0", 0.8)]})
    write_jsonl(root / "errors.jsonl", [])
    write_json(root / "extract.json", {"gold_alignment": {}})
    write_json(root / "chunks.json", {"n_chunks": 3})
    out = run_evaluate({"k": 5, "methods": ["dense"]}, root / "corpus", root / "chunks.jsonl",
                       runs, root / "errors.jsonl", root / "unanswerable.jsonl",
                       root / "extract.json", root / "chunks.json", root / "metrics.json",
                       root / "breakdown.json", root / "per_question", root / "retrieval.md",
                       plots_dir=root / "plots")
    assert out["no_gold"] == NO_GOLD_METRICS and out["dense"]["standard"] == {"n": 0}
    assert out["questions"]["n_no_gold"] == 2 and out["comparisons"] == {}
    records = read_jsonl(root / "per_question/dense__standard.jsonl")
    assert [(r["question_id"], r["scored"], [h[0] for h in r["retrieved"]]) for r in records] \
        == [("u1", False, ["A::1", "A::0"]), ("u2", False, ["B::0"])]
    assert NO_GOLD_METRICS in (root / "retrieval.md").read_text()
    assert (root / "plots/by_question_type.png").stat().st_size > 0
    assert [json.loads(line)["status"] for line in
            (root / "unanswerable.jsonl").read_text().splitlines()] == [STATUS_NO_GOLD] * 2
