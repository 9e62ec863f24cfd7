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
