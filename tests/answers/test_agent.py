import pytest

from fingap.answers.agent import Agent, format_answer

from ..conftest import DOC


def test_structured_answer_with_formula_inputs_and_citations(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    rec = agent.answer("q", "What is ACME's FY2022 current ratio? Round to two decimal places.",
                       [(DOC, 2)])
    assert rec.path == "structured" and rec.verified and rec.value == 2.0
    assert {(i["name"], i["page"], i["source"]) for i in rec.inputs} == {
        ("total_current_assets__fy2022", 2, "retrieved"),
        ("total_current_liabilities__fy2022", 2, "retrieved")}
    assert [s["step"] for s in rec.steps] == ["plan", "retrieve", "lookup", "compute", "verify",
                                             "answer"]


def test_follow_up_finds_a_missing_input_in_the_candidate_document(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "What is ACME's FY2022 free cash flow in USD millions?", [(DOC, 2)])
    assert rec.path == "structured" and rec.value == pytest.approx(6439 - 1577)
    assert {i["source"] for i in rec.inputs} == {"follow_up"}
    assert any(s["step"] == "follow_up" for s in rec.steps)


def test_unit_conversion_and_magnitude(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer("q", "What is the FY2022 capital expenditure amount (in USD "
                                     "billions) for ACME?", [(DOC, 1)])
    assert rec.value == pytest.approx(1.58) and rec.answer == "$1.58 billion"


def test_fallback_to_the_llm_path_records_the_reason(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    rec = agent.answer("q", "Is ACME a capital-intensive business in FY2022?", [(DOC, 1)],
                       llm_answer="Yes: capex was $1,577 million.")
    # a text answer goes out, never verified: the LLM is not declared capable of figures
    assert rec.path == "llm" and "yes/no" in rec.reason and not rec.verified
    assert rec.value == 1577e6 and rec.confidence == 0.0


def test_a_figure_the_structured_path_cannot_verify_is_withheld(statement_store):
    store, texts = statement_store
    q = "What is ACME's FY2015 current ratio?"
    rec = Agent(store, texts).answer("q", q, [(DOC, 2)], llm_answer="The ratio is 1.9.")
    assert rec.path == "withheld" and rec.abstained and rec.value is None
    assert "not found" in rec.reason and "llm_figures" in rec.reason


def test_a_capable_llm_figure_is_gated_by_meaning(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts, llm_figures=True)
    q = "Roughly what did ACME spend on capex in FY2015, in USD millions?"
    good = agent.answer("q", q, [(DOC, 1)], llm_answer="About $1,577 million.")
    assert good.path == "llm" and good.verified
    for bad, why in (("Capex was $9,999 million.", "not on any cited page"),
                     ("It was 2022.", "is a year")):
        rec = agent.answer("q", q, [(DOC, 1)], llm_answer=bad)
        assert rec.abstained and not rec.verified
        assert any(why in r for r in rec.steps[-2]["reasons"]), rec.steps[-2]


def test_bad_gate_mode_fails_fast(statement_store):
    store, texts = statement_store
    with pytest.raises(ValueError, match="answer.gate"):
        Agent(store, texts, gate="maybe")


def test_format_answer():
    assert format_answer(1577.0, "usd", "millions", 2) == "$1,577.00 million"
    assert format_answer(1.93, "percent", None, 1) == "1.9%"
    assert format_answer(24.257, "ratio", None, 2) == "24.26"


def test_questions_naming_a_company_use_only_its_documents(statement_store):
    from fingap.answers.agent import company_key, company_named

    store, texts = statement_store
    # another company's page is retrieved first: the question names ACME, so it is dropped
    rec = Agent(store, texts).answer("q", "What is ACME's FY2022 current ratio?",
                                     [("BOLT_2022_10K", 3), (DOC, 2)], llm_answer="")
    assert rec.path == "structured" and rec.value == 2.0
    route = [s for s in rec.steps if s["step"] == "route"]
    assert route and route[0]["docs"] == [DOC]

    assert company_key("JOHNSON_JOHNSON_2022Q4_EARNINGS") == "johnsonjohnson"
    assert company_key("3M_2018_10K") == "3m"
    assert company_named("JOHNSON_JOHNSON_2022_10K", "What did Johnson & Johnson report?")
    assert not company_named("ACME_2022_10K", "What did Bolt report in FY2022?")


def test_a_line_item_outside_the_vocabulary_is_found_by_its_label(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "What is ACME's FY2022 cash after divestitures in USD millions? Cash after "
             "divestitures is defined as: net cash provided by operating activities minus "
             "proceeds from sale of businesses.", [(DOC, 1)], llm_answer="")
    assert rec.path == "structured" and rec.verified, rec.reason
    assert rec.value == 6439.0  # the proceeds are a dash (zero) in 2022
    assert {i["label"] for i in rec.inputs} == {"Net cash provided by operating activities",
                                                "Proceeds from sale of businesses"}


def _fact(id, statement, value=1.0, page=1, tbl=0, duration="12M", rank=0, col=0):
    return {"id": id, "doc": DOC, "page": page, "tbl": tbl, "statement": statement,
            "duration": duration, "period_end": None, "percent": 0, "concept_rank": rank,
            "label_norm": "x", "col": col, "value": value}


def test_rank_facts_rules():
    from fingap.answers.agent import rank_facts
    from fingap.answers.question import ParsedQuestion

    pq = ParsedQuestion(True)
    ids = lambda facts: [f["id"] for f in facts]  # noqa: E731
    # a balance is never read from a cash-flow row of the same name (that is its change)
    got = rank_facts([_fact(1, "cash_flow", duration="12M"), _fact(2, "balance_sheet", page=5)],
                     pq, "balance_sheet", {(DOC, 1): 0, (DOC, 5): 1})
    assert ids(got) == [2]
    # another year of a line item comes from the table the first year came from
    got = rank_facts([_fact(1, "income", page=1), _fact(2, "income", page=7)], pq, "income",
                     {(DOC, 1): 0, (DOC, 7): 1}, anchor=(DOC, 7, 0))
    assert ids(got) == [2, 1]
    # an outflow is the parenthesised cash-flow row, not a positive disclosure of that name
    got = rank_facts([_fact(1, "cash_flow", 83.0, rank=0), _fact(2, "cash_flow", -250.0, rank=5)],
                     pq, "cash_flow", {}, magnitude=True)
    assert ids(got) == [2, 1]
    # a line item known by its label: the primary statements before other tables
    got = rank_facts([_fact(1, "table", page=1), _fact(2, "income", page=9)], pq, "table",
                     {(DOC, 1): 0, (DOC, 9): 1})
    assert ids(got) == [2, 1]
    # of two rows of one line item, the variant the question asks: the company's own
    # shareholders' share unless it includes the noncontrolling interests (the gate's rule)
    from fingap.answers.meaning import qualifiers_asked

    rows = [_fact(1, "income", rank=0) | {"label": "Net income"},
            _fact(2, "income", rank=1) | {"label": "Net income attributable to ACME"}]
    got = rank_facts(rows, pq, "income", {}, qualifiers=qualifiers_asked("ACME's net margin?"))
    assert ids(got) == [2, 1]
    q = "ACME's net income including noncontrolling interests?"
    assert ids(rank_facts(rows, pq, "income", {}, qualifiers=qualifiers_asked(q))) == [1, 2]
    assert ids(rank_facts(rows, pq, "income", {})) == [1, 2]     # no question: as before
    # of two rows the glossary read as the line item, the one it reads so more surely, not
    # the shorter label ("Total cash used in financing activities" read as operating cash)
    rows = [_fact(1, "cash_flow", rank=None) | {"label_norm": "total cash provided by operating "
                                                "activities", "resolver_gloss": "cfo",
                                                "resolver_score": 0.98},
            _fact(2, "cash_flow", rank=None) | {"label_norm": "total cash used in financing "
                                                "activities", "resolver_gloss": "cfo",
                                                "resolver_score": 0.73}]
    assert ids(rank_facts(rows, pq, "cash_flow", {})) == [1, 2]


def test_expense_labels_are_amounts(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    assert agent._magnitude("row_interest_debt_expense")
    assert agent._magnitude("capex") and not agent._magnitude("row_earnings_operations")
    # money the question says was spent, read from an outflow printed in parentheses
    assert agent._magnitude("row_cash_spend_buying_plant_machinery")
    # a row printed as an expenditure is an outflow whatever the question's words for it
    row = {"wanted": "row_cash_put_into_projects", "label": "Capital expenditures, net"}
    assert agent._read_as_magnitude(row)


def test_a_row_that_prints_the_line_item_alone_comes_before_one_that_joins_another(
        statement_store):
    from fingap.answers.agent import rank_facts
    from fingap.answers.question import ParsedQuestion

    store, texts = statement_store
    agent = Agent(store, texts)
    joined = _fact(1, "balance_sheet", 8748.0) | {"label": "Accounts payable and accrued "
                                                  "expenses"}
    alone = _fact(2, "table", 2288.0, page=9) | {"label": "Trade accounts payable"}
    allowances = {"label": "Trade accounts receivable, less allowances of $477 and $466"}
    is_joined = lambda f, phrase="amounts owed to suppliers": agent._joins_another(  # noqa: E731
        "accounts_payable", phrase, f)
    assert is_joined(joined) and not is_joined(alone)
    # the question names the other line item too: the joined row is what it asks
    assert not is_joined(joined, "payables and accrued expenses")
    # an "and" inside a qualifier joins no line item
    assert not agent._joins_another("accounts_receivable", "", allowances)
    got = rank_facts([joined, alone], ParsedQuestion(True), "balance_sheet", {},
                     joined=is_joined)
    assert [f["id"] for f in got] == [2, 1]


def test_a_dated_period_falls_back_to_fiscal_year_headers(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "What were ACME's total current assets at the end of fiscal 2022 (January 1, "
             "2023)? USD millions.", [(DOC, 2)], llm_answer="")
    assert rec.path == "structured" and rec.value == 14000.0, rec.reason


def test_the_row_the_questions_words_describe_is_preferred():
    from fingap.answers.agent import rank_facts
    from fingap.answers.question import ParsedQuestion

    plain = _fact(1, "income", 1058.0, rank=0) | {"label_norm": "net income"}
    attributable = _fact(2, "income", 1048.0, rank=2) | {
        "label_norm": "net income attributable to foo plc"}
    pq = ParsedQuestion(True)
    assert rank_facts([plain, attributable], pq, "income", {})[0]["id"] == 1
    got = rank_facts([plain, attributable], pq, "income", {},
                     phrase="net income attributable to foo plc grow")
    assert got[0]["id"] == 2


def test_a_column_ending_on_the_date_asked_comes_first():
    from fingap.answers.agent import rank_facts
    from fingap.answers.question import ParsedQuestion

    # two balance columns ending in December of the same calendar year (a 52-week year
    # ending December 25 beside a December 31 comparison): the date names the column
    dec25 = _fact(1, "balance_sheet", col=1) | {"period_end": "Dec", "end_date": "2021-12-25"}
    dec31 = _fact(2, "balance_sheet", col=0) | {"period_end": "Dec", "end_date": "2022-12-31"}
    pq = ParsedQuestion(True, months=["Dec"], dates=["2021-12-25"])
    assert rank_facts([dec31, dec25], pq, "balance_sheet", {})[0]["id"] == 1
    # no date asked: the leftmost column, as before
    assert rank_facts([dec25, dec31], ParsedQuestion(True), "balance_sheet", {})[0]["id"] == 2


def test_a_row_printed_both_ways_keeps_its_sign():
    from fingap.answers.agent import _BOTH_WAYS

    assert _BOTH_WAYS.search("Interest expense (income), net")
    assert _BOTH_WAYS.search("Other (income) expense")
    assert _BOTH_WAYS.search("Provision for (benefit from) income taxes")
    assert not _BOTH_WAYS.search("Interest expense")


def test_a_described_line_item_is_named_when_the_glossary_is_as_sure_as_the_gate(
        statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    question = "What was ACME's FY2022 stock of goods turnover?"
    for score, named in ((0.9, True), (0.65, False)):   # the gate's label threshold is 0.7
        agent.meaning.glossary.read = lambda words, side=None, s=score: \
            ("inventory", s) if words == "stock goods" else None
        rec = agent.answer("q", question, [(DOC, 2)])
        plan = next(s for s in rec.steps if s["step"] == "plan")
        steps = [s for s in rec.steps if s["step"] == "name_described"]
        if named:
            assert steps, rec.steps
            assert steps[0]["read"] == [{"words": "stock of goods", "concept": "inventory",
                                         "score": 0.9}]
            assert plan["metric"] == "inventory_turnover" and plan["figure"]
        else:
            assert not steps and not plan["figure"]
        # the fixture prints no inventory: nothing is answered either way
        assert rec.value is None


def test_a_line_item_known_by_its_words_is_an_outflow_where_its_row_prints_one(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    row = {"wanted": "row_interest_charges", "label": "Interest expense"}
    assert agent._read_as_magnitude(row)
    assert not agent._read_as_magnitude(row | {"label": "Interest (income) expense, net"})
    assert not agent._read_as_magnitude(row | {"wanted": "row_interest_earned",
                                               "label": "Interest income"})


def test_a_figure_its_instruction_spells_out_as_a_division_is_answered(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "What return did ACME earn on its business in FY2022? Take the net income for "
        "the year and divide it by the net sales of the year. Express as a percentage rounded "
        "to two decimal places.", [(DOC, 2)])
    assert [s["step"] for s in rec.steps][:2] == ["restate", "plan"], rec.steps
    assert rec.formula == "(net_income__fy2022 / revenue__fy2022) * 100"
    assert rec.value == 16.37 and rec.verified, rec.reason


def test_an_operand_whose_words_mean_another_line_item_is_read_again(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    # "assets" is a term of total assets; the whole phrase describes net PP&E
    question = ("What was the depreciated carrying amount of ACME's land, buildings, machinery "
                "and other physical productive assets at the end of FY2022? Answer in USD "
                "millions.")
    rec = agent.answer("q", question, [(DOC, 2)])
    plan = next(s for s in rec.steps if s["step"] == "plan")
    assert plan["inputs"] == ["total_assets FY2022"], plan
    reread = [s for s in rec.steps if s["step"] == "reread"]
    assert reread and reread[0]["read"][0]["was"] == "total_assets", rec.steps
    assert reread[0]["read"][0]["concept"] == "ppe_net"
    assert rec.verified and rec.value == 8738 and rec.formula == "ppe_net__fy2022"
    # a reading below the gate's label threshold changes nothing: the figure is withheld
    sure = agent._sure_reading
    agent._sure_reading = lambda phrase, side=None: None
    assert agent.answer("q", question, [(DOC, 2)]).value is None
    agent._sure_reading = sure


def test_a_reading_of_the_same_family_is_no_other_reading(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    assert agent._related("ppe_net", "capex") and agent._related("capex", "ppe_net")
    assert agent._related("total_assets", "total_current_assets")
    assert not agent._related("cash", "cfo")


def test_an_operand_known_by_its_label_is_read_again_as_the_line_item_it_describes(
        statement_store):
    from fingap.answers.question import ParsedQuestion

    store, texts = statement_store
    agent = Agent(store, texts)
    pq = ParsedQuestion(True, metric="definition",
                        expression="((row_tax_charge__fy2022) / (pretax_income__fy2022) * 100)",
                        inputs=[("row_tax_charge", 2022), ("pretax_income", 2022)],
                        labels={"row_tax_charge": "tax charge"},
                        described={"row_tax_charge": "the tax charge"},
                        phrases={"pretax_income": "pre tax earnings"})
    agent._sure_reading = lambda phrase, side=None: \
        ("income_tax", 0.9) if phrase == "tax charge" else None
    pq2, read = agent._reread(pq, {DOC})
    assert read == [{"words": "the tax charge", "was": "row_tax_charge",
                     "concept": "income_tax", "score": 0.9}]
    assert pq2.expression == "((income_tax__fy2022) / (pretax_income__fy2022) * 100)"
    assert pq2.inputs == [("income_tax", 2022), ("pretax_income", 2022)]
    assert pq2.labels == {} and pq2.described == {}
    assert pq2.phrases == {"pretax_income": "pre tax earnings", "income_tax": "tax charge"}
    # nothing read otherwise: no new parse
    agent._sure_reading = lambda phrase, side=None: None
    assert agent._reread(pq, {DOC}) is None


def test_a_metric_the_question_spells_out_is_read_from_its_instruction(statement_store):
    store, texts = statement_store
    agent = Agent(store, texts)
    rec = agent.answer(
        "q", "What was ACME's operating margin in FY2022? Use operating income plus "
        "depreciation and amortization, divided by net sales. Answer in percent, rounded to "
        "two decimal places.", [(DOC, 1), (DOC, 2)])
    steps = [s["step"] for s in rec.steps]
    # the library's operating margin leaves out what the instruction adds; the gate refuses it
    # and the instruction's own arithmetic is read instead, once
    assert "spelt_out" in steps, rec.steps
    assert rec.verified and rec.value == pytest.approx(26.54), (rec.value, rec.reason)
    assert rec.formula.count("operating_income__fy2022") == 1


def test_the_shareholders_share_the_gate_names_is_read_from_its_row(tmp_path):
    import pymupdf

    from fingap.answers.fact_store import FactStore, write_store
    from fingap.answers.labels import Vocabulary
    from fingap.ingestion.statement_tables import doc_facts

    from ..conftest import write_statement_pdf

    # the resolver reads the total with the minority owners' stakes; the gate names the row
    # of the company's own shareholders beside it, and the answer is read from that row
    pdf = tmp_path / f"{DOC}.pdf"
    rows = [("Total ACME Corp stockholders' equity", ["4,832", "6,071"]),
            ("Noncontrolling interests", ["378", "4,906"]),
            ("Total stockholders' equity", ["5,210", "10,977"])]
    write_statement_pdf(pdf, [[dict(title="Consolidated Balance Sheet", years=["2022", "2021"],
                                    rows=rows, duration="At December 31")]])
    with pymupdf.open(pdf) as d:
        texts = {(DOC, i): p.get_text() for i, p in enumerate(d)}
    facts, _, _ = doc_facts(pdf, DOC, {p: t for (_, p), t in texts.items()})
    write_store(tmp_path / "f.sqlite", facts, Vocabulary.load(), companies={DOC: "ACME Corp"})
    with FactStore(tmp_path / "f.sqlite") as store:
        agent = Agent(store, texts)
        q = ("What was the book value of the equity belonging to ACME's own shareholders, "
             "leaving out the stakes held by minority owners, at December 31, 2022? Answer in "
             "USD millions.")
        rec = agent.answer("q", q, [(DOC, 0)])
        assert rec.verified and rec.value == 4832.0, (rec.reason, rec.steps)
        assert rec.inputs[0]["label"] == "Total ACME Corp stockholders' equity"
        assert any(st["step"] == "variant" for st in rec.steps), rec.steps
        # asked for the total, there is no variant to read: "Total stockholders' equity" is it
        rec = agent.answer("q", "What was ACME's total stockholders' equity at December 31, "
                           "2022? Answer in USD millions.", [(DOC, 0)])
        assert rec.value == 5210.0 and not any(st["step"] == "variant" for st in rec.steps), \
            (rec.reason, rec.steps)


def test_how_many_times_one_figure_covered_another_is_their_ratio(statement_store):
    # a source clause before the question named nothing the parser could build with "times"
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "Using ACME's annual report, how many times over did the cash its operations "
             "generated in fiscal 2022 cover its total current liabilities? Two decimals.",
        [(DOC, 1), (DOC, 2)])
    assert any(s["step"] == "restate" and "ratio of" in s["question"] for s in rec.steps)
    assert rec.inputs and {i["concept"] for i in rec.inputs} == {
        "cfo", "total_current_liabilities"}, rec.reason
