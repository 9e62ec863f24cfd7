"""`fingap ask` / `fingap facts` / `fingap search`: answers from a tiny fact store, clear errors."""

import json

import pytest
from typer.testing import CliRunner

from fingap.cli import app

from ..conftest import DOC

runner = CliRunner()


@pytest.fixture
def workdir(tmp_path, statement_store, monkeypatch):
    """A project folder with data/pages and data/facts built from the statement PDF."""
    store, texts = statement_store
    (tmp_path / "data/pages").mkdir(parents=True)
    (tmp_path / "data/facts").mkdir(parents=True)
    with open(tmp_path / "data/pages/pages.jsonl", "w") as f:
        for (doc, page), text in texts.items():
            f.write(json.dumps({"doc": doc, "page": page, "text": text}) + "\n")
    (tmp_path / "facts.sqlite").rename(tmp_path / "data/facts/facts.sqlite")
    (tmp_path / "params.yaml").write_text("answer: {gate: flag, max_follow_ups: 3, k: 5}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _questions(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_ask_file_oracle_page_answers_with_citations(workdir):
    q = _questions(workdir / "q.jsonl", [
        {"financebench_id": "x1", "question": "What is ACME's FY2022 free cash flow in USD "
         "millions?", "doc_name": DOC, "evidence": [{"doc_name": DOC, "evidence_page_num": 1}]}])
    result = runner.invoke(app, ["ask", "--questions", str(q), "--condition", "oracle_page",
                                 "--out", "a.jsonl"])
    assert result.exit_code == 0, result.output
    rec = json.loads((workdir / "a.jsonl").read_text())
    assert rec["path"] == "structured" and rec["verified"] and rec["value"] == 4862.0
    assert {(i["doc"], i["page"]) for i in rec["inputs"]} == {(DOC, 1)}


def test_ask_rejects_bad_input_with_clear_errors(workdir):
    r = runner.invoke(app, ["ask", "   "])
    assert r.exit_code == 2 and "question is empty" in r.output
    bad = workdir / "bad.jsonl"
    bad.write_text('{"financebench_id": "a", "question": "x"}\n{not json\n')
    r = runner.invoke(app, ["ask", "--questions", str(bad), "--condition", "oracle_page"])
    assert r.exit_code == 2 and "bad.jsonl:2" in r.output
    empty = _questions(workdir / "e.jsonl", [{"financebench_id": "a", "question": ""}])
    r = runner.invoke(app, ["ask", "--questions", str(empty)])
    assert r.exit_code == 2 and "e.jsonl:1" in r.output and "non-empty" in r.output
    q = _questions(workdir / "q.jsonl", [{"financebench_id": "a", "question": "FY2022 capex?"}])
    r = runner.invoke(app, ["ask", "--questions", str(q), "--condition", "oracle_page"])
    assert r.exit_code == 2 and "needs evidence pages" in r.output
    r = runner.invoke(app, ["ask", "What is capex?", "--method", "nosuch"])
    assert r.exit_code == 2 and "valid methods: bm25, dense" in r.output
    r = runner.invoke(app, ["ask", "What is capex?", "--condition", "maybe"])
    assert r.exit_code == 2 and "unknown condition" in r.output


def test_search_rejects_empty_question_and_unknown_method(workdir):
    r = runner.invoke(app, ["search", "", "--method", "bm25"])
    assert r.exit_code == 2 and "question is empty" in r.output
    r = runner.invoke(app, ["search", "capex", "--method", "nosuch"])
    assert r.exit_code == 2 and "valid methods" in r.output
    r = runner.invoke(app, ["search", "capex", "--method", "dense"])
    assert r.exit_code == 2 and "not built here" in r.output and "index@dense" in r.output
    r = runner.invoke(app, ["search", "capex", "--method", "fingap_best"])
    assert r.exit_code == 2 and "not built here" in r.output


def test_facts_query(workdir):
    r = runner.invoke(app, ["facts", "--doc", DOC, "--label", "capital expenditures"])
    assert r.exit_code == 0 and "(1,577)" in r.output and "[capex]" in r.output
    r = runner.invoke(app, ["facts"])
    assert r.exit_code == 2


def _write_table_rows(workdir, store) -> list[dict]:
    from collections import defaultdict

    from fingap.steps.tables import serialise_row

    rows = defaultdict(list)
    for f in store.iter_all():
        f["table"], f["column"] = f["tbl"], f["col"]
        rows[(f["doc"], f["page"], f["tbl"], f["label"])].append(f)
    records = [{"row_id": f"r{i}", "doc": d, "page": p, "text": serialise_row(fs)}
               for i, ((d, p, _, _), fs) in enumerate(rows.items())]
    with open(workdir / "data/facts/table_rows.jsonl", "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    return records


def test_search_table_rows_dense(workdir, statement_store):
    from fingap.steps.table_rows_index import run_table_rows_index

    store, _ = statement_store
    records = _write_table_rows(workdir, store)
    r = runner.invoke(app, ["search", "capex", "--method", "table_rows_dense"])
    assert r.exit_code == 2 and "dvc repro index_table_rows" in r.output
    dense = {"model": "minilm", "max_seq_length": 64, "precision": "fp32", "batch_size": 8}
    (workdir / "params.yaml").write_text(json.dumps({"dense": dense}))
    stats = run_table_rows_index(dense, workdir / "data/facts/table_rows.jsonl",
                                 workdir / "data/indexes/table_rows_dense")
    assert stats["n_rows"] == len(records)
    r = runner.invoke(app, ["search", "purchases of property, plant and equipment", "--method",
                            "table_rows_dense", "-k", "1"])
    assert r.exit_code == 0, r.output
    assert f"{DOC}  page 1" in r.output and "(1,577)" in r.output


def test_search_table_rows(workdir, statement_store):
    from fingap.retrieval.bm25 import BM25Retriever

    store, _ = statement_store
    records = _write_table_rows(workdir, store)
    BM25Retriever.from_texts([r["row_id"] for r in records], [r["text"] for r in records]
                             ).save(workdir / "data/facts/rows_bm25")
    r = runner.invoke(app, ["search", "purchases of property plant equipment", "--method",
                            "table_rows", "-k", "1"])
    assert r.exit_code == 0, r.output
    assert f"{DOC}  page 1" in r.output and "(1,577)" in r.output


def test_ask_file_opens_the_llm_once_for_all_its_questions(workdir, monkeypatch):
    import contextlib

    import fingap.generation.answering as answering
    import fingap.generation.llm as llm_mod

    opened = []

    @contextlib.contextmanager
    def fake_open(params, cache_path):
        opened.append(cache_path)
        yield object()

    monkeypatch.setattr(llm_mod, "open_llm", fake_open)
    monkeypatch.setattr(answering, "generate_answers",
                        lambda llm, qs, ctx, n: {k: {"answer": "Yes."} for k in qs})
    (workdir / "params.yaml").write_text("answer: {gate: flag, max_follow_ups: 3, k: 5}\n"
                                         "llm: {}\ngenerate: {max_new_tokens: 8}\n")
    ev = [{"doc_name": DOC, "evidence_page_num": 1}]
    q = _questions(workdir / "q.jsonl", [
        {"financebench_id": f"t{i}", "question": f"Does ACME report segment {i} separately?",
         "doc_name": DOC, "evidence": ev} for i in range(3)])
    result = runner.invoke(app, ["ask", "--questions", str(q), "--condition", "oracle_page",
                                 "--out", "a.jsonl"])
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in (workdir / "a.jsonl").read_text().splitlines()]
    assert [a["path"] for a in answers] == ["llm"] * 3 and len(opened) == 1
