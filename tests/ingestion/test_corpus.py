import json

import pytest

from fingap.core.io import JsonlError
from fingap.ingestion.corpus import (
    STATUS_MISSING_DOC,
    CorpusError,
    build_manifest,
    locate_corpus,
    verify_inputs,
)
from fingap.ingestion.documents import DocumentRecord


def test_manifest_counts_and_missing_docs(tiny_corpus):
    manifest, questions = build_manifest(tiny_corpus)
    assert manifest["questions"] == {"n_total": 5, "n_evaluated": 4, "n_missing_doc": 1,
                                     "missing_doc_ids": ["q5"]}
    assert manifest["docs"]["missing"] == ["ZETA_2020_10K"]
    assert "pdfs/ACME_2022_10K.pdf" in manifest["files"]
    assert all(len(h) == 64 for h in manifest["files"].values())
    q5 = next(q for q in questions if q.id == "q5")
    assert q5.status == STATUS_MISSING_DOC
    q2 = next(q for q in questions if q.id == "q2")
    assert q2.gold_pages == [("ACME_2022_10K", 1), ("ACME_2022_10K", 2)]  # a set, sorted
    assert q2.doc_type == "10K"


def _rewrite_line(path, lineno, text):
    lines = path.read_text().splitlines()
    lines[lineno - 1] = text
    path.write_text("\n".join(lines) + "\n")


def test_malformed_line_names_file_and_line(tiny_corpus):
    qfile = tiny_corpus / "data" / "financebench_open_source.jsonl"
    _rewrite_line(qfile, 3, '{"financebench_id": "broken"')
    with pytest.raises(JsonlError, match=r"financebench_open_source.jsonl:3: malformed JSON"):
        build_manifest(tiny_corpus)


def test_duplicate_question_id(tiny_corpus):
    qfile = tiny_corpus / "data" / "financebench_open_source.jsonl"
    first = qfile.read_text().splitlines()[0]
    qfile.write_text(qfile.read_text() + first + "\n")
    with pytest.raises(JsonlError, match=r":6: duplicate question id q1 \(first on line 1\)"):
        build_manifest(tiny_corpus)


def test_missing_field_and_bad_page(tiny_corpus):
    qfile = tiny_corpus / "data" / "financebench_open_source.jsonl"
    rows = [json.loads(line) for line in qfile.read_text().splitlines()]
    del rows[1]["question"]
    rows[2]["evidence"][0]["evidence_page_num"] = -1
    qfile.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(JsonlError, match=r":2: missing field\(s\) question"):
        build_manifest(tiny_corpus)
    del rows[1]
    qfile.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(JsonlError, match=r":2: evidence\[0\].evidence_page_num must be an int"):
        build_manifest(tiny_corpus)


def test_unknown_doc_type(tiny_corpus):
    info = tiny_corpus / "data" / "financebench_document_information.jsonl"
    _rewrite_line(info, 2, json.dumps({"doc_name": "X", "doc_type": "brochure"}))
    with pytest.raises(JsonlError, match="document_information.jsonl:2"):
        build_manifest(tiny_corpus)


def test_locate_corpus_order(tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.delenv("FINANCEBENCH_DIR", raising=False)
    assert locate_corpus(str(tiny_corpus)) == tiny_corpus.resolve()
    monkeypatch.setenv("FINANCEBENCH_DIR", str(tiny_corpus))
    assert locate_corpus(None, root=tmp_path / "elsewhere") == tiny_corpus.resolve()
    with pytest.raises(CorpusError, match="param corpus.dir.*patronus-ai/financebench"):
        locate_corpus(str(tmp_path / "nope"))
    monkeypatch.delenv("FINANCEBENCH_DIR")
    with pytest.raises(CorpusError, match="default"):
        locate_corpus(None, root=tmp_path / "a" / "b")


def test_default_corpus_is_found_from_a_dvc_experiment_copy(tiny_corpus, tmp_path,
                                                              monkeypatch):
    """A queued experiment runs in <repo>/.dvc/tmp/exps/<name>: ../shared/financebench must
    still resolve to the folder beside the repository."""
    monkeypatch.delenv("FINANCEBENCH_DIR", raising=False)
    (tmp_path / "shared").mkdir()
    tiny_corpus.rename(tmp_path / "shared" / "financebench")
    repo = tmp_path / "repo"
    exp = repo / ".dvc" / "tmp" / "exps" / "run1"
    exp.mkdir(parents=True)
    expected = (tmp_path / "shared" / "financebench").resolve()
    assert locate_corpus(None, root=repo) == expected
    assert locate_corpus(None, root=exp) == expected


def test_verify_inputs_detects_changed_file(tiny_corpus):
    manifest, _ = build_manifest(tiny_corpus)
    verify_inputs(tiny_corpus, manifest, ["pdfs/BOLT_2021_8K.pdf"])
    (tiny_corpus / "pdfs" / "BOLT_2021_8K.pdf").write_bytes(b"changed")
    with pytest.raises(CorpusError, match="BOLT_2021_8K.pdf changed"):
        verify_inputs(tiny_corpus, manifest, ["pdfs/BOLT_2021_8K.pdf"])


def test_pdf_folder_entries_that_are_no_readable_files_are_skipped(tiny_corpus):
    import os

    pdfs = tiny_corpus / "pdfs"
    (pdfs / "FOLDER_2020_10K.pdf").mkdir()
    (pdfs / "LINK_2020_10K.pdf").symlink_to(pdfs / "nowhere.pdf")
    (pdfs / "ALIAS_2021_8K.pdf").symlink_to(pdfs / "BOLT_2021_8K.pdf")  # a link to a file: kept
    locked = pdfs / "LOCKED_2020_10K.pdf"
    locked.write_bytes(b"%PDF-1.7")
    locked.chmod(0)
    manifest, _ = build_manifest(tiny_corpus)
    reasons = {e["name"]: e["reason"] for e in manifest["skipped_pdf_entries"]}
    assert reasons["FOLDER_2020_10K.pdf"] == "a folder, not a file"
    assert reasons["LINK_2020_10K.pdf"] == "broken symbolic link"
    if os.geteuid() != 0:  # root reads any file
        assert "permission" in reasons["LOCKED_2020_10K.pdf"]
    assert "ALIAS_2021_8K" in manifest["docs"]["present"]
    assert "FOLDER_2020_10K" not in manifest["docs"]["present"]


def test_a_users_own_corpus_folder(user_corpus):
    from fingap.ingestion.corpus import CorpusLayout, describe_corpus, pdf_names

    from ..conftest import COVER_DOC, user_corpus_params

    layout = CorpusLayout.from_params(user_corpus_params(user_corpus))
    assert locate_corpus(str(user_corpus), layout=layout) == user_corpus
    manifest, questions, docs = describe_corpus(user_corpus, layout)
    assert manifest["questions"] == {"n_total": 6, "n_evaluated": 4, "n_missing_doc": 1,
                                     "missing_doc_ids": ["q5"], "n_no_gold": 1,
                                     "no_gold_ids": ["u_delta"]}
    assert manifest["docs"]["missing"] == ["zeta-annual-2020"]
    assert manifest["inputs"] == ["questions.jsonl", "metadata.csv"]
    assert sorted(pdf_names(manifest)) == sorted(f"filings/{d}.pdf" for d in docs
                                                 if d != "zeta-annual-2020")
    assert docs["acme-annual-2022"].form == "10K"
    assert docs["acme-q2-2023"].period_end == "2023-06-30"
    # not in the metadata: every field from its cover page
    assert docs[COVER_DOC] == DocumentRecord(COVER_DOC, "Delta Freight Lines, Inc.", "10K",
                                             "2021-09-30", "cover")
    assert manifest["document_fields"] == {"cover": 1, "metadata": 4}
    assert {q.doc_type for q in questions} == {"10K", "10Q", "8K"}  # u_delta's 10K too
    verify_inputs(user_corpus, manifest, manifest["inputs"])


def test_a_folder_corpus_without_questions_or_metadata(user_corpus):
    from fingap.ingestion.corpus import CorpusLayout, describe_corpus

    layout = CorpusLayout.from_params({"layout": "folder", "pdfs": "filings"})
    manifest, questions, docs = describe_corpus(user_corpus, layout)
    assert questions == [] and manifest["inputs"] == []
    assert {d.source for d in docs.values()} == {"cover"}
    assert docs["acme-annual-2022"].form == ""  # the tiny filings print no cover


def test_folder_layout_params_fail_fast(user_corpus):
    from fingap.core.params import ParamError
    from fingap.ingestion.corpus import CorpusLayout

    with pytest.raises(ParamError, match="corpus.layout must be one of"):
        CorpusLayout.from_params({"layout": "s3"})
    with pytest.raises(ParamError, match="corpus.pdfs must be a path inside corpus.dir"):
        CorpusLayout.from_params({"layout": "folder", "pdfs": "../elsewhere"})
    with pytest.raises(ParamError, match="metadata_fields.cik: unknown field"):
        CorpusLayout.from_params({"layout": "folder", "metadata_fields": {"cik": "CIK"}})
    layout = CorpusLayout.from_params({"layout": "folder", "pdfs": "filings"})
    with pytest.raises(CorpusError, match="folder needs corpus.dir"):
        locate_corpus(None, layout=layout)
    with pytest.raises(CorpusError, match="no such folder"):
        locate_corpus(str(user_corpus / "nowhere"), layout=layout)


def test_questions_without_gold_evidence_are_served_not_scored(tiny_corpus):
    from fingap.ingestion.corpus import STATUS_NO_GOLD, served

    qfile = tiny_corpus / "data" / "financebench_open_source.jsonl"
    rows = [json.loads(line) for line in qfile.read_text().splitlines()]
    rows.append({"financebench_id": "u1", "doc_name": "ACME_2022_10K",
                 "question": "What was ACME's revenue?"})          # a user's question: no gold
    rows.append({**rows[0], "financebench_id": "u2", "evidence": []})
    rows.append({"financebench_id": "u3", "doc_name": "ZETA_2020_10K", "question": "Revenue?"})
    qfile.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    manifest, questions = build_manifest(tiny_corpus)
    assert manifest["questions"] == {
        "n_total": 8, "n_evaluated": 4, "n_missing_doc": 2, "missing_doc_ids": ["q5", "u3"],
        "n_no_gold": 2, "no_gold_ids": ["u1", "u2"]}
    by_id = {q.id: q for q in questions}
    assert by_id["u1"].status == STATUS_NO_GOLD and by_id["u1"].answer == ""
    assert by_id["u1"].gold_pages == [] and by_id["u1"].gold_docs == ["ACME_2022_10K"]
    assert by_id["u3"].status == STATUS_MISSING_DOC   # no PDF outranks no gold
    assert [q.id for q in served(questions)] == ["q1", "q2", "q3", "q4", "u1", "u2"]
    rows[-3]["evidence"] = {"doc_name": "ACME_2022_10K"}
    qfile.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(JsonlError, match=r":6: question u1: 'evidence' must be a list"):
        build_manifest(tiny_corpus)
