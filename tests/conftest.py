"""Shared fixtures: a tiny FinanceBench-shaped corpus written by the tests themselves."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pymupdf
import pytest

from fingap.answers.fact_store import FactStore, write_store
from fingap.answers.labels import Vocabulary
from fingap.ingestion.statement_tables import doc_facts

# doc -> list of page texts. Every page is distinct so each question has one best page.
TINY_DOCS = {
    "ACME_2022_10K": [
        "ACME Corporation Annual Report 2022. Table of Contents. Business overview and risks.",
        "Consolidated Statement of Cash Flows. Purchases of property, plant and equipment (PP&E) "
        "were $1,577 million in FY2022 compared with $1,373 million in FY2021.",
        "Consolidated Statement of Income. Net sales were $32,765 million; net income was $5,363 "
        "million. Diluted earnings per share (EPS) were $9.09.",
        "Legal proceedings and environmental matters. The company is party to several lawsuits.",
    ],
    "ACME_2023Q2_10Q": [
        "ACME Corporation Quarterly Report for the second quarter (Q2) of 2023.",
        "Operating margin improved to 21.5% in Q2 2023 from 19.8% a year earlier.",
        "Liquidity: cash and cash equivalents totalled $4,211 million at June 30, 2023.",
    ],
    "BOLT_2021_8K": [
        "BOLT Inc. Form 8-K. Item 2.02 Results of Operations and Financial Condition.",
        "BOLT announced a quarterly dividend of $0.42 per share payable in March 2021.",
    ],
}
MISSING_DOC = "ZETA_2020_10K"  # referenced by a question, but no PDF: excluded from scoring


def pytest_collection_modifyitems(config, items) -> None:
    """The e2e file first: under `make test`'s two workers (``--dist loadfile`` hands out
    files in collection order) it then starts at once, and every other file runs beside it."""
    items.sort(key=lambda item: item.nodeid.split("::")[0] != "tests/test_pipeline_e2e.py")


def _question(qid: str, doc: str, qtype: str, question: str, answer: str, pages: list[int],
              texts: list[str]) -> dict:
    return {
        "financebench_id": qid, "company": doc.split("_")[0], "doc_name": doc,
        "question_type": qtype, "question_reasoning": "Information extraction",
        "question": question, "answer": answer,
        "evidence": [{"evidence_text": texts[p][:80], "doc_name": doc, "evidence_page_num": p,
                      "evidence_text_full_page": texts[p]} for p in pages],
    }


def tiny_questions() -> list[dict]:
    a, q, b = (TINY_DOCS[d] for d in ("ACME_2022_10K", "ACME_2023Q2_10Q", "BOLT_2021_8K"))
    return [
        _question("q1", "ACME_2022_10K", "metrics-generated",
                  "What was ACME's FY2022 capital expenditure (purchases of PP&E)?",
                  "$1577.00", [1], a),
        _question("q2", "ACME_2022_10K", "domain-relevant",
                  "What were ACME's net sales and diluted EPS in 2022?", "$32,765 million; $9.09",
                  [2, 1, 2], a),  # multi-page gold with a duplicate entry
        _question("q3", "ACME_2023Q2_10Q", "novel-generated",
                  "What was ACME's operating margin in Q2 2023?", "21.5%", [1], q),
        _question("q4", "BOLT_2021_8K", "novel-generated",
                  "What quarterly dividend did BOLT announce?", "$0.42 per share", [1], b),
        _question("q5", MISSING_DOC, "metrics-generated", "What was ZETA's revenue?", "$1 million",
                  [0], ["ZETA revenue was $1 million."]),
    ]


def write_pdf(path: Path, pages: list[str]) -> None:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=11)
    doc.save(str(path))
    doc.close()


def make_corpus(root: Path) -> Path:
    """Write a FinanceBench-shaped corpus (data/*.jsonl, pdfs/*.pdf) under ``root``."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "pdfs").mkdir(exist_ok=True)
    for doc, pages in TINY_DOCS.items():
        write_pdf(root / "pdfs" / f"{doc}.pdf", pages)
    with open(root / "data" / "financebench_open_source.jsonl", "w") as f:
        for row in tiny_questions():
            f.write(json.dumps(row) + "\n")
    types = {"ACME_2022_10K": "10k", "ACME_2023Q2_10Q": "10q", "BOLT_2021_8K": "8k",
             MISSING_DOC: "10k"}
    with open(root / "data" / "financebench_document_information.jsonl", "w") as f:
        for doc, t in types.items():
            row = {"doc_name": doc, "company": doc.split("_")[0], "doc_type": t}
            f.write(json.dumps(row) + "\n")
    return root


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "financebench")


# A user's own corpus (corpus.layout: folder): the tiny filings under the user's file names, a
# metadata CSV with the user's column names, and one filing the metadata does not list, whose
# fields come from its cover page.
USER_NAMES = {"ACME_2022_10K": "acme-annual-2022", "ACME_2023Q2_10Q": "acme-q2-2023",
              "BOLT_2021_8K": "bolt-current-report", MISSING_DOC: "zeta-annual-2020"}
USER_FIELDS = {"doc": "file", "company": "issuer", "form": "filing",
               "period_end": "fiscal_period_end"}
COVER_DOC = "delta-annual-2021"
COVER_PAGES = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\nFORM 10-K\n"
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934\n"
    "For the fiscal year ended September 30, 2021\nCommission File Number 001-12345\n"
    "Delta Freight Lines, Inc.\n(Exact name of registrant as specified in its charter)",
    "Consolidated Statement of Income. Revenue was $812 million in fiscal 2021.",
    "Risk factors. Fuel prices and driver availability affect our results.",
    "Signatures.",
]


NO_GOLD_QUESTION = {"financebench_id": "u_delta", "doc_name": COVER_DOC,
                    "question": "What was Delta Freight Lines' revenue in fiscal 2021?"}


def make_user_corpus(root: Path) -> Path:
    """Write a user's own corpus (filings/*.pdf, metadata.csv, questions.jsonl) under root."""
    (root / "filings").mkdir(parents=True, exist_ok=True)
    for doc, pages in TINY_DOCS.items():
        write_pdf(root / "filings" / f"{USER_NAMES[doc]}.pdf", pages)
    write_pdf(root / "filings" / f"{COVER_DOC}.pdf", COVER_PAGES)
    # the metadata also lists a filing whose PDF the user has not got: its question is
    # counted but not scored, as FinanceBench's missing PDFs are
    rows = [("acme-annual-2022.pdf", "ACME Corporation", "10-K", "2022-12-31"),
            ("acme-q2-2023", "ACME Corporation", "10-Q", "06/30/2023"),
            ("bolt-current-report", "BOLT Inc.", "8-K", "March 1, 2021"),
            ("zeta-annual-2020", "ZETA", "10-K", "2020")]
    with open(root / "metadata.csv", "w", newline="") as f:
        csv.writer(f).writerows([("file", "issuer", "filing", "fiscal_period_end"), *rows])
    with open(root / "questions.jsonl", "w") as f:
        for row in tiny_questions():
            rename = USER_NAMES[row["doc_name"]]
            row = {**row, "doc_name": rename,
                   "evidence": [{**e, "doc_name": rename} for e in row["evidence"]]}
            f.write(json.dumps(row) + "\n")
        # a user's question without gold evidence or answer: retrieved and answered, not scored
        f.write(json.dumps(NO_GOLD_QUESTION) + "\n")
    return root


def user_corpus_params(root: Path) -> dict:
    """The ``corpus`` params of the corpus make_user_corpus wrote under ``root``."""
    return {"dir": str(root), "layout": "folder", "pdfs": "filings", "metadata": "metadata.csv",
            "metadata_fields": dict(USER_FIELDS), "questions": "questions.jsonl"}


@pytest.fixture
def user_corpus(tmp_path: Path) -> Path:
    return make_user_corpus(tmp_path / "my_filings")


@pytest.fixture(scope="session")
def minilm_tokenizer():
    from fingap.ingestion.chunking import load_tokenizer

    return load_tokenizer("minilm")


# A statement page drawn with positioned text, as filings print them: the label at the left,
# right-aligned value columns under year headers. ``rows`` are (label, [cells]) or a section
# title (label, None). Used by the table, gate and agent tests, and added to the e2e corpus.
STATEMENT_ROWS = [
    ("Cash Flows from Operating Activities", None),
    ("Net income", ["5,363", "4,869"]),
    ("Depreciation and amortization", ["1,488", "1,544"]),
    ("Net cash provided by operating activities", ["6,439", "6,240"]),
    ("Cash Flows from Investing Activities", None),
    ("Purchases of property, plant and", None),
    ("equipment (PP&E)", ["(1,577)", "(1,373)"]),
    ("Proceeds from sale of businesses", ["-", "1,065"]),
]


def draw_statement(page, title: str, years: list[str], rows: list, top: float = 60,
                   scale: str = "(Millions)", duration: str | None = "Years ended December 31",
                   col_x: tuple[float, ...] = (420.0, 500.0)) -> float:
    """Draw one statement on ``page``; returns the y below it (to stack a second one)."""
    page.insert_text((50, top), "ACME Corporation", fontsize=9)
    page.insert_text((50, top + 12), title, fontsize=9)
    y = top + 24
    if duration:
        page.insert_text((50, y), duration, fontsize=9)
        y += 12
    page.insert_text((50, y + 12), scale, fontsize=9)
    for x, year in zip(col_x[len(col_x) - len(years):], years, strict=True):
        page.insert_text((x - 20, y + 12), year, fontsize=9)  # headers over the last columns
    y += 30
    for label, cells in rows:
        page.insert_text((50, y), label, fontsize=9)
        for x, cell in zip(col_x, cells or [], strict=False):
            width = pymupdf.get_text_length(cell, fontsize=9)
            page.insert_text((x - width, y), cell, fontsize=9)
        y += 12
    return y + 20


def write_statement_pdf(path: Path, pages: list[list[dict]]) -> None:
    """Each page is a list of ``draw_statement`` keyword sets (one per statement on it)."""
    doc = pymupdf.open()
    for statements in pages:
        page = doc.new_page()
        top = 60.0
        for kw in statements:
            top = draw_statement(page, top=top, **kw)
    doc.save(str(path))
    doc.close()


def append_statement_page(pdf: Path) -> int:
    """Append a cash-flow statement page to an existing PDF; returns its 0-based page index."""
    doc = pymupdf.open(pdf)
    page = doc.new_page()
    draw_statement(page, "Consolidated Statement of Cash Flows", ["2022", "2021"],
                   STATEMENT_ROWS)
    n = doc.page_count - 1
    tmp = pdf.with_suffix(".tmp.pdf")
    doc.save(str(tmp))
    doc.close()
    tmp.replace(pdf)
    return n


# ---------------------------------------------------------------- a statement fact store
DOC = "ACME_2022_10K"
INCOME = [("Net sales", ["32,765", "31,000"]), ("Cost of sales", ["16,682", "16,000"]),
          ("Operating income", ["7,207", "6,800"]), ("Net income", ["5,363", "4,869"])]
BALANCE = [("Total current assets", ["14,000", "13,000"]),
           ("Total current liabilities", ["7,000", "6,500"]),
           ("Property, plant and equipment \u2014 net", ["8,738", "8,866"])]


@pytest.fixture
def statement_store(tmp_path):
    """Pages: 0 cover, 1 cash flows, 2 income statement + balance sheet."""
    pdf = tmp_path / f"{DOC}.pdf"
    write_statement_pdf(pdf, [
        [],
        [dict(title="Consolidated Statement of Cash Flows", years=["2022", "2021"],
              rows=STATEMENT_ROWS)],
        [dict(title="Consolidated Statement of Income", years=["2022", "2021"], rows=INCOME),
         dict(title="Consolidated Balance Sheet", years=["2022", "2021"], rows=BALANCE,
              duration="At December 31")],
    ])
    with pymupdf.open(pdf) as d:
        texts = {(DOC, i): p.get_text() for i, p in enumerate(d)}
    facts, _, _ = doc_facts(pdf, DOC, {p: t for (_, p), t in texts.items()})
    write_store(tmp_path / "facts.sqlite", facts, Vocabulary.load())
    with FactStore(tmp_path / "facts.sqlite") as store:
        yield store, texts


# ---------------------------------------------------------------- a local Ray cluster
@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster for the session's Ray tests (compute.engine: ray); fingap's own
    jobs find it running and leave it up. The ray extra is installed by the test set-up."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()
