from contextlib import contextmanager

import pytest

from fingap.core.io import read_json, read_jsonl, write_json, write_jsonl
from fingap.ingestion.corpus import Evidence, Question, read_questions
from fingap.steps import doc2query as step
from fingap.steps.page_scorer_hn import doc2query_pairs_questions
from fingap.training.folds import FoldLeak, assign_folds, fold_training_sets
from fingap.training.hard_negatives import split_validation

HN = {"val_fraction": 0.3, "seed": 13}
LONG = "Net sales and operating income by segment, in millions of dollars. " * 20


def _project(tmp_path, docs=("A", "B", "C", "D", "E")):
    questions = [Question(f"q{d}", f"Co{d}", d, "10K", "domain-relevant", "", f"Q about {d}?",
                          "1", [Evidence(d, 1, "net sales", "")]) for d in docs]
    corpus = tmp_path / "corpus"
    write_jsonl(corpus / "questions.jsonl", [q.to_dict() for q in questions])
    write_jsonl(tmp_path / "pages.jsonl", [{"doc": d, "page": p, "text": LONG if p else "cover"}
                                           for d in docs for p in range(3)])
    write_json(tmp_path / "folds.json", assign_folds(questions, 3, 0))
    return corpus


def _run(tmp_path, per_doc):
    return step.run_doc2query({"per_doc": per_doc}, HN, {"backend": "transformers"},
                              _project(tmp_path), tmp_path / "pages.jsonl",
                              tmp_path / "folds.json", tmp_path / "out.jsonl",
                              tmp_path / "report.json", tmp_path / "llm.sqlite")


def test_off_writes_nothing_and_never_opens_the_llm(tmp_path, monkeypatch):
    monkeypatch.setattr(step, "open_llm", lambda *a: pytest.fail("the LLM was opened"))
    report = _run(tmp_path, 0)
    assert (tmp_path / "out.jsonl").read_text() == "" and report["folds"] == []
    assert read_json(tmp_path / "report.json")["config"]["per_doc"] == 0


class _Scripted:
    def __init__(self):
        self.prompts = []

    def generate_many(self, requests):
        from fingap.generation.llm_base import Result

        self.prompts += [r.messages[-1]["content"] for r in requests]
        return [Result(f"What were net sales of the filing on prompt {len(self.prompts)}?")
                for _ in requests]


def test_each_fold_asks_about_its_fit_documents_only(tmp_path, monkeypatch):
    llm = _Scripted()

    @contextmanager
    def fake_open(params, cache_path):
        yield llm

    monkeypatch.setattr(step, "open_llm", fake_open)
    report = _run(tmp_path, 2)
    rows = read_jsonl(tmp_path / "out.jsonl")
    folds = read_json(tmp_path / "folds.json")["folds"]
    assert len(report["folds"]) == len(folds) == 3 and rows
    for f in folds:
        mine = [r for r in rows if r["fold"] == f["fold"]]
        docs = {r["doc"] for r in mine}
        assert docs and not docs & set(f["test_docs"])
        assert all(r["page"] in (1, 2) for r in mine)        # the covers are too short
        # training accepts them, and refuses a question on one of the fold's test documents
        qs = doc2query_pairs_questions(rows, {d: f"Co{d}" for d in "ABCDE"}, f, set())
        assert {q.doc for q in qs} == docs and all(q.question_type == "doc2query" for q in qs)
        assert all(q.gold_pages == [(q.doc, q.evidence[0].page)] for q in qs)
        bad = [{**mine[0], "doc": f["test_docs"][0]}]
        with pytest.raises(FoldLeak, match="held-out documents"):
            doc2query_pairs_questions(bad, {d: f"Co{d}" for d in "ABCDE"}, f, set())
    # nor about a fold's validation documents, split as training splits them
    questions = read_questions(tmp_path / "corpus")
    for f, train_q in fold_training_sets(read_json(tmp_path / "folds.json"), questions):
        _, val_q = split_validation(train_q, HN["val_fraction"], HN["seed"] + f["fold"])
        asked = {r["doc"] for r in rows if r["fold"] == f["fold"]}
        assert asked == set(f["train_docs"]) - {q.doc for q in val_q}
