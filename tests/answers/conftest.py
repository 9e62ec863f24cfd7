"""A fact store built from a statement PDF the tests draw themselves."""

from __future__ import annotations

import pymupdf
import pytest

from fingap.answers.fact_store import FactStore, write_store
from fingap.answers.labels import Vocabulary
from fingap.answers.tables import doc_facts

from ..conftest import STATEMENT_ROWS, write_statement_pdf

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
