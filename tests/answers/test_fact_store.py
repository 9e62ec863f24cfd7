import pytest

from fingap.answers.fact_store import FactStore
from fingap.ingestion.statement_tables import doc_year, fiscal_year_offset

from ..conftest import DOC


def test_store_is_queried_by_concept_label_and_year(statement_store):
    store, _ = statement_store
    capex = store.query(doc=DOC, concept="capex", fiscal_year=2022)
    assert [(f["page"], f["value"], f["statement"]) for f in capex] == [(1, -1577.0, "cash_flow")]
    by_label = store.query(doc=DOC, label="property, plant & equipment - net")
    assert {f["fiscal_year"] for f in by_label} == {2021, 2022}
    assert store.query(pages=[(DOC, 2)], concept="revenue")[0]["label"] == "Net sales"
    assert store.query(pages=[]) == []


def test_fiscal_year_offset_from_document_name():
    assert doc_year("BESTBUY_2024Q2_10Q") == 2024 and doc_year("3M_2018_10K") == 2018
    assert fiscal_year_offset("BESTBUY_2024Q2_10Q", [2023, 2022]) == 1
    assert fiscal_year_offset("3M_2018_10K", [2018, 2017, 2016]) == 0
    assert fiscal_year_offset("ODD_2018_10K", [2011]) == 0  # implausible: no shift
    assert fiscal_year_offset("NOYEAR", [2020]) == 0


def test_missing_store_names_the_stage(tmp_path):
    with pytest.raises(FileNotFoundError, match="dvc repro tables"):
        FactStore(tmp_path / "nope.sqlite")


def test_a_row_read_as_an_amount_is_no_per_share_line_item(tmp_path):
    from fingap.answers.fact_store import write_store
    from fingap.answers.labels import Vocabulary

    base = {"doc": DOC, "page": 3, "table": 0, "statement": "income", "year": 2022,
            "fiscal_year": 2022, "duration": "12M", "period_end": "Dec", "end_date": None,
            "column": 0, "n_columns": 1, "percent": False, "label": "Diluted"}
    eps = {**base, "section": "Earnings per share", "value": 2.4, "printed": "2.40",
           "scale": None}
    count = {**base, "section": "Weighted-average shares outstanding", "value": 771.0,
             "printed": "771", "scale": "millions"}
    write_store(tmp_path / "facts.sqlite", [eps, count], Vocabulary.load())
    with FactStore(tmp_path / "facts.sqlite") as store:
        assert [f["value"] for f in store.query(doc=DOC, concept="eps_diluted")] == [2.4]
        assert len(store.query(doc=DOC, label="diluted")) == 2


def test_a_loss_headed_row_is_its_income_line_only_where_printed_negative(tmp_path):
    """'Net loss' printed (171,590) is net income of -171,590; printed as a positive amount it
    would give net income the wrong sign, and a pension table's 'Net loss/(gain)' is no
    income line at all."""
    from fingap.answers.fact_store import write_store
    from fingap.answers.labels import Vocabulary

    base = {"doc": DOC, "page": 3, "table": 0, "statement": "income", "section": "",
            "year": 2016, "fiscal_year": 2016, "duration": "12M", "period_end": "Dec",
            "end_date": None, "column": 0, "n_columns": 1, "percent": False,
            "scale": "thousands"}
    rows = [{**base, "label": "Net loss", "value": -171590.0, "printed": "(171,590)"},
            {**base, "label": "Loss from operations", "value": -3547.0, "printed": "(3,547)"},
            {**base, "label": "Loss before income tax", "value": 5.0, "printed": "5"},
            {**base, "label": "Net loss/(gain)", "value": -3.0, "printed": "(3)"},
            {**base, "label": "Net loss", "value": -9.0, "printed": "(9)", "statement": "table"}]
    write_store(tmp_path / "facts.sqlite", rows, Vocabulary.load())
    with FactStore(tmp_path / "facts.sqlite") as store:
        assert [f["value"] for f in store.query(doc=DOC, concept="net_income")] == [-171590.0]
        assert [f["value"] for f in store.query(doc=DOC, concept="operating_income")] == \
            [-3547.0]
        assert store.query(doc=DOC, concept="pretax_income") == []
