"""Hostile PDFs: each yields a clear (doc, reason) record and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from fingap.core.io import read_json, read_jsonl
from fingap.ingestion.corpus import read_questions
from fingap.ingestion.extract import extract_pdf
from fingap.steps.evaluate import mark_failed_documents
from fingap.steps.ingest import run_corpus, run_extract

from ..conftest import make_corpus, write_pdf


def _image_only_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 64), False)
    pix.set_rect(pix.irect, (200, 30, 30))
    page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pix)
    doc.save(str(path))
    doc.close()


def _encrypted_pdf(path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret revenue figures")
    doc.save(str(path), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")
    doc.close()


def _huge_page_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=14000, height=14000)
    page.insert_textbox(pymupdf.Rect(10, 10, 13990, 13990), "revenue 1,234 " * 4000, fontsize=6)
    doc.save(str(path))
    doc.close()


def write_hostile(pdf_dir: Path) -> dict[str, str]:
    """Write hostile files; returns {doc: expected reason fragment}."""
    (pdf_dir / "CORRUPT.pdf").write_bytes(b"%PDF-1.7\n\x00\xff garbage \x13\x37" * 50)
    good = pdf_dir / "GOOD_TMP.pdf"
    write_pdf(good, ["page one text"] * 3)
    data = good.read_bytes()
    good.unlink()
    (pdf_dir / "TRUNCATED.pdf").write_bytes(data[: len(data) // 3])
    _encrypted_pdf(pdf_dir / "LOCKED.pdf")
    (pdf_dir / "ZEROPAGES.pdf").write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    _image_only_pdf(pdf_dir / "SCANNED.pdf")
    (pdf_dir / "NOTAPDF.pdf").write_text("<html>this is a web page, not a PDF</html>")
    _huge_page_pdf(pdf_dir / "HUGEPAGE.pdf")
    return {"CORRUPT": "", "TRUNCATED": "", "LOCKED": "password-protected", "ZEROPAGES": "",
            "SCANNED": "no page has extractable text", "NOTAPDF": "not a PDF file"}


def test_each_hostile_file_gives_a_record(tmp_path):
    expected = write_hostile(tmp_path)
    for doc, fragment in expected.items():
        pages, errors = extract_pdf(tmp_path / f"{doc}.pdf")
        doc_errors = [e for e in errors if e.page is None and e.severity == "error"]
        assert doc_errors, f"{doc}: no document-level error record"
        assert all(e.doc == doc and e.reason for e in errors)
        assert fragment in doc_errors[0].reason
        assert not any(p.text.strip() for p in pages)
    _, errors = extract_pdf(tmp_path / "TRUNCATED.pdf")
    assert any("repaired" in e.reason for e in errors)
    pages, errors = extract_pdf(tmp_path / "SCANNED.pdf")
    assert any(e.page == 0 and "image-only" in e.reason for e in errors)
    pages, errors = extract_pdf(tmp_path / "HUGEPAGE.pdf", max_page_chars=5000)
    assert len(pages) == 1 and pages[0].n_chars == 5000
    assert errors[0].severity == "warning" and "cut at 5000" in errors[0].reason


def test_pipeline_continues_and_marks_questions_unanswerable(tmp_path):
    corpus = make_corpus(tmp_path / "fb")
    write_hostile(corpus / "pdfs")
    # a question on a hostile document, and the doc listed in the document information file
    q = json.loads((corpus / "data/financebench_open_source.jsonl").read_text().splitlines()[0])
    q.update(financebench_id="q_locked", doc_name="LOCKED")
    for e in q["evidence"]:
        e["doc_name"] = "LOCKED"
    with open(corpus / "data/financebench_open_source.jsonl", "a") as f:
        f.write(json.dumps(q) + "\n")
    with open(corpus / "data/financebench_document_information.jsonl", "a") as f:
        f.write(json.dumps({"doc_name": "LOCKED", "doc_type": "10k"}) + "\n")
    out = tmp_path / "out"
    run_corpus({"dir": str(corpus)}, out / "corpus")
    report = run_extract({"alignment_window": 2, "max_page_chars": 5000}, {"dir": str(corpus)},
                         out / "corpus", out / "pages", out / "extract.json")
    assert report["n_docs_failed"] == 6
    assert set(report["failed_docs"]) == {"CORRUPT", "TRUNCATED", "LOCKED", "ZEROPAGES",
                                          "SCANNED", "NOTAPDF"}
    assert report["n_docs_extracted"] >= 4  # the good documents and HUGEPAGE were extracted
    errors = read_jsonl(out / "pages/errors.jsonl")
    assert {e["doc"] for e in errors} >= {"LOCKED", "HUGEPAGE", "SCANNED"}
    pages = read_jsonl(out / "pages/pages.jsonl")
    assert {p["doc"] for p in pages} >= {"ACME_2022_10K", "BOLT_2021_8K", "HUGEPAGE"}
    assert read_json(out / "extract.json")["gold_alignment"]["rate"] == 1.0
    questions = read_questions(out / "corpus")
    failed = mark_failed_documents(questions, out / "pages/errors.jsonl")
    locked = next(x for x in questions if x.id == "q_locked")
    assert locked.status == "extraction_failed" and "password" in failed["LOCKED"]


@pytest.mark.parametrize("bad", [b"", b"%PDF-"])
def test_empty_and_stub_files(tmp_path, bad):
    (tmp_path / "X.pdf").write_bytes(bad)
    pages, errors = extract_pdf(tmp_path / "X.pdf")
    assert pages == [] or not any(p.text.strip() for p in pages)
    assert errors and errors[-1].page is None
