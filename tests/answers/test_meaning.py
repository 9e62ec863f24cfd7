import ast
from contextlib import contextmanager
from dataclasses import replace

import pymupdf
import pytest

from fingap.answers.fact_store import FactStore, write_store
from fingap.answers.labels import Vocabulary
from fingap.answers.meaning import (
    GateParams,
    MeaningGate,
    aside_clauses,
    every_input_reason,
    plausibility_reason,
    printed_forms,
    qualifiers_asked,
    question_duration,
    shape_reason,
    structure_accounts,
    unexplained_words,
)
from fingap.answers.question import parse_question
from fingap.answers.resolver import content_stems, gloss_phrase, stem
from fingap.ingestion.statement_tables import doc_facts

from ..conftest import DOC

QDOC = "ACME_2023Q2_10Q"


def _input(name, concept, label, value, page, year=2022, statement="balance_sheet", doc=DOC):
    return {"name": name, "concept": concept, "label": label, "printed": f"{value:,.0f}",
            "value": value, "scale": "millions", "fiscal_year": year, "year": year,
            "duration": None, "statement": statement, "doc": doc, "page": page,
            "source": "retrieved", "magnitude": False}


@pytest.fixture
def gate(statement_store):
    store, texts = statement_store
    return MeaningGate(store, texts, Vocabulary.load(), GateParams("minilm", 0.7, 0.1))


def test_the_neighbouring_row_is_caught_even_when_the_chooser_prefers_it(statement_store):
    # a threshold the neighbour's own score passes: the other row's lead alone catches it
    store, texts = statement_store
    gate = MeaningGate(store, texts, Vocabulary.load(), GateParams("minilm", 0.5, 0.1))
    q = "What were ACME's total current liabilities at the end of FY2022? USD millions."
    pq = parse_question(q)
    right = _input("total_current_liabilities__fy2022", "total_current_liabilities",
                   "Total current liabilities", 7000.0, 2)
    assert gate.check(q, pq, [right], 7000.0, 7000.0).passed
    # the row above, as a chooser that preferred it would cite it
    wrong = right | {"label": "Total current assets", "value": 14000.0, "printed": "14,000"}
    g = gate.check(q, pq, [wrong], 14000.0, 14000.0)
    assert not g.passed and g.confidence == 0.0
    assert any("another row on the page matches" in r for r in g.reasons), g.reasons


def test_a_label_far_from_the_operand_fails_the_threshold(gate):
    q = "What was ACME's FY2022 operating income? USD millions."
    pq = parse_question(q)
    cited = _input("operating_income__fy2022", "operating_income", "Net sales", 32765.0, 2,
                   statement="income")
    g = gate.check(q, pq, [cited], 32765.0, 32765.0)
    assert not g.passed and any("does not match" in r or "better" in r for r in g.reasons)


CURRENT_RATIO = "What is ACME's FY2022 current ratio? Round to two decimal places."
CURRENT_INPUTS = [_input("total_current_assets__fy2022", "total_current_assets",
                         "Total current assets", 14000.0, 2),
                  _input("total_current_liabilities__fy2022", "total_current_liabilities",
                         "Total current liabilities", 7000.0, 2)]


def test_a_verified_answer_carries_its_lowest_label_score(gate):
    g = gate.check(CURRENT_RATIO, parse_question(CURRENT_RATIO), CURRENT_INPUTS, 2.0, 2.0)
    assert g.passed and g.confidence == pytest.approx(min(g.labels.values()))
    assert 0.7 <= g.confidence <= 1.0


@pytest.fixture
def quarterly_gate(tmp_path):
    """A 10-Q income statement: three- and six-month columns under their own headers, and a
    balance sheet with an "Other current assets" row."""
    pdf = tmp_path / f"{QDOC}.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 60), "ACME Corporation", fontsize=9)
    page.insert_text((50, 72), "Condensed Consolidated Statements of Income", fontsize=9)
    page.insert_text((330, 90), "Three Months Ended", fontsize=9)
    page.insert_text((470, 90), "Six Months Ended", fontsize=9)
    for x, year in zip((330, 390, 470, 530), ("2023", "2022", "2023", "2022"), strict=True):
        page.insert_text((x, 102), year, fontsize=9)
    page.insert_text((50, 114), "(Millions)", fontsize=9)
    for y, (label, cells) in enumerate([("Net sales", ["9,583", "10,329", "19,050", "20,976"]),
                                        ("Operating income", ["348", "371", "659", "833"])]):
        page.insert_text((50, 130 + 12 * y), label, fontsize=9)
        for x, cell in zip((350, 410, 490, 550), cells, strict=True):
            page.insert_text((x - pymupdf.get_text_length(cell, fontsize=9), 130 + 12 * y),
                             cell, fontsize=9)
    page = doc.new_page()
    page.insert_text((50, 60), "Condensed Consolidated Balance Sheets", fontsize=9)
    page.insert_text((420, 84), "2023", fontsize=9)
    page.insert_text((480, 84), "2022", fontsize=9)
    page.insert_text((50, 96), "(Millions)", fontsize=9)
    for y, (label, cells) in enumerate([("Other current assets", ["500", "450"]),
                                        ("Total current assets", ["9,000", "8,000"])]):
        page.insert_text((50, 112 + 12 * y), label, fontsize=9)
        for x, cell in zip((440, 500), cells, strict=True):
            page.insert_text((x - pymupdf.get_text_length(cell, fontsize=9), 112 + 12 * y),
                             cell, fontsize=9)
    doc.save(str(pdf))
    doc.close()
    with _gate_over(pdf, QDOC, tmp_path) as gate:
        yield gate


@contextmanager
def _gate_over(pdf, doc, tmp_path):
    """A meaning gate over the fact store read from one test PDF."""
    with pymupdf.open(pdf) as d:
        texts = {(doc, i): p.get_text() for i, p in enumerate(d)}
    facts, _, _ = doc_facts(pdf, doc, {p: t for (_, p), t in texts.items()})
    write_store(tmp_path / "facts.sqlite", facts, Vocabulary.load())
    with FactStore(tmp_path / "facts.sqlite") as store:
        yield MeaningGate(store, texts, Vocabulary.load(), GateParams("minilm", 0.7, 0.1))


def test_the_column_of_another_duration_is_caught(quarterly_gate):
    q = "What were ACME's net sales for the six months ended June 30, 2023? USD millions."
    pq = parse_question(q)
    assert question_duration(q, pq) == "6M"
    six = _input("revenue__fy2023", "revenue", "Net sales", 19050.0, 0, 2023, "income", QDOC)
    three = six | {"value": 9583.0, "printed": "9,583"}
    assert quarterly_gate.check(q, pq, [six], 19050.0, 19050.0).passed
    g = quarterly_gate.check(q, pq, [three], 9583.0, 9583.0)
    assert not g.passed and any("the column is 3M, 6M asked" in r for r in g.reasons), g.reasons


def test_the_gate_reads_the_asked_duration_over_the_filings_name():
    q = ("Based on ACME's 10-Q for the second quarter of 2023, what were its net sales for the "
         "six months ended June 30, 2023?")
    pq = parse_question(q)
    assert question_duration(q, pq) == "6M"


def test_a_residual_row_is_not_the_line_item_asked(quarterly_gate):
    q = "What were ACME's total current assets at June 30, 2023? USD millions."
    pq = parse_question(q)
    other = _input("total_current_assets__fy2023", "total_current_assets",
                   "Other current assets", 500.0, 1, 2023, doc=QDOC)
    g = quarterly_gate.check(q, pq, [other], 500.0, 500.0)
    assert not g.passed and any("residual" in r or "better" in r for r in g.reasons), g.reasons


def test_a_flow_cited_from_a_balance_and_a_balance_from_a_flow(gate):
    q = "What was ACME's FY2022 operating cash flow? USD millions."
    pq = parse_question(q)
    cfo = _input("cfo__fy2022", "cfo", "Net cash provided by operating activities", 6439.0, 1,
                 statement="cash_flow")
    assert gate.check(q, pq, [cfo], 6439.0, 6439.0).passed
    q2 = "What were ACME's total current assets at the end of FY2022? USD millions."
    pq2 = parse_question(q2)
    # a balance concept cited from a row under a twelve-month header
    flow = _input("total_current_assets__fy2022", "total_current_assets", "Net income",
                  5363.0, 1, statement="cash_flow")
    g = gate.check(q2, pq2, [flow], 5363.0, 5363.0)
    assert not g.passed and any("a balance is asked" in r for r in g.reasons), g.reasons



def test_a_charge_of_the_period_is_not_read_from_a_balance(gate):
    q = ("What was ACME's non-cash wear-and-tear charge on its fixed assets in FY2022, as added "
         "back in the cash flow statement? USD millions.")
    pq = replace(parse_question(q), inputs=[("ppe_net", 2022)], expression="ppe_net__fy2022",
                 phrases={"ppe_net": "non cash wear and tear charge on its fixed assets"})
    ppe = _input("ppe_net__fy2022", "ppe_net", "Property, plant and equipment, net", 4000.0, 0)
    g = gate.check(q, pq, [ppe], 4000.0, 4000.0)
    assert any("a charge of the period" in r for r in g.reasons), g.reasons


def test_a_row_off_the_statement_the_question_names(gate):
    q = ("Using only the cash flow statement, what was ACME's FY2022 cost of sales? USD "
         "millions.")
    pq = parse_question(q)
    label_input = _input("row_cost_sales__fy2022", "row_cost_sales", "Cost of sales", 16682.0,
                         2, statement="income")
    pq.labels["row_cost_sales"] = "cost of sales"
    g = gate.check(q, pq, [label_input], 16682.0, 16682.0)
    assert any("the row sits on income" in r for r in g.reasons), g.reasons


def test_the_one_statement_named_belongs_to_the_input_read_there(gate):
    # "... plus the D&A added back in the cash flow statement": the statement named holds the
    # D&A; the profit the question describes in its own words is read from the income statement
    q = ("What was ACME's FY2022 EBITDA, taken as its profit from operations plus the D&A "
         "added back in the cash flow statement? USD millions.")
    pq = parse_question(q)
    profit = _input("row_profit_operations__fy2022", "row_profit_operations", "Operating income",
                    7207.0, 2, statement="income")
    pq.labels["row_profit_operations"] = "profit from operations"
    da = _input("depreciation_amortization__fy2022", "depreciation_amortization",
                "Depreciation and amortization", 1488.0, 1, statement="cash_flow")
    g = gate.check(q, pq, [profit, da], 8695.0, 8695.0)
    assert not any("the row sits on" in r for r in g.reasons), g.reasons
    # with no input read on the statement named, the row off it is still reported
    g = gate.check(q, pq, [profit], 7207.0, 7207.0)
    assert any("the row sits on income" in r for r in g.reasons), g.reasons


def test_coverage_finds_what_the_parse_left_out():
    vocab = Vocabulary.load()
    q = ("How much did ACME spend on capital improvement of fixed assets during the year ended "
         "December 31, 2022? USD millions.")
    pq = parse_question(q)
    # money spent on fixed assets is read as capex (``spent_as``); capex's meaning (capital
    # spending) accounts for "capital", but neither a term nor its meaning holds "improvement"
    assert pq.inputs and pq.inputs[0][0] == "capex"
    left = set(unexplained_words(q, pq, vocab, {DOC}))
    assert "improvement" in left and "capital" not in left
    q2 = "What was ACME's FY2022 operating income before restructuring charges? USD millions."
    assert {"before", "restructuring"} <= set(unexplained_words(q2, parse_question(q2), vocab,
                                                                {DOC}))
    ok = "What was ACME's FY2022 net income? USD millions."
    assert unexplained_words(ok, parse_question(ok), vocab, {DOC}) == []
    # the verb of how an amount came about names no line item; the noun it governs does
    for ok in ("How much net income did ACME earn for its own shareholders in FY2022?",
               "How much cash did ACME put into capital expenditures in FY2022?",
               "How much did ACME hand out in dividends paid in FY2022?"):
        assert unexplained_words(ok, parse_question(ok), vocab, {DOC}) == [], ok
    # a qualifier the line item's own meaning words the same way ("after accumulated
    # depreciation": net PP&E is "at cost less accumulated depreciation"); not another one
    ok = ("What was the carrying value of ACME's property, plant and equipment after accumulated "
          "depreciation at December 31, 2022?")
    assert unexplained_words(ok, parse_question(ok), vocab, {DOC}) == []
    q4 = ("What was the carrying value of ACME's property, plant and equipment after impairment "
          "charges at December 31, 2022?")
    assert "after" in unexplained_words(q4, parse_question(q4), vocab, {DOC})
    # ... and in the question's own words, accounted for by the net row that was read
    q5 = ("What was the carrying value of ACME's land, buildings and machinery after subtracting "
          "accumulated depreciation at December 31, 2022?")
    pq5 = parse_question(q5)
    assert pq5.figure and "__fy2022" in pq5.expression and "-" not in pq5.expression
    assert unexplained_words(q5, pq5, vocab, {DOC},
                             printed=["Property, plant and equipment, net"]) == []
    assert "accumulated" in unexplained_words(q5, pq5, vocab, {DOC},
                                              printed=["Property, plant and equipment"])
    # numbers taken out of the asked phrase leave no offset between its words and its terms
    ok = ("What is 365 times the mean of accounts receivable at December 31, 2021 and "
          "December 31, 2022, divided by the year's revenue?")
    assert unexplained_words(ok, parse_question(ok), vocab, {DOC}) == []
    q3 = "How much cash did ACME hand out to its shareholders as dividend distributions in FY2022?"
    assert "dividend" in unexplained_words(q3, parse_question(q3), vocab, {DOC})


def test_shape_and_plausibility():
    q = "How many dollars of sales did each dollar of ACME's assets generate in FY2022?"
    assert "ratio" in shape_reason(q, "usd")
    assert shape_reason("What was ACME's FY2022 revenue in USD millions?", "usd") is None
    assert shape_reason("What was ACME's FY2022 revenue in USD millions?", "percent")
    # a question sentence that only refers back asks what the words before it describe
    lead = ("ACME's operating cash flow for fiscal 2022, expressed as a multiple of its "
            "short-term obligations: what is it, rounded to two decimals?")
    assert "ratio" in shape_reason(lead, "usd")
    assert shape_reason("ACME's revenue for fiscal 2022: what was it, in USD millions?",
                        "usd") is None
    gm = "What is ACME's FY2022 gross margin?"
    pq = parse_question(gm)
    assert plausibility_reason(pq, gm, 120.0, [])
    assert plausibility_reason(pq, gm, 45.0, []) is None
    share = "What share of ACME's FY2022 net sales was cost of sales?"
    pq = replace(parse_question(share), unit="percent", metric="definition")
    parts = [{"value": 1.0}, {"value": 2.0}]
    assert plausibility_reason(pq, share, 150.0, parts) and \
        plausibility_reason(pq, share, 50.0, parts) is None


def test_an_answer_from_another_companys_filing_is_caught(gate):
    from fingap.answers.meaning import companies_named

    docs = {"ADOBE_2017_10K", "WALMART_2018_10K", "JOHNSON_JOHNSON_2022_10K", "3M_2018_10K"}
    assert companies_named("What is Adobe's FY2017 operating cash flow ratio?", docs) == {"adobe"}
    assert companies_named("Johnson & Johnson's sales?", docs) == {"johnsonjohnson"}
    assert companies_named("What was $23m of capex?", docs) == set()  # no "3m" in "23m"
    assert gate.check(CURRENT_RATIO, parse_question(CURRENT_RATIO), CURRENT_INPUTS, 2.0,
                      2.0).passed
    other = CURRENT_RATIO.replace("ACME", "Globex")
    gate._corpus_docs = [DOC, "GLOBEX_2022_10K"]
    g = gate.check(other, parse_question(other), CURRENT_INPUTS, 2.0, 2.0)
    assert any("the question asks about globex" in r for r in g.reasons), g.reasons


def test_the_variant_of_a_line_item_the_question_asks_for():
    from fingap.answers.meaning import qualifiers_asked, qualifiers_of

    assert qualifiers_asked("What was ACME's FY2022 net income?") == {"parent"}
    assert qualifiers_asked("net income including noncontrolling interests") == set()
    # continuing plus discontinued operations is the total
    assert qualifiers_asked("operating cash flow (continuing plus discontinued operations)") == \
        {"parent"}
    assert qualifiers_asked("net income from continuing operations") == {"parent", "continuing"}
    assert qualifiers_of("Net income attributable to ACME Corp.") == {"parent"}
    assert qualifiers_of("Net income attributable to noncontrolling interests") == set()
    assert qualifiers_of("Net cash provided by operating activities from continuing "
                         "operations") == {"continuing"}


def test_the_latest_column_ends_where_the_question_dates_its_period():
    from fingap.answers.gate import ColumnHeader
    from fingap.answers.meaning import period_end_reason

    q = "ACME, first half of fiscal 2024 (six months ended July 29, 2023): capex as a % of sales?"
    assert period_end_reason(q, [ColumnHeader(2023, "6M", "Jul")]) is None
    # the same half a year earlier, printed beside it: another period
    assert "ends in Jul 2022" in period_end_reason(q, [ColumnHeader(2022, "6M", "Jul")])
    # a 52/53-week year ending at a month's turn, and a column headed by its fiscal year
    q2 = "What were ACME's total current assets at the end of fiscal 2022 (January 1, 2023)?"
    assert period_end_reason(q2, [ColumnHeader(2022, None, "Dec")]) is None
    assert period_end_reason(q2, [ColumnHeader(2022, None, None)]) is None
    assert period_end_reason("What was ACME's FY2022 revenue?", [ColumnHeader(2021)]) is None
    # years listed after a date end on its day: the latest is the one the columns must reach
    q3 = ("Over ACME's fiscal years ended May 31, 2016, 2017 and 2018, what was its average "
          "gross margin?")
    assert period_end_reason(q3, [ColumnHeader(2018, None, "May")]) is None
    assert "ends in May 2019" in period_end_reason(q3, [ColumnHeader(2019, None, "May")])


def test_a_balance_stands_at_one_of_the_dates_the_question_names():
    from fingap.answers.gate import ColumnHeader
    from fingap.answers.meaning import dated_balance_reason
    from fingap.answers.question import dates_named

    q = ("ACME's return on equity over the six months ended July 29, 2023, on the average of "
         "its equity at January 28, 2023 and July 29, 2023?")
    assert dated_balance_reason(dates_named(q), ColumnHeader(2023, None, "Jul")) is None
    assert dated_balance_reason(dates_named(q), ColumnHeader(2023, None, "Jan")) is None
    dates = dates_named(q)
    assert dated_balance_reason(dates, ColumnHeader(2023, None, "Feb")) is None  # 53 weeks
    # the year-ago quarter-end a 10-Q prints beside them: its month is one named, not its year
    assert "stands at Jul 2022" in dated_balance_reason(dates, ColumnHeader(2022, None, "Jul"))
    # one date named: the other balance (the year's start) is the question's to imply
    one = "ACME's return on equity for the six months ended July 29, 2023, on average equity?"
    assert dated_balance_reason(dates_named(one), ColumnHeader(2022, None, "Jul")) is None
    assert dated_balance_reason(dates, ColumnHeader(2022)) is None  # no month printed: not judged


def test_a_row_of_a_non_gaap_reconciliation_is_not_a_statement_figure(tmp_path):
    doc = "ACME_2022Q4_EARNINGS"
    pdf = tmp_path / f"{doc}.pdf"
    d = pymupdf.open()
    page = d.new_page()
    page.insert_text((50, 60), "RECONCILIATIONS OF NET REVENUES TO ADJUSTED NET REVENUES",
                     fontsize=9)
    page.insert_text((50, 72), "Years Ended December 31", fontsize=9)
    page.insert_text((420, 84), "2022", fontsize=9)
    page.insert_text((480, 84), "2021", fontsize=9)
    page.insert_text((50, 96), "(Millions)", fontsize=9)
    page.insert_text((50, 112), "Net revenues", fontsize=9)
    for x, cell in ((440, "5,000"), (500, "4,000")):
        page.insert_text((x - pymupdf.get_text_length(cell, fontsize=9), 112), cell, fontsize=9)
    d.save(str(pdf))
    d.close()
    with pymupdf.open(pdf) as opened:
        texts = {(doc, 0): opened[0].get_text()}
    facts, _, _ = doc_facts(pdf, doc, {0: texts[(doc, 0)]})
    write_store(tmp_path / "facts.sqlite", facts, Vocabulary.load())
    with FactStore(tmp_path / "facts.sqlite") as store:
        gate = MeaningGate(store, texts, Vocabulary.load(), GateParams("minilm", 0.7, 0.1))
        q = "What were ACME's FY2022 net revenues? USD millions."
        inp = _input("revenue__fy2022", "revenue", "Net revenues", 5000.0, 0, statement="table",
                     doc=doc)
        pq = parse_question(q)
        g = gate.check(q, pq, [inp], 5000.0, 5000.0)
        assert any("reconciles adjusted" in r for r in g.reasons), g.reasons
        adjusted = "What were ACME's FY2022 adjusted net revenues? USD millions."
        g = gate.check(adjusted, pq, [inp], 5000.0, 5000.0)
        assert not any("reconciles adjusted" in r for r in g.reasons)


def test_the_fact_stores_reading_of_the_period_beside_the_gates():
    from fingap.answers.gate import ColumnHeader
    from fingap.answers.meaning import store_end_reason, store_period_reason
    from fingap.answers.question import ParsedQuestion

    column = ColumnHeader(year=2023, month="Jun", duration="6M")
    assert store_period_reason({"duration": "6M"}, column) is None
    assert "reads its column as 3M" in store_period_reason({"duration": "3M"}, column)
    assert store_period_reason({"duration": None}, column) is None
    pq = ParsedQuestion(True, dates=["2023-07-02"])
    # the latest input ends on the date asked; the year before is an earlier period by design
    both = [{"end_date": "2023-07-02"}, {"end_date": "2022-07-03"}]
    assert store_end_reason(both, pq) is None
    # a neighbouring month's turn is the same period end
    assert store_end_reason([{"end_date": "2023-06-30"}], pq) is None
    assert "ends on 2022-12-31" in store_end_reason([{"end_date": "2022-12-31"}], pq)
    assert store_end_reason([{"end_date": "2020-12-31"}], ParsedQuestion(True)) is None


def test_coverage_lets_words_no_label_prints_pass_but_not_operations_or_names():
    vocab = Vocabulary.load()
    labels = frozenset({"cash", "operat", "activit", "provid", "net", "equivalent", "common",
                        "stock", "repurchas"})
    q = ("How much cash did ACME's operations rake in during the year ended December 31, 2022? "
         "USD millions.")
    pq = parse_question(q)
    assert pq.inputs and pq.inputs[0][0] == "cfo"
    # without the corpus's labels every unknown word is left over; with them, words no
    # printed label holds ("rake") cannot name another line item
    assert {"rake"} <= set(unexplained_words(q, pq, vocab, {DOC}))
    assert unexplained_words(q, pq, vocab, {DOC}, labels) == []
    # an operation word or a name the question capitalises is left over either way
    excl = ("How much cash did ACME's operations generate in FY2022, leaving out what it "
            "earned from Globex? USD millions.")
    left = set(unexplained_words(excl, parse_question(excl), vocab, {DOC}, labels))
    assert {"leaving", "globex"} <= left
    # a capitalised word right after the company's name is part of it ("JPMorgan Chase's")
    named = "How much cash did ACME Chase's operations generate in FY2022? USD millions."
    assert unexplained_words(named, parse_question(named), vocab, {DOC}, labels) == []


def test_gate_reads_the_corpus_label_stems_from_the_store(statement_store):
    store, texts = statement_store
    gate = MeaningGate(store, texts, Vocabulary.load())
    stems = gate.label_stems
    assert "cash" in stems and "throw" not in stems
    assert stem("sales") in stems and stem("depreciation") in stems
    assert stems == frozenset().union(*(content_stems(label) for label in store.labels()))


def test_coverage_reads_a_period_phrase_as_a_period():
    q = ("ACME's fiscal year ended June 30, 2023: how much did the top line grow over the prior "
         "fiscal year, in percent to two decimals?")
    pq = parse_question(q)
    assert unexplained_words(q, pq, Vocabulary.load(), {DOC}) == []


def test_whose_share_a_row_is_does_not_make_it_the_line_item_asked(gate):
    # "equity attributable to shareholders" shares every word of "profit attributable to
    # shareholders" but its line item; the label check scores the line items alone
    q = "What was ACME's FY2022 profit attributable to its shareholders? USD millions."
    pq = parse_question(q)
    (name,) = pq.labels
    equity = _input(name, name, "Equity attributable to shareholders of ACME", 9000.0, 2)
    score, _ = gate.label_score(name, pq, equity)
    assert score < 0.7
    # whose share the question asks is still checked, by the variant check
    assert gate.check(q, pq, [equity], 9000.0, 9000.0).passed is False


def test_a_company_the_corpus_names_is_not_a_left_over_word(tmp_path, statement_store):
    """A user's file name spells no company ("acme-annual-2022"): the corpus's own name for
    it (documents.jsonl, kept in the fact store) does."""
    from fingap.answers.agent import company_named
    from fingap.answers.meaning import companies_named, company_positions

    vocab = Vocabulary.load()
    doc = "acme-annual-2022"
    q = "How much cash did ACME's operations generate in FY2022? USD millions."
    pq = parse_question(q)
    labels = frozenset({"cash", "operat", "generat"})
    assert unexplained_words(q, pq, vocab, {doc}, labels) == ["acmes"]  # a name, unknown
    companies = {doc: "ACME Corporation"}
    assert unexplained_words(q, pq, vocab, {doc}, labels, companies) == []
    words = "acme corporation operating cash flow".split()
    assert company_positions(words, {doc}, companies) == {0, 1}
    assert {"acme", "acmecorporation"} <= companies_named(q, {doc, "BOLT_2021_8K"}, companies)
    assert "bolt" not in companies_named(q, {doc, "BOLT_2021_8K"}, companies)
    assert company_named(doc, q, companies) and not company_named(doc, q)
    # the store keeps them; a store written without them has none
    store, _ = statement_store
    assert store.companies() == {}
    write_store(tmp_path / "named.sqlite", [], vocab, companies)
    with FactStore(tmp_path / "named.sqlite") as named:
        assert named.companies() == companies


def test_a_row_named_by_what_it_comes_before_is_not_that_item():
    from fingap.answers.meaning import label_tail_reason

    # "what it charged against earnings for taxes" shares "income taxes" with the row's tail
    assert "measured before" in label_tail_reason("acme charge against earnings taxes income",
                                                  "Income before income taxes")
    # a phrase that itself says "before" names that row; a head that matches passes
    assert label_tail_reason("earnings before taxes", "Income before income taxes") is None
    assert label_tail_reason("pre-tax income", "Income before income taxes") is None
    assert label_tail_reason("total debt", "Total debt") is None
    # "pre-tax profit" names the row; "the tax charge against its pre-tax profit" is the tax
    assert label_tail_reason("pre tax profit", "Income before income taxes and equity in "
                             "income of affiliated companies") is None
    assert "measured before" in label_tail_reason("tax charge record against pre tax profit",
                                                  "Income before income taxes")


def test_a_leading_clause_that_includes_or_excludes_must_be_in_a_row_read():
    from fingap.answers.meaning import leading_clause_reason

    q = ("Including the slice that matures within twelve months, how much long-term borrowing "
         "did ACME carry at December 31, 2022?")
    assert "is in no row read" in leading_clause_reason(q, [{"label": "Long-term debt, net"}])
    assert leading_clause_reason(q, [{"label": "Long-term debt, including current "
                                                "maturities"}]) is None
    # "counting both ..." includes too
    q3 = ("Counting both the slice due within the next year and the part due later, how much "
          "did ACME owe on its bonds and notes at December 31, 2022?")
    assert "is in no row read" in leading_clause_reason(q3, [{"label": "Long-term debt"}])
    # its operation word in the label ("net"), a clause with no inclusion, the noncontrolling
    # interests (the variant check's) are all accounted for
    q2 = "Net of the reserve for bad debts, how much did customers owe ACME at the end of 2022?"
    assert leading_clause_reason(q2, [{"label": "Accounts receivable, net"}]) is None
    assert leading_clause_reason("For FY2022, what was ACME's revenue?", [{"label": "Revenue"}]) \
        is None
    assert leading_clause_reason("Excluding noncontrolling interests, what was ACME's equity?",
                                 [{"label": "Total equity"}]) is None


def test_a_flow_asked_in_other_words_is_not_read_from_a_balance(gate):
    q = ("By what percentage did the cash ACME generated from its day-to-day operations "
         "increase in FY2022? USD millions.")
    pq = parse_question(q)
    cash = _input("cash__fy2022", "cash", "Cash and cash equivalents", 1000.0, 2)
    pq = replace(pq, phrases={"cash": "cash acme generated"})
    g = gate.check(q, pq, [cash], 1000.0, 1000.0)
    assert any("spent, paid or generated" in r for r in g.reasons), g.reasons
    # a turnover ratio's words: each dollar of an asset "generates" sales
    ppe = _input("ppe_net__fy2022", "ppe_net", "Property and equipment, net", 1000.0, 2)
    pq = replace(pq, phrases={"ppe_net": "net fixed assets generate"})
    g = gate.check(q, pq, [ppe], 1000.0, 1000.0)
    assert not any("spent, paid or generated" in r for r in g.reasons), g.reasons


def test_words_for_one_operand_that_name_two_line_items(gate):
    pq = parse_question("What was ACME's FY2022 operating cash flow? USD millions.")
    pq = replace(pq, phrases={"cfo": "d and a add back listed among operating cash flows"})
    assert gate.also_named("cfo", pq) == ["depreciation_amortization"]
    # the operand's own line item first, or no word placing one inside the other
    for words in ("operating cash flows", "operating cash flow d and a",
                  "cash flow from operations and capex"):
        assert gate.also_named("cfo", replace(pq, phrases={"cfo": words})) == [], words


def test_the_company_named_in_a_label_is_its_shareholders_share(tmp_path):
    # a page that prints the company's own shareholders' equity beside the total with the
    # noncontrolling interests: asked in so many words for the former, the total is caught
    lines = ["ACME Corp", "Consolidated Balance Sheets", "(in millions)",
             "December 31, 2022 December 31, 2021",
             "Total ACME Corp stockholders' equity 4,832 6,071",
             "Noncontrolling interests 378 4,906",
             "Total stockholders' equity 5,210 10,977"]
    texts = {(DOC, 0): "\n".join(lines)}
    row = {"doc": DOC, "page": 0, "table": 0, "statement": "balance_sheet", "section": "",
           "year": 2022, "fiscal_year": 2022, "duration": None, "period_end": None,
           "end_date": None, "column": 0, "n_columns": 2, "percent": False, "scale": "millions"}
    facts = [row | {"label": "Total ACME Corp stockholders' equity", "value": 4832.0,
                    "printed": "4,832"},
             row | {"label": "Total stockholders' equity", "value": 5210.0, "printed": "5,210"}]
    write_store(tmp_path / "f.sqlite", facts, Vocabulary.load(), companies={DOC: "ACME Corp"})
    store = FactStore(tmp_path / "f.sqlite")
    g = MeaningGate(store, texts, Vocabulary.load(), GateParams("minilm", 0.7, 0.1))
    total = _input("total_equity__fy2022", "total_equity", "Total stockholders' equity",
                   5210.0, 0)
    # stated as a difference, the total equity row is printed as one only if two line items of
    # its page make it up
    assert not g.printed_as(total, ast.Sub)
    asked = ("What was the equity belonging to ACME's shareholders (leaving out noncontrolling "
             "interests) at December 31, 2022?")
    assert g.closer_variant(asked, total) == "Total ACME Corp stockholders' equity"
    assert g.closer_variant("What was ACME's total equity at December 31, 2022?", total) is None


def test_a_stated_difference_that_the_page_prints_as_a_total(gate):
    # "sales minus the cost of sales" answered from a gross-profit row of 16,083: the page's
    # net sales (32,765) and cost of sales (16,682) are that difference (to a unit of
    # rounding); 16,090 is no difference or sum of two line items there, and a quotient is
    # never read this way
    cited = _input("gross_profit__fy2022", "gross_profit", "Gross profit", 16083.0, 2,
                   statement="income")
    assert gate.printed_as(cited, ast.Sub)
    assert not gate.printed_as(cited | {"value": 16090.0}, ast.Sub)
    assert not gate.printed_as(cited, ast.Add)
    assert not gate.printed_as(cited, ast.Div)


def test_the_balance_words_of_money_spent_are_accounted_for():
    vocab = Vocabulary.load()
    q = "How much cash did ACME spend buying plant and equipment in FY2022? USD millions."
    pq = parse_question(q)
    assert "plant" not in unexplained_words(q, pq, vocab, {DOC})


def test_two_operands_read_from_one_printed_row():
    from fingap.answers.meaning import same_row_reason

    da = _input("depreciation_amortization__fy2022", "depreciation_amortization",
                "Depreciation and amortization", 1488.0, 1, statement="cash_flow")
    again = da | {"name": "row_amortization_charges__fy2022"}
    assert "same printed row" in same_row_reason([da, again])
    assert same_row_reason([da, da]) is None          # one operand read once per year
    assert same_row_reason([da, da | {"name": "x", "year": 2021, "value": 1544.0}]) is None


def test_a_maturity_asked_of_a_line_item_printed_with_one(gate):
    # "assets expected to turn into cash within a year" read as total assets: the page prints
    # total current assets, so the maturity the words give is caught
    q = "What were ACME's assets expected to turn into cash within a year at the end of FY2022?"
    pq = replace(parse_question("What were ACME's total assets at the end of FY2022?"),
                 phrases={"total_assets": "assets expected to turn into cash within year"})
    total = _input("total_assets__fy2022", "total_assets", "Total assets", 14000.0, 2)
    assert gate.prints_horizon("assets expected to turn into cash within year", total)
    g = gate.check(q, pq, [total], 14000.0, 14000.0)
    assert any("due within a year" in r for r in g.reasons), g.reasons
    # receivables have no current variant on the page: they are current already
    assert not gate.prints_horizon("receivables due within a year",
                                   total | {"label": "Accounts receivable, net"})


def test_a_company_named_by_its_first_words_is_not_a_left_over_word():
    """"American Water" is American Water Works Company, Inc., shortened; one first word alone
    ("American") is no name."""
    from fingap.answers.meaning import company_keys, company_positions

    doc, companies = "awk-2020", {"awk-2020": "American Water Works Company, Inc."}
    assert {"americanwater", "americanwaterworks"} <= company_keys(doc, companies)
    assert "american" not in company_keys(doc, companies)
    words = "how much did american water earn".split()
    assert company_positions(words, {doc}, companies) == {3, 4}


def test_a_row_is_read_as_the_page_prints_it():
    """An amount printed inside a label is an aside: the label before its clause is a form the
    gate's label check scores a row by, beside the label itself."""
    from fingap.answers.meaning import printed_forms

    assert printed_forms("Long-term debt (included $78,609 and $72,281 at fair value)") == [
        "Long-term debt (included $78,609 and $72,281 at fair value)", "Long-term debt"]
    assert printed_forms("Accounts receivable, net of allowance for uncollectible accounts of "
                         "$60 and $75, respectively")[1] == "Accounts receivable"
    assert printed_forms("Trade receivables, net of allowances - $46 and $41")[1] == \
        "Trade receivables, net of allowances"
    assert printed_forms("Cost of revenues") == ["Cost of revenues"]
    assert printed_forms("$ change") == ["$ change"]


def test_a_label_with_printed_amounts_passes_by_its_line_item(gate):
    from fingap.answers.question import parse_question

    pq = parse_question("What were the accounts receivable in 2022?")
    label = "Accounts receivable, net of allowance of $60 and $75, respectively"
    gate._pages[("acme-2022", 7)] = [
        {"doc": "acme-2022", "page": 7, "label": lab, "label_norm": lab.lower(),
         "concept": None, "year": 2022, "value": v}
        for lab, v in ((label, 900.0), ("Inventories", 500.0))]
    inp = {"doc": "acme-2022", "page": 7, "year": 2022, "name": "accounts_receivable__fy2022",
           "concept": "accounts_receivable", "label": label, "value": 900.0}
    score, lead = gate.label_score("accounts_receivable", pq, inp)
    assert score > gate.matcher.scores(["accounts receivable"], [label])[0]
    assert score >= gate.params.label_threshold and lead <= gate.params.label_margin
    # the neighbour cited for it is still caught
    _, lead = gate.label_score("accounts_receivable", pq, inp | {"label": "Inventories",
                                                                 "value": 500.0})
    assert lead > 0


def test_inputs_from_two_printings_of_one_statement_are_withheld():
    """Payables from the balance sheet (page 51) and inventory from a balance sheet 42 pages on
    (a parent-only one) are two statements; a balance sheet over two facing pages is one, and
    different statements may sit anywhere."""
    from fingap.answers.meaning import two_statements_reason

    def inp(name, page, statement):
        return {"name": name, "doc": "acme-2023", "page": page, "statement": statement}

    payables = inp("accounts_payable__fy2023", 51, "balance_sheet")
    reason = two_statements_reason([payables, inp("inventory__fy2023", 93, "balance_sheet")])
    assert reason == ("accounts_payable__fy2023 and inventory__fy2023 are read from two "
                      "balance sheets, pages 51 and 93")
    assert two_statements_reason([payables, inp("inventory__fy2023", 52, "balance_sheet")]) \
        is None
    assert two_statements_reason([payables, inp("cogs__fy2023", 49, "income"),
                                  inp("capex__fy2023", 55, "cash_flow")]) is None
    # a note's table is no statement printing
    assert two_statements_reason([payables, inp("inventory__fy2023", 93, "table")]) is None


def test_the_minority_share_of_a_line_item_is_told_from_the_companys_own():
    from fingap.answers.meaning import _MINORITY_ASKED, _MINORITY_SHARE, _PARENT_ASKED

    assert _MINORITY_SHARE.search("Net income attributable to non-controlling interests")
    assert _MINORITY_SHARE.search("Consolidated net income attributable to noncontrolling interest")
    assert _MINORITY_SHARE.search("Noncontrolling interests")
    assert not _MINORITY_SHARE.search("Net income attributable to ACME plc")
    # asked for the company's own share, in so many words
    for q in ("What profit did ACME report for its own shareholders in FY2023?",
              "ACME's net profit (after minority interests) for FY2018?",
              "ACME's FY2022 net income, excluding noncontrolling interests?"):
        assert _PARENT_ASKED.search(q), q
    # asked for the minority's share
    q = "How much of ACME's FY2022 net income was attributable to noncontrolling interests?"
    assert _MINORITY_ASKED.search(q) and not _PARENT_ASKED.search(q)


def test_an_affiliates_net_income_is_another_partys_share():
    from fingap.answers.meaning import _MINORITY_SHARE, _OTHER_PARTY_ASKED

    # a note's summary of equity-method investees prints their own net income
    for label in ("Net income (loss) attributable to the affiliated companies",
                  "Net earnings attributable to equity method investees",
                  "Net income attributable to joint ventures"):
        assert _MINORITY_SHARE.search(label), label
    assert not _MINORITY_SHARE.search("Equity in earnings of affiliated companies")
    assert not _OTHER_PARTY_ASKED.search(
        "What was ACME's return on equity, the year's profit belonging to its shareholders "
        "over the average of its own shareholders' equity?")
    assert _OTHER_PARTY_ASKED.search("How much net income did ACME's affiliated companies earn?")


def test_a_concepts_own_statement_is_no_excuse_when_the_question_names_two_others(gate):
    # revenue's home is the income statement: a question naming only the cash flow statement
    # may still read it there, but one that names the balance sheet and the cash flow
    # statement as what it works from may not
    sales = _input("revenue__fy2022", "revenue", "Net sales", 32765.0, 2, statement="income")
    one = ("Using the cash flow statement, what was ACME's FY2022 revenue? USD millions.")
    g = gate.check(one, parse_question(one), [sales], 32765.0, 32765.0)
    assert not any("the row sits on" in r for r in g.reasons), g.reasons
    two = ("Using the balance sheet and the cash flow statement, what was ACME's FY2022 "
           "revenue? USD millions.")
    g = gate.check(two, parse_question(two), [sales], 32765.0, 32765.0)
    assert any("the row sits on income" in r for r in g.reasons), g.reasons


def test_a_total_printed_under_the_rows_it_sums(tmp_path):
    # "the sum of its short-term assets" answered from "Total current assets": the three rows
    # printed above it make it up, to their rounding; another value, or the first row, does not
    lines = ["ACME Corp", "Consolidated Balance Sheets", "(in millions)", "2022 2021",
             "Cash 100 90", "Receivables 250 240", "Inventories 150 140",
             "Total current assets 500 470"]
    texts = {(DOC, 0): "\n".join(lines)}
    row = {"doc": DOC, "page": 0, "table": 0, "statement": "balance_sheet", "section": "",
           "year": 2022, "fiscal_year": 2022, "duration": None, "period_end": None,
           "end_date": None, "column": 0, "n_columns": 2, "percent": False, "scale": "millions"}
    facts = [row | {"label": label, "value": v, "printed": printed}
             for label, v, printed in [("Cash", 100.0, "100"), ("Receivables", 250.0, "250"),
                                       ("Inventories", 150.4, "150"),
                                       ("Total current assets", 500.0, "500")]]
    write_store(tmp_path / "f.sqlite", facts, Vocabulary.load(), companies={DOC: "ACME Corp"})
    g = MeaningGate(FactStore(tmp_path / "f.sqlite"), texts, Vocabulary.load(),
                    GateParams("minilm", 0.7, 0.1))
    total = _input("total_current_assets__fy2022", "total_current_assets",
                   "Total current assets", 500.0, 0)
    assert g.printed_as(total, ast.Add) and g.sums_rows_above(total)
    assert not g.sums_rows_above(total | {"value": 520.0})
    assert not g.sums_rows_above(_input("cash__fy2022", "cash", "Cash", 100.0, 0))
    assert not g.printed_as(total, ast.Div)


def test_a_division_the_question_spells_gives_a_quotient_not_a_percent():
    q = ("What return on assets did ACME earn in 2022? Divide 2022 net profit by the mean of its "
         "assets at the end of 2021 and 2022, and round to two decimals.")
    assert "quotient" in shape_reason(q, "percent")
    assert shape_reason(q, "ratio") is None
    assert shape_reason(q.replace("two decimals", "two decimals, in percent"), "percent") is None


def test_a_line_items_meaning_explains_the_words_beside_its_term():
    vocab = Vocabulary.load()
    # accounts payable is money owed to suppliers: "supplier" beside "payables" is accounted
    # for; the same word far from any term of a line item read is not
    q = "What were ACME's supplier payables at the end of FY2022? USD millions."
    pq = parse_question(q)
    assert pq.inputs and pq.inputs[0][0] == "accounts_payable"
    assert "supplier" not in unexplained_words(q, pq, vocab, {DOC})
    far = ("What were ACME's payables at the end of FY2022, as reported, counted before any "
           "supplier rebates? USD millions.")
    assert "supplier" in unexplained_words(far, parse_question(far), vocab, {DOC})


def test_words_the_parse_wrote_and_the_metrics_own_words_are_accounted_for():
    vocab = Vocabulary.load()
    # "turn over its stock" is asked as "... turnover" by the parser: a word the question never
    # wrote is not one it left unexplained
    q = ("How many times did ACME turn over its inventory in FY2022, measured as cost of sales "
         "divided by average inventory?")
    pq = parse_question(q)
    assert "turnover" not in unexplained_words(q, pq, vocab, {DOC})
    # the library metric's own words, in another number ("margins" for net profit margin)
    q2 = "What were ACME's net profit margins in FY2022? Percent."
    pq2 = parse_question(q2)
    assert pq2.metric == "net_margin", pq2.metric
    assert "margins" not in unexplained_words(q2, pq2, vocab, {DOC})


def test_a_margin_is_a_percent_even_when_the_question_spells_its_division():
    q = ("What was ACME's FY2022 EBITDA margin? Treat EBITDA as operating income plus D&A, and "
         "divide by revenue.")
    assert shape_reason(q, "percent") is None


def test_money_spent_on_a_balance_is_explained_by_the_flows_meaning():
    vocab = Vocabulary.load()
    # "buying plant, property and equipment": the balance's words read as capex, and capex's
    # meaning (buying or building property, plant and equipment) accounts for "plant"
    q = ("How much cash did ACME spend buying plant, property and equipment in FY2022? USD "
         "millions.")
    pq = parse_question(q)
    assert [c for c, _ in pq.inputs] == ["capex"], pq.inputs
    assert "plant" not in unexplained_words(q, pq, vocab, {DOC})


def test_printed_inputs_that_cancel_exactly_are_withheld():
    # revenue - cost of sales - "the spending" read from the gross profit row: exactly 0
    pq = parse_question("What was ACME's 2022 operating profit, i.e. revenue minus cost of goods "
                        "sold minus selling and administrative spending?")
    parts = [{"value": 100.0}, {"value": 60.0}, {"value": 40.0}]
    assert "cancel" in plausibility_reason(pq, "", 0.0, parts)
    assert plausibility_reason(pq, "", 5.0, parts) is None
    # an input printed as 0 makes a 0 result no contradiction
    assert plausibility_reason(pq, "", 0.0, parts[:2] + [{"value": 0.0}]) is None


def test_words_of_how_a_figure_is_averaged_or_dated_name_no_line_item():
    vocab = Vocabulary.load()
    for ok in ("What was ACME's net margin, averaging the three annual margins over 2020, 2021 "
               "and 2022?",
               "What were ACME's 2022 days payable: 365 times the average of accounts payable "
               "between those two dates, divided by cost of goods sold?"):
        assert not {"averaging", "margins", "dates"} & set(
            unexplained_words(ok, parse_question(ok), vocab, {DOC})), ok


def test_coverage_reads_the_labels_of_the_rows_read():
    vocab = Vocabulary.load()
    q = ("How much cash did ACME generate from its operating activities in FY2022? "
         "USD millions.")
    pq = parse_question(q)
    printed = ["Net cash provided by operating activities"]
    # the words the row read prints name it; a word it does not print is still left over
    assert "activities" not in unexplained_words(q, pq, vocab, {DOC}, printed=printed)
    q2 = ("How much cash did ACME generate from its operating activities, apart from the "
          "hedging program, in FY2022? USD millions.")
    assert "hedging" in unexplained_words(q2, parse_question(q2), vocab, {DOC}, printed=printed)
    # a maturity and a whole the question words its own way, printed by a total row
    q3 = ("What was the combined value of ACME's assets expected to be turned into cash or used "
          "up within a year, at December 31, 2022? USD millions.")
    pq3 = parse_question(q3)
    left = unexplained_words(q3, pq3, vocab, {DOC}, printed=["Total current assets"])
    assert not {"combined", "up", "within", "year"} & set(left)
    left = unexplained_words(q3, pq3, vocab, {DOC}, printed=["Cash and cash equivalents"])
    assert "combined" in left


def test_a_name_of_two_joined_by_and_is_also_spelt_by_its_initials():
    from fingap.answers.meaning import companies_named, company_keys

    companies = {"JOHNSON_JOHNSON_2022_10K": "Johnson & Johnson", "ACME_2022_10K": "ACME Corp"}
    assert "jj" in company_keys("JOHNSON_JOHNSON_2022_10K", companies)
    assert companies_named("By how much did J&J's research spending rise in 2022?",
                           set(companies), companies) >= {"jj"}
    assert not any(len(k) == 2 for k in company_keys("ACME_2022_10K", companies))


def test_words_of_a_phrase_the_glossary_reads_as_the_line_item_read(gate):
    vocab = Vocabulary.load()
    q = ("How much cash did ACME put into additional plant and equipment during fiscal 2022? USD "
         "millions.")
    pq = parse_question(q)
    assert pq.inputs and pq.inputs[0][0] == "capex"
    # without the glossary's reading, a word no term, meaning or label holds is left over
    assert unexplained_words(q, pq, vocab, {DOC}) == ["additional"]
    # the glossary reads the phrase (without the company's name) as capex: its words describe
    # the line item read
    meant = gate.meant_phrases(pq, {DOC})
    assert meant == [pq.phrases["capex"]]
    assert unexplained_words(q, pq, vocab, {DOC}, meant=meant) == []
    # ... but for the words that qualify or change a figure
    q2 = ("How much cash did ACME put into other additional plant and equipment during fiscal "
          "2022? USD millions.")
    pq2 = parse_question(q2)
    meant2 = [pq2.phrases["capex"]]
    assert unexplained_words(q2, pq2, vocab, {DOC}, meant=meant2) == ["other"]
    # a phrase the glossary reads as another line item explains nothing
    assert gate.meant_phrases(replace(pq, inputs=[("cfo", 2022)],
                                      phrases={"cfo": pq.phrases["capex"]}), {DOC}) == []
    # a reading below the gate's bar (answer.gloss_explains) explains nothing
    score = gate.glossary.read(gloss_phrase(pq.phrases["capex"], {"acme"}))[1]
    gate.glossary.params = replace(gate.glossary.params, explains=score + 0.05)
    assert gate.meant_phrases(pq, {DOC}) == []


def test_a_companys_former_name_is_not_a_left_over_word():
    vocab = Vocabulary.load()
    # "Square" names a line item elsewhere in the corpus ("square feet"), so only its place
    # beside "(now ...)" / "(formerly ...)" says it is a name here
    stems = frozenset({"squar", "revenu"})
    for q in ("How much revenue did Square (now ACME) report for FY2022? USD millions.",
              "How much revenue did Square's (now ACME) business report for FY2022? USD millions.",
              "How much revenue did ACME (formerly Square) report for FY2022? USD millions."):
        assert unexplained_words(q, parse_question(q), vocab, {DOC}, stems) == [], q
    q = "How much revenue did ACME report for FY2022 per square foot? USD millions."
    assert "square" in unexplained_words(q, parse_question(q), vocab, {DOC}, stems)


def test_other_closing_a_list_describes_the_line_item():
    vocab = Vocabulary.load()
    q = "How much cash did ACME spend buying equipment and other fixed assets in FY2022?"
    assert "other" not in unexplained_words(q, parse_question(q), vocab, {DOC})
    q2 = "How much cash did ACME spend buying fixed assets other than buildings in FY2022?"
    assert "other" in unexplained_words(q2, parse_question(q2), vocab, {DOC})


def test_the_words_that_name_a_statement_as_the_source_are_accounted_for():
    from fingap.answers.meaning import source_positions

    def source(text: str, names: set[int] = frozenset()) -> list[str]:
        words = text.split()
        return [words[i] for i in sorted(source_positions(words, names))]

    assert source("cagr in sales working mainly from its income statement") == \
        ["working", "mainly", "from", "its", "income", "statement"]
    # the company's name may stand inside the clause
    assert source("using nothing but acme s balance sheet as of may", {3}) == \
        ["using", "nothing", "but", "acme", "s", "balance", "sheet"]
    assert source("net ppe based solely on its balance sheet alone") == \
        ["based", "solely", "on", "its", "balance", "sheet", "alone"]
    # a word that changes the figure is no part of it: "but not short term investments"
    assert source("cash but not short term investments per its balance sheet") == \
        ["per", "its", "balance", "sheet"]
    assert source("cash generated by its day to day business") == []


def test_a_run_of_the_line_items_meaning_words_is_described_as_far_as_it_goes():
    vocab = Vocabulary.load()
    # "obligations" stands further from "total current liabilities" than a word beside it,
    # but "obligations that fall due within" is current liabilities' meaning, word by word
    # (the agent names a described line item this way: ``Agent._name_described``)
    q = ("As of December 31, 2022, how much did ACME owe in obligations that fall due within "
         "total current liabilities? USD millions.")
    pq = parse_question(q)
    assert [c for c, _ in pq.inputs] == ["total_current_liabilities"], pq.inputs
    assert unexplained_words(q, pq, vocab, {DOC}) == []
    # a word outside the meaning is still left over
    q2 = ("As of December 31, 2022, how much did ACME owe in lease obligations that fall due "
          "within total current liabilities? USD millions.")
    assert unexplained_words(q2, parse_question(q2), vocab, {DOC}) == ["lease"]


def test_the_words_that_leave_out_minority_owners_need_a_row_of_the_companys_own_share():
    vocab = Vocabulary.load()
    q = ("What was the book value of the equity belonging to ACME's own shareholders, leaving "
         "out the stakes held by minority owners, at December 31, 2022? USD millions.")
    pq = parse_question(q)
    companies = {DOC: "ACME Corp"}
    own = ["Total ACME Corp stockholders' equity"]
    assert unexplained_words(q, pq, vocab, {DOC}, None, companies, own) == []
    # read from the total with the minority owners' stakes, the words are left over
    total = ["Total stockholders' equity"]
    assert "leaving" in unexplained_words(q, pq, vocab, {DOC}, None, companies, total)


def test_both_continuing_and_discontinued_operations_ask_for_their_total():
    vocab = Vocabulary.load()
    q = ("What were ACME's diluted earnings per share for 2022, counting both continuing and "
         "discontinued operations?")
    pq = parse_question(q)
    assert unexplained_words(q, pq, vocab, {DOC}, None, None, ["Diluted"]) == []
    # read from the continuing operations' row alone, the words are left over
    left = unexplained_words(q, pq, vocab, {DOC}, None, None,
                             ["Diluted earnings per share from continuing operations"])
    assert "discontinued" in left, left


def test_a_line_item_known_by_its_words_is_not_read_from_its_part_due_within_a_year(gate):
    q = "What were ACME's asset totals at the end of FY2022? USD millions."
    pq = parse_question(q)
    part = _input("row_asset_totals__fy2022", "row_asset_totals", "Total current assets",
                  14000.0, 2)
    pq.labels["row_asset_totals"] = "asset totals"
    g = gate.check(q, pq, [part], 14000.0, 14000.0)
    assert any("is a part due within a year" in r for r in g.reasons), g.reasons
    # words that give the maturity may read it
    q2 = "What were ACME's current asset totals at the end of FY2022? USD millions."
    pq2 = parse_question(q2)
    pq2.labels["row_asset_totals"] = "current asset totals"
    g2 = gate.check(q2, pq2, [part | {"concept": "row_asset_totals"}], 14000.0, 14000.0)
    assert not any("is a part due" in r for r in g2.reasons), g2.reasons


@contextmanager
def _one_statement_gate(tmp_path, **table):
    """A gate over a document of one page that prints one statement table."""
    from ..conftest import write_statement_pdf

    pdf = tmp_path / f"{DOC}.pdf"
    write_statement_pdf(pdf, [[dict(years=["2022", "2021"], **table)]])
    with _gate_over(pdf, DOC, tmp_path) as gate:
        yield gate


def test_a_balance_is_never_read_from_the_cash_flow_statement(tmp_path):
    # a cash flow statement whose header states no period: its "Inventories" row is still the
    # year's change, while its cash at the end of the year is a balance
    rows = [("Net income", ["5,363", "4,869"]), ("Inventories", ["(412)", "(97)"]),
            ("Cash and cash equivalents at end of year", ["3,655", "4,564"])]
    with _one_statement_gate(tmp_path, title="Consolidated Statement of Cash Flows",
                             duration=None, rows=rows) as gate:
        q = "What was ACME's inventory at the end of FY2022? USD millions."
        change = _input("inventory__fy2022", "inventory", "Inventories", -412.0, 0,
                        statement="cash_flow") | {"printed": "(412)"}
        g = gate.check(q, parse_question(q), [change], -412.0, -412.0)
        assert not g.passed and any("on the cash flow statement" in r for r in g.reasons), \
            g.reasons
        q = "How much cash did ACME hold at the end of FY2022? USD millions."
        cash = _input("cash__fy2022", "cash", "Cash and cash equivalents at end of year",
                      3655.0, 0, statement="cash_flow")
        g = gate.check(q, parse_question(q), [cash], 3655.0, 3655.0)
        assert not any("on the cash flow statement" in r for r in g.reasons), g.reasons


def test_a_negated_row_is_not_the_line_item_its_other_words_name(tmp_path):
    # a cash flow statement's supplemental row: what was declared and NOT paid
    rows = [("Net income", ["5,363", "4,869"]),
            ("Dividends declared and not paid", ["438", "385"])]
    with _one_statement_gate(tmp_path, title="Consolidated Statement of Cash Flows",
                             rows=rows) as gate:
        row = _input("dividends_paid__fy2022", "dividends_paid",
                     "Dividends declared and not paid", 438.0, 0, statement="cash_flow")
        q = "How much did ACME pay in dividends in FY2022? USD millions."
        g = gate.check(q, parse_question(q), [row], 438.0, 438.0)
        assert not g.passed and any("is negated" in r for r in g.reasons), g.reasons
        # asked in so many words, it is the row
        q = "How much in dividends had ACME declared and not paid at the end of FY2022?"
        g = gate.check(q, parse_question(q), [row], 438.0, 438.0)
        assert not any("is negated" in r for r in g.reasons), g.reasons


def test_a_subtotal_measured_before_fewer_items_is_not_the_one_asked():
    from fingap.answers.meaning import before_items_reason

    assert "interest" in before_items_reason("earnings before interest and taxes",
                                             "Income before income taxes")
    for phrase in ("pre-tax profit", "earnings before the income tax charge",
                   "income before income taxes, two decimals"):
        assert before_items_reason(phrase, "Income before income taxes") is None, phrase
    assert before_items_reason("EBITDA", "Income before income taxes") is None


def test_the_one_statement_the_question_names_holds_an_input():
    from fingap.answers.meaning import named_statement_reason

    plant = _input("ppe_net__fy2022", "ppe_net", "Property, plant and equipment, net", 5.0, 2)
    assert "cash flow" in named_statement_reason(["cash_flow"], [plant])
    assert named_statement_reason(["balance_sheet"], [plant]) is None
    # two statements named, or none: each input may come from either
    assert named_statement_reason(["cash_flow", "income"], [plant]) is None
    assert named_statement_reason([], [plant]) is None


def test_including_the_minority_share_in_other_words_asks_the_consolidated_line():
    assert qualifiers_asked("Verizon's net income?") == {"parent"}
    assert qualifiers_asked("its bottom-line profit (including the portion attributable to "
                            "noncontrolling interests)") == set()
    assert qualifiers_asked("net income excluding noncontrolling interests") == {"parent"}


def test_a_loss_row_prints_its_income_line():
    assert printed_forms("Net loss") == ["Net loss", "net income"]
    assert printed_forms("Net sales") == ["Net sales"]


def _table_rows(*labels, tbl=0):
    from fingap.answers.labels import normalise_label

    return [{"id": i, "tbl": tbl, "year": 2022, "label": x, "label_norm": normalise_label(x)}
            for i, x in enumerate(labels)]


def test_an_aside_clause_is_accounted_for_by_the_read_rows_place_in_its_table():
    """'excluding X': X is a row the read row does not add up (no total, or a total above
    X); 'including X': the read row is a total below X. Whatever the read row's label says
    itself is left to the other checks."""
    equity = _table_rows("Total stockholders' equity", "Noncontrolling interests",
                         "Total equity")
    (inc, clause, item), = aside_clauses(
        "How much equity belonged to its own stockholders, i.e. excluding the equity held by "
        "noncontrolling interests?")
    assert not inc and clause.startswith("excluding") and item.endswith("interests")
    assert structure_accounts(False, item, equity[0], equity)
    assert not structure_accounts(False, item, equity[2], equity)   # the total adds it
    cash = _table_rows("Cash and cash equivalents", "Marketable securities - current",
                       "Accounts receivable", "Total current assets")
    assert structure_accounts(False, "marketable securities", cash[0], cash)
    assert not structure_accounts(False, "marketable securities", cash[3], cash)
    assert not structure_accounts(False, "inventories", cash[0], cash)     # no such row
    sales = _table_rows("Net sales", "Membership and other income", "Total revenues")
    (inc, _, item), = aside_clauses("revenue including membership and other income?")
    assert inc and structure_accounts(True, item, sales[2], sales)
    assert not structure_accounts(True, item, sales[0], sales)       # no total
    other = _table_rows("Membership and other income", tbl=1)
    assert not structure_accounts(True, item, sales[2], sales[:1] + other + sales[2:])


def test_every_input_from_the_statement_the_question_names():
    q = "Operating cash flow divided by net profit (both from the cash flow statement)?"
    inputs = [{"name": "cfo__fy2022", "statement": "cash_flow"},
              {"name": "net_income__fy2022", "statement": "income"}]
    assert "net_income__fy2022" in every_input_reason(q, inputs)
    inputs[1]["statement"] = "cash_flow"
    assert every_input_reason(q, inputs) is None
    assert every_input_reason("Operating cash flow over net profit?", inputs[:1] + [
        {"name": "net_income__fy2022", "statement": "income"}]) is None


def test_presentation_verbs_name_no_line_item():
    q = ("As of January 31, 2018, what was the combined balance of all the assets ACME "
         "classifies as current? Answer in USD millions.")
    pq = parse_question(q)
    assert "classifies" not in unexplained_words(q, pq, Vocabulary.load(), {"ACME_2018_10K"},
                                                 printed=["Total current assets"])


def test_how_a_question_asks_for_its_figure_names_no_line_item():
    vocab = Vocabulary.load()
    for q, printed in (
            ("How much did ACME spend buying new plant and equipment in 2018?",
             ["Purchases of property, plant and equipment"]),
            ("From ACME's cash flow statement for 2020, take the cash generated by operations and "
             "subtract the money invested in plants and machinery. What free cash flow does that "
             "leave?", ["Net cash provided by operating activities",
                        "Purchases of land, buildings, and equipment"])):
        left = unexplained_words(q, parse_question(q), vocab, {"ACME_2018_10K"},
                                 printed=printed)
        assert not {"new", "leave"} & set(left), left
