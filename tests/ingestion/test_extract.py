from fingap.ingestion.alignment import check_alignment, normalise_for_alignment
from fingap.ingestion.corpus import build_manifest
from fingap.ingestion.extract import extract_pdf

from ..conftest import TINY_DOCS, write_pdf


def test_extracts_one_record_per_page_zero_based(tiny_corpus):
    pages, errors = extract_pdf(tiny_corpus / "pdfs" / "ACME_2022_10K.pdf")
    assert errors == []
    assert [p.page for p in pages] == [0, 1, 2, 3]
    assert "Purchases of property" in pages[1].text
    assert pages[1].n_chars == len(pages[1].text)


def test_broken_pdf_is_reported_not_raised(tmp_path):
    bad = tmp_path / "BROKEN.pdf"
    bad.write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    pages, errors = extract_pdf(bad)
    assert pages == [] and len(errors) == 1
    assert errors[0].doc == "BROKEN" and errors[0].reason


def test_gold_alignment_detects_shifted_pages(tiny_corpus, tmp_path):
    _, questions = build_manifest(tiny_corpus)
    texts, counts = {}, {}
    for doc in TINY_DOCS:
        pages, _ = extract_pdf(tiny_corpus / "pdfs" / f"{doc}.pdf")
        texts.update({(p.doc, p.page): p.text for p in pages})
        counts[doc] = len(pages)
    records = check_alignment(questions, texts, counts)
    assert len(records) == 6  # q5's document is absent: not checked
    assert all(r["aligned"] for r in records)
    # a parser that shifts ACME's pages by one must show up as misalignment
    shifted = {(d, p + 1 if d == "ACME_2022_10K" else p): t for (d, p), t in texts.items()}
    counts2 = dict(counts, ACME_2022_10K=counts["ACME_2022_10K"] + 1)
    records2 = check_alignment(questions, shifted, counts2)
    assert not any(r["aligned"] for r in records2 if r["doc"] == "ACME_2022_10K")


def test_alignment_reports_out_of_range_page(tiny_corpus):
    _, questions = build_manifest(tiny_corpus)
    q = next(q for q in questions if q.id == "q4")
    q.evidence[0].page = 99
    records = check_alignment([q], {}, {"BOLT_2021_8K": 2})
    assert records[0]["aligned"] is False and "out of range" in records[0]["reason"]


def test_normalisation_drops_non_ascii_and_whitespace():
    assert normalise_for_alignment("Cost\u00a0of goods\n sold") == "Costofgoodssold"


def test_write_pdf_roundtrip(tmp_path):
    write_pdf(tmp_path / "X.pdf", ["hello world"])
    pages, _ = extract_pdf(tmp_path / "X.pdf")
    assert pages[0].text.strip() == "hello world"
