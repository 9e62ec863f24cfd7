import pytest

from fingap.ingestion.documents import (
    DocumentRecord,
    MetadataError,
    cover_document,
    merge,
    normalise_form,
    normalise_period,
    read_metadata,
)


def test_forms_and_periods_normalise():
    assert [normalise_form(f) for f in ("10-K", "10k", "10k_annualreport", "10-Q", "8-K",
                                        "earnings", "20-F", "")] == \
        ["10K", "10K", "10K", "10Q", "8K", "EARNINGS", "20F", ""]
    assert [normalise_period(p) for p in ("2022-12-31", "12/31/2022", "December 31, 2022",
                                          "Sept. 30, 2021", 2015, "", None)] == \
        ["2022-12-31", "2022-12-31", "2022-12-31", "2021-09-30", "2015", "", ""]
    with pytest.raises(ValueError, match="not a date or a year: 'Q4'"):
        normalise_period("Q4")
    assert DocumentRecord("d", period_end="2021-09-30").year == 2021
    assert DocumentRecord("d").year is None


def test_metadata_csv_with_the_users_column_names(tmp_path):
    path = tmp_path / "meta.csv"
    path.write_text("file,issuer,filing,end\nacme.pdf,Acme Inc.,10-K,2022-12-31\n"
                    "bolt,Bolt,,\n")
    fields = {"doc": "file", "company": "issuer", "form": "filing", "period_end": "end"}
    docs = read_metadata(path, fields)
    assert docs["acme"] == DocumentRecord("acme", "Acme Inc.", "10K", "2022-12-31")
    assert docs["bolt"] == DocumentRecord("bolt", "Bolt", "", "")  # the cover may fill them


def test_metadata_errors_name_file_line_and_column(tmp_path):
    path = tmp_path / "meta.jsonl"
    path.write_text('{"doc_name": "a", "doc_period": 2020}\n{"doc_name": "", "company": "x"}\n')
    with pytest.raises(MetadataError, match=r"meta.jsonl:2: no value in column 'doc_name' "
                                            r"\(corpus.metadata_fields.doc\)"):
        read_metadata(path)
    path.write_text('{"doc_name": "a", "doc_period": "Q4 2020"}\n')
    with pytest.raises(MetadataError, match=r"meta.jsonl:1: column 'doc_period'.*Q4 2020"):
        read_metadata(path)
    path.write_text('{"doc_name": "a", "company": "A"}\n{"doc_name": "a", "company": "A"}\n'
                    '{"doc_name": "a", "company": "B"}\n')
    with pytest.raises(MetadataError, match=r":3: document a listed again.*first on line 1"):
        read_metadata(path)
    assert read_metadata(path, repeats="last")["a"].company == "B"  # FinanceBench's reading
    with pytest.raises(MetadataError, match="corpus.metadata_fields.ticker: unknown field"):
        read_metadata(path, {"ticker": "symbol"})
    (tmp_path / "meta.xlsx").write_text("")
    with pytest.raises(MetadataError, match=r"\.csv or \.jsonl"):
        read_metadata(tmp_path / "meta.xlsx")


COVER = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)
For the quarterly period ended
June 30, 2023
Commission File Number 1-2345
Acme Widgets, Inc.
(Exact name of registrant as specified in its charter)
Delaware"""


def test_the_cover_page_gives_form_period_and_registrant():
    rec = cover_document("x", COVER)
    assert rec == DocumentRecord("x", "Acme Widgets, Inc.", "10Q", "2023-06-30", "cover")
    current = "FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): " \
              "March 1, 2021\nBolt Inc.\n(Exact name of registrant as specified in its charter)"
    assert cover_document("y", current) == DocumentRecord("y", "Bolt Inc.", "8K", "2021-03-01",
                                                          "cover")
    # an earnings release prints none of them
    assert cover_document("z", "Q2 results: revenue up 4%") == DocumentRecord("z",
                                                                              source="cover")


def test_metadata_wins_and_the_cover_fills_its_gaps():
    cover = DocumentRecord("x", "Acme Widgets, Inc.", "10Q", "2023-06-30", "cover")
    assert merge(None, cover) == cover
    assert merge(DocumentRecord("x", "Acme", "", ""), cover) == DocumentRecord(
        "x", "Acme", "10Q", "2023-06-30", "metadata+cover")
    full = DocumentRecord("x", "Acme", "10K", "2022")
    assert merge(full, cover) == full
