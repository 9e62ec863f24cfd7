from fingap.answers.gate import gate_structured, gate_text, period_position, value_on_page

from ..conftest import DOC


def _input(**kw):
    base = {"name": "capex__fy2022", "doc": DOC, "page": 1, "value": -1577.0, "year": 2022,
            "label": "Purchases of property, plant and equipment (PP&E)", "magnitude": True}
    return base | kw


def test_value_and_period_are_checked_on_the_page_text(statement_store):
    _, texts = statement_store
    text = texts[(DOC, 1)]
    assert value_on_page(-1577, text) and value_on_page(1577, text, magnitude=True)
    assert not value_on_page(1577, text)  # printed in parentheses: only as a magnitude
    assert period_position(text, "Net income", 5363, 2022) is True
    assert period_position(text, "Net income", 4869, 2022) is False  # 2021's column
    assert period_position(text, "No such row", 5363, 2022) is None


def test_a_sections_unlabelled_total_is_read_after_its_parts():
    # the parser's "Revenues (total)": the row with no label after the section's parts
    text = "\n".join(["Consolidated Statements of Operations", "Year Ended December 31,",
                      "2020", "2019", "Revenues", "Casino", "$", "2,871,720", "$", "6,517,759",
                      "Rooms", "830,382", "2,322,579", " ", "3,702,102", "8,840,338",
                      "Expenses", "Casino", "1,701,783", "3,623,899"])
    assert period_position(text, "Revenues (total)", 3702102, 2020) is True
    assert period_position(text, "Revenues (total)", 8840338, 2020) is False  # 2019's column
    assert period_position(text, "Revenues (total)", 830382, 2020) is None    # a part's value
    assert period_position(text, "Expenses (total)", 1701783, 2020) is None   # no total row


def test_gate_passes_grounded_inputs_and_flags_corruptions(statement_store):
    _, texts = statement_store
    assert gate_structured([_input()], texts, 1577.0, 1577.0).passed
    corrupt = {
        "x1.1": _input(value=-1577 * 1.1),
        "wrong year column": _input(value=-1373.0),
        "wrong page": _input(page=2),
        "missing page": _input(page=9),
    }
    for what, inp in corrupt.items():
        g = gate_structured([inp], texts, 1577.0, 1577.0)
        assert not g.passed, what
        assert g.reasons, what
    # the answer must be the calculator's result
    assert not gate_structured([_input()], texts, 1600.0, 1577.0).passed


def test_text_gate_for_llm_answers(statement_store):
    _, texts = statement_store
    pages = [texts[(DOC, 1)]]
    q = "What was ACME's FY2022 net income?"
    assert gate_text("Net income was $5,363 million in FY2022.", q, pages).passed
    assert gate_text("Net income was $5.363 billion.", q, pages).passed
    assert not gate_text("Net income was $6,100 million.", q, pages).passed
    assert gate_text("I cannot tell from the context.", q, pages).passed  # no number claimed


def test_period_check_reads_dated_headers_and_percent_columns():
    text = ("Consolidated Statements of Income\nFiscal years ended December 25, 2021 and "
            "December 26, 2020\n(in millions)\nNovember 27,\n2021\nNovember 28,\n2020\n"
            "Net sales\n$ 3,226,773 100.0% $\n2,729,388 100.0%\nNet income\n"
            "1,603,451  1,499,218\n")
    assert period_position(text, "Net sales", 2729388, 2020) is True
    assert period_position(text, "Net sales", 2729388, 2021) is False
    assert period_position(text, "Net income", 1499218, 2020) is True


def test_header_columns_read_durations_and_end_months():
    from fingap.answers.gate import row_hits

    grouped = ("Condensed Consolidated Statements of Earnings\nThree Months Ended\nSix Months "
               "Ended\nJuly 29, 2023\nJuly 30, 2022\nJuly 29, 2023\nJuly 30, 2022\nRevenue\n"
               "9,583\n10,329\n19,050\n20,976\n")
    (hit,) = row_hits(grouped, "Revenue", 19050)
    assert [(c.year, c.duration, c.month) for c in hit.columns] == [
        (2023, "3M", "Jul"), (2022, "3M", "Jul"), (2023, "6M", "Jul"), (2022, "6M", "Jul")]
    assert hit.hits == [2] and hit.statement == "income"
    # prose above the header ("... this Annual Report ...") states no duration
    quarterly = ("Quarterly Results of Operations\nThe data has been prepared as in the Annual "
                 "Report on Form 10-K.\nThree Months Ended,\nDec. 31,\n2020\nSep. 30,\n2020\n"
                 "Total net revenue\n3,158\n3,033\n")
    (hit,) = row_hits(quarterly, "Total net revenue", 3033)
    assert [(c.duration, c.month) for c in hit.columns] == [("3M", "Dec"), ("3M", "Sep")]
    # a title stating the period for every column; a balance sheet states none
    annual = ("Consolidated Statements of Income\nYears Ended December 31\n2022\n2021\n"
              "Net income\n5\n4\n")
    assert row_hits(annual, "Net income", 5)[0].columns[0].duration == "12M"
    balance = "Consolidated Balance Sheets\nDecember 31,\n2022\n2021\nTotal assets\n50\n40\n"
    (hit,) = row_hits(balance, "Total assets", 50)
    assert hit.columns[0].duration is None and hit.statement == "balance_sheet"



def test_a_release_whose_column_heads_come_last_with_unmarked_percents():
    from fingap.answers.gate import row_hits

    # the PDF draws "FOURTH QUARTER 2022 2021" after the table, and each period prints an
    # amount and its percent of sales (no "%"), then a change column
    text = ("Condensed Consolidated Statement of Earnings\nPercent\nPercent\nAmount\n"
            "to Sales\nAmount\nto Sales\n(Decrease)\nSales to customers\n23,706\n100.0\n"
            "24,804\n100.0\n(4.4)\nCost of products sold\n7,765\n32.8\n7,955\n32.1\n(2.4)\n"
            "(1) See Reconciliation.\nFOURTH QUARTER\n2022\n2021\n")
    (hit,) = row_hits(text, "Cost of products sold", 7955)
    assert [(c.year, c.duration) for c in hit.columns] == [(2022, "3M"), (2021, "3M")]
    assert hit.hits == [1]
    # a percent cell is no amount of either period
    assert row_hits(text, "Cost of products sold", 32.8) == []


def test_a_dash_cell_above_a_number_is_two_cells():
    text = "Proceeds from sale of businesses\n-\n1,065\n"
    assert value_on_page(1065, text) and not value_on_page(-1065, text)
    assert value_on_page(1065, "Total $ 1,065\n")


def test_page_items_keep_a_parenthesised_dollar_amount_whole():
    from fingap.answers.gate import page_items, row_hits

    text = ("Years ended December 31,\n2022\n2021\nNet loss attributable to ACME Shareholders\n"
            "($4,935)\n($4,202)\n")
    assert page_items(text)[4] == "(4,935)"
    hits = row_hits(text, "Net loss attributable to ACME Shareholders", -4935.0)
    assert [h.columns[k].year for h in hits for k in h.hits] == [2022]


def test_a_row_under_the_reconciliation_of_profit_to_operating_cash_sits_on_the_cash_flow():
    from fingap.answers.gate import row_hits

    text = ("Index to Consolidated Financial Statements\nFor the Years Ended December 31,\n"
            "In millions\n2022\n2021\nReconciliation of net income to net cash provided by "
            "operating activities:\nNet income\n$\n4,165\n$\n7,898\nDepreciation and "
            "amortization\n4,247\n4,512\n")
    hits = row_hits(text, "Depreciation and amortization", 4247.0)
    assert hits and hits[0].statement == "cash_flow"
