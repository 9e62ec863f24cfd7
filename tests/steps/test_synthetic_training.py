import pytest

from fingap.core.io import read_jsonl
from fingap.steps.page_scorer_hn import (
    SYNTHETIC_FACT_FIELDS,
    run_synthetic_facts,
    synthetic_pairs_questions,
)
from fingap.training.folds import FoldLeak


def fact(doc, page, label, concept, fy):
    return {"doc": doc, "page": page, "tbl": 0, "label": label, "concept": concept,
            "concept_rank": 0, "fiscal_year": fy, "percent": 0}


FACTS = [fact("A", 4, "Net income", "net_income", 2022),
         fact("V", 9, "Revenue", "revenue", 2022),     # a validation document
         fact("T", 7, "Revenue", "revenue", 2023)]     # a test document
COMPANY = {"A": "Acme", "V": "Vex", "T": "Test"}


def test_synthetic_questions_come_from_training_documents_not_held_out():
    fold = {"fold": 0, "train_docs": ["A", "V"], "test_docs": ["T"]}
    qs = synthetic_pairs_questions(FACTS, COMPANY, fold, {"V"}, per_doc=5, seed=0)
    assert [(q.doc, q.gold_pages, q.question) for q in qs] == [
        ("A", [("A", 4)], "What was Acme's net income in FY2022?")]
    # the evidence names the line item, so a whole page's positive is the window printing it
    assert qs[0].evidence[0].text == "net income 2022" and qs[0].id.startswith("syn::A::")


def test_a_fold_whose_training_side_holds_a_test_document_is_refused():
    fold = {"fold": 1, "train_docs": ["A", "T"], "test_docs": ["T"]}
    with pytest.raises(FoldLeak, match="test documents \\['T'\\]"):
        synthetic_pairs_questions(FACTS, COMPANY, fold, set(), per_doc=5, seed=0)


def test_synthetic_facts_are_empty_when_off_and_the_qualifying_facts_when_on(statement_store,
                                                                            tmp_path):
    store, _ = statement_store
    db = tmp_path / "facts.sqlite"  # where the fixture wrote the store
    out = tmp_path / "synthetic" / "facts.jsonl"
    assert run_synthetic_facts({"synthetic_per_doc": 0}, db, out) == 0
    assert out.read_text() == ""
    n = run_synthetic_facts({"synthetic_per_doc": 3}, db, out)
    rows = read_jsonl(out)
    assert n == len(rows) > 0
    assert all(set(r) == set(SYNTHETIC_FACT_FIELDS) for r in rows)
    assert all(r["concept"] and not r["percent"] and r["fiscal_year"] for r in rows)
    every = store.query()
    assert n == sum(1 for f in every if f["concept"] and not f["percent"]
                    and f["fiscal_year"] is not None)


def test_synthetic_per_doc_must_be_a_count():
    with pytest.raises(ValueError, match="synthetic_per_doc"):
        run_synthetic_facts({"synthetic_per_doc": -1}, None, None)
