import pymupdf

from fingap.ingestion.statement_tables import page_tables, statement_kind

from ..conftest import STATEMENT_ROWS, write_statement_pdf


def _facts(tmp_path, statements, doc="ACME_2022_10K"):
    path = tmp_path / "s.pdf"
    write_statement_pdf(path, [statements])
    with pymupdf.open(path) as d:
        page = d[0]
        return page_tables(doc, 0, page.get_text("words"), page.get_text())


def _by(pt, label):
    return {(f.year, f.duration): f.value for f in pt.facts if f.label == label}


def test_cash_flow_statement_rows_signs_dashes_and_wrapped_labels(tmp_path):
    pt = _facts(tmp_path, [dict(title="Consolidated Statement of Cash Flows",
                                years=["2022", "2021"], rows=STATEMENT_ROWS)])
    assert pt.statement == "cash_flow" and pt.n_tables == 1
    assert _by(pt, "Net income") == {(2022, "12M"): 5363, (2021, "12M"): 4869}
    # the label wraps onto a second line; parentheses are negative
    assert _by(pt, "Purchases of property, plant and equipment (PP&E)") == {
        (2022, "12M"): -1577, (2021, "12M"): -1373}
    # a dash is zero
    assert _by(pt, "Proceeds from sale of businesses") == {(2022, "12M"): 0, (2021, "12M"): 1065}
    assert {f.scale for f in pt.facts} == {"millions"}
    assert {f.section for f in pt.facts if f.label == "Net income"} == {
        "Cash Flows from Operating Activities"}


def test_columns_printed_oldest_first(tmp_path):
    pt = _facts(tmp_path, [dict(title="Consolidated Statements of Income",
                                years=["2020", "2021", "2022"], col_x=(340.0, 420.0, 500.0),
                                rows=[("Net sales", ["30,000", "31,000", "32,765"]),
                                      ("Cost of sales", ["15,000", "16,000", "16,682"])])])
    assert _by(pt, "Net sales") == {(2020, "12M"): 30000, (2021, "12M"): 31000,
                                    (2022, "12M"): 32765}


def test_two_statements_on_one_page_get_their_own_kind_and_periods(tmp_path):
    pt = _facts(tmp_path, [
        dict(title="Consolidated Statement of Income", years=["2022", "2021"],
             rows=[("Net sales", ["32,765", "31,000"])]),
        dict(title="Consolidated Balance Sheet", years=["2023", "2022"], duration=None,
             scale="(in millions)", rows=[("Total current assets", ["14,000", "13,000"])])])
    assert pt.n_tables == 2
    kinds = {f.label: f.statement for f in pt.facts}
    assert kinds == {"Net sales": "income", "Total current assets": "balance_sheet"}
    assert _by(pt, "Total current assets") == {(2023, None): 14000, (2022, None): 13000}


def test_quarterly_four_columns_resolve_durations(tmp_path):
    path = tmp_path / "q.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 60), "Condensed Consolidated Statements of Earnings", fontsize=9)
    page.insert_text((50, 72), "($ in millions)", fontsize=9)
    page.insert_text((300, 90), "Three Months Ended", fontsize=9)
    page.insert_text((450, 90), "Six Months Ended", fontsize=9)
    for x, y in zip((300, 360, 450, 510), ("2023", "2022", "2023", "2022"), strict=True):
        page.insert_text((x, 102), y, fontsize=9)
    for y, label, cells in ((120, "Revenue", ("9,583", "10,329", "19,050", "20,976")),
                            (132, "Cost of sales", ("7,363", "8,042", "14,680", "16,336"))):
        page.insert_text((50, y), label, fontsize=9)
        for x, v in zip((300, 360, 450, 510), cells, strict=True):
            page.insert_text((x, y), v, fontsize=9)
    doc.save(str(path))
    with pymupdf.open(path) as d:
        p = d[0]
        pt = page_tables("ACME_2024Q2_10Q", 0, p.get_text("words"), p.get_text())
    assert _by(pt, "Revenue") == {(2023, "3M"): 9583, (2022, "3M"): 10329,
                                  (2023, "6M"): 19050, (2022, "6M"): 20976}


def test_malformed_tables_are_skipped_with_a_reason(tmp_path):
    # value rows but no period header
    path = tmp_path / "n.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    for i, (label, a, b) in enumerate([("Stores", "120", "130"), ("Employees", "5,000", "6,000"),
                                       ("Countries", "12", "14")]):
        page.insert_text((50, 100 + 12 * i), label, fontsize=9)
        page.insert_text((400, 100 + 12 * i), a, fontsize=9)
        page.insert_text((480, 100 + 12 * i), b, fontsize=9)
    doc.save(str(path))
    with pymupdf.open(path) as d:
        p = d[0]
        pt = page_tables("X", 0, p.get_text("words"), p.get_text())
    assert pt.facts == [] and pt.skipped["value row without a period header"] == 3
    # a row with more values than the header has columns (a "% change" column, say)
    pt = _facts(tmp_path, [dict(title="Consolidated Statement of Income", years=["2022", "2021"],
                                col_x=(260.0, 340.0, 420.0),
                                rows=[("Net sales", ["1", "2", "3"]),
                                      ("Cost of sales", ["4", "5"])])])
    assert pt.skipped["more values than header columns"] == 1
    assert {f.label for f in pt.facts} == {"Cost of sales"}


def test_statement_kind_survives_split_title_words():
    assert statement_kind("3M Company\nConsolidated Balance Shee t\nAt December 31") == \
        "balance_sheet"
    assert statement_kind("Consolidated Statement of Cash Flow s") == "cash_flow"
    assert statement_kind("CONSOLIDATED STATEMENTS OF OPERATIONS") == "income"
    assert statement_kind("Item 7. Management's discussion") == "table"
    # a direct-method filer's reconciliation of profit to operating cash (ASC 230) is part
    # of its cash flow statement
    assert statement_kind("Index to Consolidated Financial Statements\nIn millions\n"
                          "Reconciliation of net income to net cash provided by operating "
                          "activities:\nNet income") == "cash_flow"
    assert statement_kind("Reconciliation of non-GAAP measures\nAdjusted EBITDA") == "table"


def _page(tmp_path, texts: list[tuple[float, float, str]], right: set[int] = frozenset()):
    """A page of positioned words; ``right`` holds the indexes drawn right-aligned at x."""
    path = tmp_path / "p.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    for i, (x, y, t) in enumerate(texts):
        if i in right:
            x -= pymupdf.get_text_length(t, fontsize=9)
        page.insert_text((x, y), t, fontsize=9)
    doc.save(str(path))
    with pymupdf.open(path) as d:
        p = d[0]
        return page_tables("ACME_2023Q4_EARNINGS", 0, p.get_text("words"), p.get_text())


def _row(y, label, cells, xs):
    return [(50, y, label)] + [(x, y, c) for x, c in zip(xs, cells, strict=True)]


def test_header_beside_a_scale_caption_and_durations_over_column_groups(tmp_path):
    # "Three Months Ended June 30," spans the first two year columns and is printed left of
    # their centres; the years share their line with "($ million, ...)"; oldest first
    xs = (320, 390, 460, 530)
    texts = [(50, 60, "Condensed Consolidated Statements of Income"),
             (290, 75, "Three Months Ended June 30,"), (430, 75, "Twelve Months Ended June 30,"),
             (50, 90, "($ million, except per share amounts)")]
    texts += [(x - 20, 90, y) for x, y in zip(xs, ("2022", "2023", "2022", "2023"), strict=True)]
    rows = _row(104, "Net sales", ["3,909", "3,673", "14,544", "14,694"], xs) + \
        _row(118, "Gross profit", ["794", "722", "2,820", "2,725"], xs)
    right = {i for i, (x, _, _) in enumerate(texts + rows) if x in xs}
    pt = _page(tmp_path, texts + rows, right)
    assert _by(pt, "Net sales") == {(2022, "3M"): 3909, (2023, "3M"): 3673,
                                    (2022, "12M"): 14544, (2023, "12M"): 14694}
    # one month over a group holds for each of its columns
    assert {f.period_end for f in pt.facts} == {"Jun"}


def test_an_unlabelled_row_after_its_parts_is_the_sections_total(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Condensed Consolidated Balance Sheet"), (50, 72, "(in millions)"),
             (400, 84, "2023"), (480, 84, "2022"), (50, 100, "Inventories:")]
    rows = (_row(112, "Raw materials", ["2,435", "2,366"], xs)
            + _row(124, "Finished goods", ["3,147", "2,742"], xs)
            + [(xs[0], 136, "5,582"), (xs[1], 136, "5,108")]
            + [(50, 160, "Other items:")] + _row(172, "Deposits", ["10", "12"], xs)
            + [(300, 200, "8")])  # a page number is no total
    right = {i for i, (x, _, _) in enumerate(texts + rows) if x in xs}
    pt = _page(tmp_path, texts + rows, right)
    assert _by(pt, "Inventories (total)") == {(2023, None): 5582, (2022, None): 5108}
    assert not [f for f in pt.facts if f.label.startswith("Other items")]


def test_an_unlabelled_row_adding_up_a_headed_block_is_its_total(tmp_path):
    # "Revenues" (no colon) over its parts, then a row with no label: a total only where its
    # values are the column sums; a row that does not add up stays unlabelled and skipped
    xs = (420, 500)
    texts = [(50, 60, "Consolidated Statements of Operations"), (50, 72, "(in thousands)"),
             (400, 84, "2020"), (480, 84, "2019"), (50, 100, "Revenues")]
    rows = (_row(112, "Casino", ["2,871,720", "6,517,759"], xs)
            + _row(124, "Rooms", ["830,382", "2,322,579"], xs)
            + [(xs[0], 136, "3,702,102"), (xs[1], 136, "8,840,338")]
            + [(50, 160, "Expenses")] + _row(172, "Casino", ["1,701,783", "3,623,899"], xs)
            + _row(184, "Gain on sale", ["(1,000)", "(2,000)"], xs)
            + [(xs[0], 196, "1,700,000"), (xs[1], 196, "3,621,899")]
            + [(50, 220, "Fees")] + _row(232, "Advisory", ["10", "20"], xs)
            + _row(244, "Underwriting", ["30", "40"], xs) + [(xs[0], 256, "40"), (xs[1], 256, "60")]
            + _row(268, "Corporate", ["5", "5"], xs) + _row(280, "Other", ["1", "1"], xs)
            + [(xs[0], 292, "6"), (xs[1], 292, "6")])
    right = {i for i, (x, _, _) in enumerate(texts + rows) if x in xs}
    pt = _page(tmp_path, texts + rows, right)
    assert _by(pt, "Revenues (total)") == {(2020, None): 3702102, (2019, None): 8840338}
    assert not [f for f in pt.facts if f.label.startswith("Expenses (total)")]
    # once totalled, the section is closed: a later sum of the rows after it is no total of
    # "Fees" (a grand total of other blocks)
    assert _by(pt, "Fees (total)") == {(2020, None): 40, (2019, None): 60}
    assert pt.skipped["value row without a label"] == 2


def test_amount_columns_beside_percent_to_sales_cells(tmp_path):
    # earnings releases print "Amount | Percent to Sales" under each year, and a "Percent
    # Increase (Decrease)" column, with percent cells that carry no "%"
    xs = (300, 350, 420, 470, 545)
    texts = [(50, 60, "Condensed Consolidated Statement of Earnings"), (50, 72, "(in millions)"),
             (282, 84, "2022"), (402, 84, "2021"),
             (268, 100, "Amount"), (322, 100, "Percent"), (388, 100, "Amount"),
             (442, 100, "Percent"), (505, 100, "Percent")]
    rows = (_row(114, "Sales to customers", ["23,706", "100.0", "24,804", "100.0", "(4.4)"], xs)
            + _row(128, "Cost of products sold", ["7,765", "32.8", "7,955", "32.1", "(2.4)"], xs))
    right = {i for i, (x, _, _) in enumerate(texts + rows) if x in xs}
    pt = _page(tmp_path, texts + rows, right)
    assert _by(pt, "Cost of products sold") == {(2022, None): 7765, (2021, None): 7955}


def test_amount_columns_beside_percent_to_sales_cells_and_a_change_column(tmp_path):
    # the same layout with a "Percent Increase (Decrease)" head, read as a change column: the
    # amounts are kept, the change cell gives no fact, and a row with no change cell is read
    xs = (300, 350, 420, 470, 545)
    texts = [(50, 60, "Condensed Consolidated Statement of Earnings"), (50, 72, "(in millions)"),
             (282, 80, "2022"), (402, 80, "2021"), (505, 80, "Percent"),
             (322, 90, "Percent"), (442, 90, "Percent"), (505, 90, "Increase"),
             (268, 100, "Amount"), (322, 100, "to Sales"), (388, 100, "Amount"),
             (442, 100, "to Sales"), (505, 100, "(Decrease)")]
    rows = (_row(114, "Sales to customers", ["23,706", "100.0", "24,804", "100.0", "(4.4)"], xs)
            + _row(128, "Cost of products sold", ["7,765", "32.8", "7,955", "32.1", "(2.4)"], xs)
            + _row(142, "Restructuring", ["75", "0.3", "80", "0.3"], xs[:4]))
    right = {i for i, (x, _, _) in enumerate(texts + rows) if x in xs}
    pt = _page(tmp_path, texts + rows, right)
    assert _by(pt, "Cost of products sold") == {(2022, None): 7765, (2021, None): 7955}
    assert _by(pt, "Restructuring") == {(2022, None): 75, (2021, None): 80}


def _page_right(tmp_path, texts: list[tuple[float, float, str]], xs: tuple[float, ...]):
    """A page whose words at the value columns ``xs`` are drawn right-aligned there."""
    return _page(tmp_path, texts, {i for i, (x, _, _) in enumerate(texts) if x in xs})


def _table(tmp_path, head: list[tuple[float, float, str]], rows: list[tuple[str, list[str]]],
           xs: tuple[float, ...], top: float = 110, tail: list[tuple[float, float, str]] = ()):
    """A page: ``head`` words, then ``rows`` with values right-aligned at ``xs``."""
    texts = list(head)
    for k, (label, cells) in enumerate(rows):
        texts += _row(top + 12 * k, label, cells, xs[:len(cells)])
    texts += list(tail)
    right = {i for i, (x, _, t) in enumerate(texts) if x in xs and not t[:1].isupper()}
    return _page(tmp_path, texts, right)


def test_change_columns_are_no_period_columns(tmp_path):
    # "Percent Change" over "2017 vs. 2016": the compared years are not the column's own
    xs = (330, 390, 450, 515, 585)
    head = [(50, 60, "Consolidated Statements of Income"), (480, 80, "Percent Change"),
            (50, 92, "(In millions except percentages)"),
            (310, 92, "2017"), (370, 92, "2016"), (430, 92, "2015"),
            (465, 92, "2017 vs. 2016"), (535, 92, "2016 vs. 2015")]
    pt = _table(tmp_path, head, [("Net operating revenues", ["35,410", "41,863", "44,294",
                                                             "(15)%", "(5)%"]),
                                 ("Cost of goods sold", ["13,256", "16,465", "17,482", "(19)",
                                                         "(6)"])], xs)
    assert _by(pt, "Cost of goods sold") == {(2017, None): 13256,
                                             (2016, None): 16465, (2015, None): 17482}
    assert {f.n_columns for f in pt.facts} == {3} and not any(f.percent for f in pt.facts)


def test_percent_change_head_and_quarter_beside_full_year(tmp_path):
    # an earnings release: "Q4 | Full Year" groups, each with "% Change"
    xs = (250, 300, 360, 440, 495, 555)
    head = [(50, 60, "Non-GAAP ($ in Millions, except EPS)"), (260, 80, "Q4"),
            (450, 80, "Full Year"), (230, 92, "2022"), (280, 92, "2021"), (330, 92, "% Change"),
            (420, 92, "2022"), (475, 92, "2021"), (525, 92, "% Change")]
    pt = _table(tmp_path, head, [("Adjusted net earnings", ["6,218", "5,678", "9.5%", "27,038",
                                                            "26,195", "3.2%"]),
                                 ("Adjusted EPS (diluted)", ["2.35", "2.13", "10.3%", "10.15",
                                                             "9.80", "3.6%"])], xs)
    assert _by(pt, "Adjusted net earnings") == {(2022, "3M"): 6218, (2021, "3M"): 5678,
                                                (2022, "12M"): 27038, (2021, "12M"): 26195}
    eps = [f for f in pt.facts if f.label.startswith("Adjusted EPS")]
    assert {f.scale for f in eps} == {None}


def test_footnote_marks_among_values_stay_out_of_the_label(tmp_path):
    xs = (330, 400, 470)
    head = [(50, 60, "Consolidated Statement of Income"), (50, 72, "(in millions)"),
            (310, 86, "2017"), (380, 86, "2016")]
    texts = head + _row(100, "Other income (loss) - net", ["(1,666)", "(1,234)", "*"], xs) + \
        _row(112, "Interest income", ["677", "642", "(a)"], xs)
    right = {i for i, (x, _, t) in enumerate(texts) if x in xs}
    pt = _page(tmp_path, texts, right)
    assert _by(pt, "Other income (loss) - net") == {(2017, None): -1666, (2016, None): -1234}
    assert _by(pt, "Interest income") == {(2017, None): 677, (2016, None): 642}


def test_page_number_and_prose_close_a_table(tmp_path):
    # a footnote across the page ends the table: the single-column table below it has no
    # period header of its own and must not borrow the years above; the page number under the
    # last line of text is no value
    xs = (420, 500, 580)
    head = [(50, 60, "Infrastructure surcharges"), (50, 80, "(In millions)"),
            (400, 80, "2021"), (480, 80, "2020"), (560, 80, "2019")]
    prose = "(a) Excludes authorized increases of $2 million in 2019 for the Company's " \
        "subsidiary in New Jersey, see Note 4 for more on the filings"
    tail = [(50, 150, prose), (50, 170, "(In millions)"), (550, 170, "Amount"),
            (50, 184, "Illinois (effective January 1, 2022)"), (580, 184, "6"),
            (50, 196, "Total surcharge filings"), (580, 196, "18"),
            (50, 230, "that plan prior to May 12, 2017."), (300, 280, "109")]
    pt = _table(tmp_path, head, [("New Jersey", ["26", "20", "15"]),
                                 ("Total surcharge authorizations", ["65", "72", "51"])], xs,
                top=94, tail=tail)
    assert _by(pt, "New Jersey") == {(2021, None): 26, (2020, None): 20, (2019, None): 15}
    assert not [f for f in pt.facts if "filings" in f.label or "plan" in f.label]
    assert pt.skipped["value row without a period header"] == 2
    assert pt.skipped["page number"] == 1


def test_a_year_printed_as_a_row_label_is_no_header(tmp_path):
    # a maturity schedule: "2020  —", "2021  650" at the left margin
    texts = [(50, 60, "Scheduled maturities (amounts in millions)"),
             (50, 72, "For the years ending December 31,")]
    for k, (year, v) in enumerate([("2020", "—"), ("2021", "650"), ("2022", "400")]):
        texts += [(50, 86 + 12 * k, year), (560, 86 + 12 * k, v)]
    texts += [(50, 122, "Thereafter"), (560, 122, "1,650")]
    pt = _page(tmp_path, texts, {i for i, (x, _, _) in enumerate(texts) if x == 560})
    assert pt.facts == [] and pt.n_tables == 0


def test_scales_per_row_and_per_table(tmp_path):
    # per-share rows under an "Earnings per share:" head, ratios, a row's own "(in billions)"
    xs = (420, 500)
    head = [(50, 60, "Selected financial data"),
            (50, 72, "(In millions, except per share data and financial ratios)"),
            (400, 86, "2018"), (480, 86, "2017")]
    rows = [("Revenues", ["36,397", "34,350"]), ("Inventory turns", ["4.0", "3.8"])]
    texts = list(head)
    for k, (label, cells) in enumerate(rows):
        texts += _row(100 + 12 * k, label, cells, xs)
    texts += _row(124, "Servicer advances (in billions)", ["1.2", "1.7"], xs) + \
        [(50, 136, "Earnings per share:")] + _row(148, "Diluted", ["1.17", "2.51"], xs) + \
        _row(160, "Weighted average diluted shares", ["1,020", "1,041"], xs)
    pt = _page_right(tmp_path, texts, xs)
    scale = {f.label: f.scale for f in pt.facts}
    assert scale == {"Revenues": "millions", "Inventory turns": None, "Diluted": None,
                     "Servicer advances (in billions)": "billions",
                     "Weighted average diluted shares": "millions"}


def test_a_tax_rate_reconciliation_is_percentage_points(tmp_path):
    # the page's "(dollars in millions)" heads another table; this one prints "%" in its
    # first and last rows only
    xs = (420, 500)
    texts = [(50, 60, "(dollars in millions)"), (400, 72, "2021"), (480, 72, "2020")]
    texts += _row(84, "Domestic", ["27,607", "22,844"], xs)
    texts += _row(96, "Total", ["29,420", "23,967"], xs)
    texts += [(50, 120, "Reconciliation of the statutory rate"), (400, 132, "2021"),
              (480, 132, "2020")]
    for k, (label, cells) in enumerate([("Statutory federal income tax rate", ["21.0%", "21.0%"]),
                                        ("State and local income tax", ["3.8", "3.9"]),
                                        ("Tax credits", ["(0.5)", "(0.8)"]),
                                        ("Effective income tax rate", ["23.1%", "23.4%"])]):
        texts += _row(144 + 12 * k, label, cells, xs)
    pt = _page_right(tmp_path, texts, xs)
    credits = [f for f in pt.facts if f.label == "Tax credits"]
    assert [(f.value, f.percent, f.scale) for f in credits] == [(-0.5, True, None),
                                                               (-0.8, True, None)]
    assert {f.scale for f in pt.facts if f.label == "Domestic"} == {"millions"}


def test_end_date_from_month_and_day_over_the_years(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Consolidated Balance Sheets"), (50, 72, "(in millions)"),
             (390, 84, "December 31,"), (395, 96, "2022"), (475, 96, "2021")]
    texts += _row(110, "Total assets", ["92,364", "88,000"], xs)
    texts += _row(122, "Total liabilities", ["48,000", "47,000"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert {(f.year, f.end_date) for f in pt.facts if f.label == "Total assets"} == {
        (2022, "2022-12-31"), (2021, "2021-12-31")}


def test_an_increase_head_over_amount_and_percent_cells(tmp_path):
    # "Increase/(Decrease)" over "2022 vs. 2021" holds two cells: an amount and a percent
    xs = (400, 450, 500, 552)
    texts = [(50, 60, "Consolidated Operating Revenues"), (460, 72, "(dollars in millions)"),
             (470, 84, "Increase/(Decrease)"), (50, 96, "Years Ended December 31,"),
             (380, 96, "2022"), (430, 96, "2021"), (485, 96, "2022 vs. 2021")]
    texts += _row(110, "Consumer", ["103,506", "95,300", "8,206", "8.6%"], xs)
    texts += _row(122, "Eliminations", ["(253)", "(451)", "198", "43.9"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert _by(pt, "Eliminations") == {(2022, "12M"): -253, (2021, "12M"): -451}


def test_balance_columns_beside_average_columns_have_no_duration(tmp_path):
    # "June 30, 2023" (a balance) beside "Three months ended June 30," (averages)
    xs = (330, 400, 500, 570)
    texts = [(50, 60, "Sources of funds"), (300, 76, "June 30, 2023"),
             (450, 76, "Three months ended June 30,"),
             (50, 90, "(in millions)"), (310, 90, "2023"), (380, 90, "2022"),
             (480, 90, "2023"), (550, 90, "2022")]
    texts += _row(104, "Commercial paper", ["11,686", "12,557", "11,057", "19,589"], xs)
    texts += _row(116, "Senior notes", ["177,966", "188,025", "180,712", "187,143"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert {(f.column, f.duration) for f in pt.facts if f.label == "Senior notes"} == {
        (0, None), (1, None), (2, "3M"), (3, "3M")}


def test_full_dates_in_a_caption_name_their_columns(tmp_path):
    # fiscal years ending on different days; a sentence above about another date is ignored
    xs = (420, 500, 580)
    texts = [(50, 40, "On December 24, 2021 the board approved a dividend."),
             (50, 60, "Consolidated Statement of Income"),
             (50, 72, "Fiscal years ended December 31, 2022, December 25, 2021 and "
                      "December 26, 2020"),
             (50, 84, "(in millions)"), (400, 96, "2022"), (480, 96, "2021"), (560, 96, "2020")]
    texts += _row(110, "Net revenue", ["86,392", "79,474", "70,372"], xs)
    texts += _row(122, "Cost of sales", ["40,576", "37,075", "31,797"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert {(f.year, f.end_date) for f in pt.facts if f.label == "Net revenue"} == {
        (2022, "2022-12-31"), (2021, "2021-12-25"), (2020, "2020-12-26")}


def test_a_date_over_one_column_beside_a_full_date(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Inventories"), (400, 72, "July 2,"),
             (50, 84, "(MILLIONS)"), (400, 84, "2023"), (455, 84, "December 31, 2022")]
    texts += _row(98, "Finished goods", ["3,048", "2,603"], xs)
    texts += _row(110, "Work-in-process", ["6,409", "5,519"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert {(f.year, f.end_date) for f in pt.facts if f.label == "Work-in-process"} == {
        (2023, "2023-07-02"), (2022, "2022-12-31")}


def test_a_caption_under_the_years_and_counts_without_a_money_scale(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Operating data"), (400, 72, "2017"), (480, 72, "2016"),
             (440, 84, "(in thousands)")]
    texts += _row(98, "Rooms", ["(12,379)", "(10,097)"], xs)
    texts += _row(110, "Casino", ["(100,190)", "(99,861)"], xs)
    texts += [(50, 140, "(In millions)"), (400, 152, "2021"), (480, 152, "2020")]
    texts += _row(166, "Net cash provided by operating activities", ["18,265", "15,865"], xs)
    texts += [(50, 196, "Store data"), (400, 208, "2021"), (480, 208, "2020")]
    texts += _row(222, "Total stores (beginning of year)", ["9,962", "9,941"], xs)
    texts += _row(234, "Closed", ["(80)", "(30)"], xs)
    pt = _page_right(tmp_path, texts, xs)
    scale = {f.label: f.scale for f in pt.facts}
    assert scale["Rooms"] == "thousands"
    assert scale["Net cash provided by operating activities"] == "millions"
    assert scale["Total stores (beginning of year)"] is None


def test_per_share_items_of_an_eps_reconciliation_but_not_a_row_of_dashes(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Non-GAAP reconciliation"),
             (50, 72, "($ in millions, except per share amounts)"),
             (400, 84, "2023"), (480, 84, "2022")]
    rows = [("Operating income", ["1,795", "3,039"]), ("Diluted EPS", ["6.29", "9.84"]),
            ("Restructuring", ["0.02", "(0.14)"]), ("Intangible asset amortization",
                                                     ["0.38", "0.33"]),
            ("Net earnings", ["1,419", "2,454"])]
    for k, (label, cells) in enumerate(rows):
        texts += _row(98 + 12 * k, label, cells, xs)
    texts += [(50, 170, "Adjusted net income per share")]
    texts += _row(182, "Gain on sale of asset group", ["-", "-"], xs)
    pt = _page_right(tmp_path, texts, xs)
    scale = {f.label: f.scale for f in pt.facts}
    assert scale == {"Operating income": "millions", "Diluted EPS": None, "Restructuring": None,
                     "Intangible asset amortization": None, "Net earnings": "millions",
                     "Gain on sale of asset group": "millions"}


def test_label_over_three_lines_and_text_cells_beside_it(tmp_path):
    xs = (470, 550)
    texts = [(50, 60, "Long-term funding"), (50, 72, "(in millions)"),
             (450, 72, "2021"), (530, 72, "2020")]
    texts += _row(86, "Structured notes(a)", ["1,496", "2,782"], xs)
    texts += [(50, 100, "Total long-term"), (55, 108, "unsecured funding -")]
    texts += _row(116, "issuance", ["13,538", "9,387"], xs)
    texts += _row(130, "2025 Notes", ["971", "970"], xs) + [(200, 130, "Senior Secured Notes"),
                                                            (330, 130, "February 15, 2025")]
    pt = _page_right(tmp_path, texts, xs)
    labels = {f.label for f in pt.facts}
    assert labels == {"Structured notes(a)", "Total long-term unsecured funding - issuance",
                      "2025 Notes"}


def test_column_heads_after_rows_start_a_table_without_periods(tmp_path):
    xs = (420, 500)
    texts = [(50, 60, "Benefit obligations"), (50, 72, "(in millions)"),
             (400, 72, "2017"), (480, 72, "2016")]
    texts += _row(86, "Service cost", ["112", "99"], xs)
    texts += _row(98, "Interest cost", ["320", "301"], xs)
    texts += [(395, 124, "Pension"), (470, 124, "Other")]   # another table's heads, no years
    texts += _row(138, "Amortization of net loss", ["144", "3"], xs)
    texts += _row(150, "Total", ["140", "1"], xs)
    pt = _page_right(tmp_path, texts, xs)
    assert {f.label for f in pt.facts} == {"Service cost", "Interest cost"}
    assert pt.skipped["value row without a period header"] == 2


def test_years_inside_a_long_label_open_no_new_table(tmp_path):
    """A label that runs into the value area and names years ("net of refunds of $24, $30
    and $22 in 2022, 2021") is a label, not the header of a new table: the rows after it keep
    the statement's three columns instead of being dropped against a two-year 'header'."""
    pt = _facts(tmp_path, [dict(
        title="Consolidated Statements of Cash Flows", years=["2022", "2021", "2020"],
        col_x=(420.0, 470.0, 520.0), rows=[
            ("Net income", ["709", "621", "565"]),
            ("Advances and contributions in aid of construction, net of refunds of $24, $30 "
             "and $22 in 2022, 2021", None),
            ("and 2020, respectively", ["28", "26", "21"]),
            ("Dividends paid", ["(389)", "(353)", "(319)"])])])
    assert pt.n_tables == 1 and not pt.skipped
    assert _by(pt, "Dividends paid") == {(2022, "12M"): -389, (2021, "12M"): -353,
                                         (2020, "12M"): -319}
