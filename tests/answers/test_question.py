import pytest

from fingap.answers.calculator import evaluate
from fingap.answers.labels import Vocabulary, horizon
from fingap.answers.question import (
    date_the_periods,
    division_as_question,
    every_input_statement,
    fiscal_years,
    parse_definition,
    parse_question,
    reconciliation_as_source,
)


def test_fiscal_years_forms():
    assert fiscal_years("FY2019 vs fiscal 2018 and FY19, in 2017") == [2019, 2018, 2019, 2017]


def test_library_metric_with_unit_and_rounding():
    p = parse_question("What is the FY2021 net profit margin of Acme? Answer in percent, rounded "
                       "to one decimal place.")
    assert p.figure and p.metric == "net_margin" and p.unit == "percent" and p.decimals == 1
    assert p.inputs == [("net_income", 2021), ("revenue", 2021)]


def test_direct_line_item_with_scale_and_statement():
    p = parse_question("How much did Foo spend on capital expenditures in FY2020 (in USD "
                       "billions)? Use the cash flow statement.")
    assert p.metric == "capex" and p.out_scale == "billions" and p.statements == ["cash_flow"]
    assert p.inputs == [("capex", 2020)] and p.duration == "12M"
    # a hyphenated statement name is the statement too, never part of a line item's name
    p = parse_question("What was the balance-sheet value of the merchandise Foo had on hand at "
                       "the end of FY2020? Check it against the cash-flow statement.")
    assert p.statements == ["cash_flow", "balance_sheet"]
    assert "balance" not in p.expression


def test_definition_with_an_average_between_years():
    p = parse_question("What is the FY2019 fixed asset turnover ratio for Foo? Fixed asset "
                       "turnover ratio is defined as: FY2019 revenue / (average PP&E between "
                       "FY2018 and FY2019). Round your answer to two decimal places.")
    assert p.metric == "definition" and p.unit == "ratio" and p.decimals == 2
    vals = {"revenue__fy2019": 6489, "ppe_net__fy2019": 253, "ppe_net__fy2018": 282}
    assert evaluate(p.expression, vals) == pytest.approx(6489 / 267.5)


def test_growth_names_its_line_item_and_target_year():
    p = parse_question("What is the year-over-year change in unadjusted operating income from "
                       "FY2015 to FY2016 (in units of percents and round to one decimal place)?")
    assert p.metric == "growth" and p.unit == "percent" and p.target_year == 2016
    assert set(p.inputs) == {("operating_income", 2016), ("operating_income", 2015)}


def test_multi_year_average_of_a_library_metric():
    p = parse_question("What is the FY2017 - FY2019 3 year average of capex as a % of revenue?")
    assert p.metric == "capex_to_revenue"
    assert {y for _, y in p.inputs} == {2017, 2018, 2019}


def test_quarters_and_ten_q_default():
    assert parse_question("What was revenue in Q2 FY2024?").duration == "3M"
    assert parse_question("Revenue for the six months ended June 30, 2023?").duration == "6M"
    assert parse_question("What was revenue in 2023?", doc_type="10Q").duration == "3M"


@pytest.mark.parametrize("text, reason", [
    ("Is Foo a capital-intensive business based on FY2022 data?", "yes/no"),
    ("What drove the revenue change?", "no fiscal year"),
    ("What was the FY2022 figure?", "no line item recognised"),
    ("", "empty"),
])
def test_non_figure_questions_say_why(text, reason):
    p = parse_question(text)
    assert not p.figure and reason in p.reason


def test_definition_with_an_unknown_item_falls_back_with_the_reason():
    p = parse_question("What is the FY2020 widget ratio? It is defined as: widgets / gadgets.")
    assert not p.figure and "not understood" in p.reason and "widgets" in p.reason


def test_parse_definition_operators_in_words():
    e = parse_definition("cash from operations divided by total current liabilities", 2015,
                         Vocabulary.load())
    assert evaluate(e, {"cfo__fy2015": 10, "total_current_liabilities__fy2015": 4}) == 2.5


def test_asking_forms_and_explanations():
    p = parse_question("How much total assets did Foo have at the end of FY2021? Answer in USD "
                       "millions.")
    assert p.inputs == [("total_assets", 2021)] and p.out_scale == "millions"
    p = parse_question("By what percentage did Foo's net income grow in FY2022 compared with "
                       "the year before?")
    assert p.metric == "growth" and set(p.inputs) == {("net_income", 2022), ("net_income", 2021)}
    p = parse_question("Calculate Foo's current ratio for FY2020, i.e. total current assets "
                       "divided by total current liabilities.")
    assert p.inputs == [("total_current_assets", 2020), ("total_current_liabilities", 2020)]
    p = parse_question("Nike's bottom line for fiscal 2019 (year ended May 31, 2019) - net "
                       "income in $bn, two decimals?")
    assert p.figure and p.inputs == [("net_income", 2019)] and p.decimals == 2
    p = parse_question("Amazon current ratio at year-end 2019 (current assets / current "
                       "liabilities, Dec 31, 2019)?")
    assert p.metric == "current_ratio"
    assert not parse_question("Which segment had the highest FY2022 revenue?").figure
    lead = parse_question("Foo's total current liabilities at December 31, 2022: what was the "
                          "figure in USD billions?")
    assert lead.inputs == [("total_current_liabilities", 2022)]


def test_define_as_with_alternates_and_remarks():
    p = parse_question("Define ROA as net income/(loss) attributable to common shareholders "
                       "divided by average total assets (the average of the two year-end "
                       "balances). What was Foo's ROA for 2019? Answer as a percentage.")
    assert p.figure and p.unit == "percent", p.reason
    assert set(p.inputs) == {("net_income", 2019), ("total_assets", 2019),
                             ("total_assets", 2018)}


def test_the_questions_own_definition_beats_the_library():
    p = parse_question("What is the FY2017 return on assets (ROA) for Foo? ROA is defined as: "
                       "FY2017 net income / (average total assets between FY2016 and FY2017).")
    assert p.unit == "ratio" and "100" not in p.expression  # the library's ROA is a percent
    p = parse_question("What is Foo's FY2017 days payable outstanding (DPO)? DPO is defined as: "
                       "365 * (average accounts payable between FY2016 and FY2017) / (FY2017 "
                       "COGS + change in inventory between FY2016 and FY2017).")
    assert ("inventory", 2016) in p.inputs and ("inventory", 2017) in p.inputs


def test_margin_of_a_defined_item_and_year_ranges():
    p = parse_question("What is the FY2018 - FY2020 3 year average unadjusted EBITDA % margin "
                       "for Foo? Define unadjusted EBITDA as unadjusted operating income + "
                       "depreciation and amortization from the cash flow statement.")
    assert p.unit == "percent" and {y for _, y in p.inputs} == {2018, 2019, 2020}
    assert {c for c, _ in p.inputs} == {"operating_income", "depreciation_amortization",
                                        "revenue"}


def test_dated_periods_read_calendar_years_and_weeks():
    p = parse_question("What were Foo's total current assets as of July 29, 2023 (end of Q2 "
                       "FY2024)? Answer in USD millions.")
    assert p.year_basis == "calendar" and p.target_year == 2023 and p.months == ["Jul"]
    assert p.dates == ["2023-07-29"]
    assert parse_question("What was Foo's FY2024 revenue?").year_basis == "fiscal"
    assert parse_question("What was net revenue in the 12 weeks ended March 25, 2023?"
                          ).duration == "3M"
    assert parse_question("What was revenue in the first half of fiscal 2023?").duration == "6M"


def test_adjusted_measures_and_line_items_asked_as_ratios_fall_back():
    assert "adjusted" in parse_question("What was Foo's FY2022 adjusted EBITDA?").reason
    p = parse_question("What was Foo's FY2022 revenue turnover rate?")
    assert not p.figure and "ratio or change" in p.reason


def test_change_between_two_years_and_hypotheticals():
    p = parse_question("How much has the effective tax rate of Foo changed between FY2021 and "
                       "FY2022?")
    assert p.figure and set(p.inputs) == {("income_tax", 2022), ("pretax_income", 2022),
                                          ("income_tax", 2021), ("pretax_income", 2021)}
    vals = {"income_tax__fy2022": 23, "pretax_income__fy2022": 100,
            "income_tax__fy2021": 20, "pretax_income__fy2021": 100}
    assert evaluate(p.expression, vals) == pytest.approx(3.0)
    for q in ("In 2022 Q2, which of Foo's segments had the highest net income?",
              "If Foo liquidated all of its FY2021 assets, how much could each shareholder get?"):
        assert not parse_question(q).figure


def test_named_parenthesis_and_ie_definitions():
    p = parse_question("Foo times interest earned for fiscal 2018: EBIT (income before income "
                       "taxes plus interest expense) divided by interest expense. Two decimals.")
    vals = {"pretax_income__fy2018": 90, "interest_expense__fy2018": 10}
    assert p.figure and evaluate(p.expression, vals) == pytest.approx(10.0)
    p = parse_question("Foo FY2023: what's the operating cash flow ratio, i.e. net cash from "
                       "operations divided by total current liabilities? Two decimals.")
    assert p.inputs == [("cfo", 2023), ("total_current_liabilities", 2023)]


def test_unknown_line_items_in_a_definition_are_looked_up_by_their_label():
    p = parse_question("What is Foo's FY2022 gross margin in percent? Define gross margin as "
                       "(total operating revenues minus cost of services minus cost of wireless "
                       "equipment) / total operating revenues.")
    assert p.figure and p.labels == {"row_cost_services": "cost services",
                                     "row_cost_wireless_equipment": "cost wireless equipment"}
    # a phrase that names a ratio is no printed line item: no guessing on "the widget ratio"
    assert not parse_question("What was the FY2022 widget ratio of Foo?").figure


def test_a_fiscal_period_the_question_also_dates_is_read_by_its_date():
    text, fiscal_of = date_the_periods("Foo's tax rate for fiscal 2022 (52 weeks ended January "
                                       "28, 2023): tax over pretax income?")
    assert "fiscal 2022" not in text and "52 weeks ended January 28, 2023" in text
    assert fiscal_of == {2023: 2022}
    p = parse_question("Foo effective tax rate for fiscal 2022 (52 weeks ended January 28, "
                       "2023): income tax expense as a % of income before income taxes?")
    assert p.figure and p.year_basis == "calendar" and p.target_year == 2023
    assert p.months == ["Jan"] and p.fiscal_of == {2023: 2022} and p.duration == "12M"
    # a parenthesis that defines the metric beside its date is left alone
    same = ("Foo current ratio at year-end 2019 (current assets / current liabilities, Dec 31, "
            "2019)?")
    assert date_the_periods(same) == (same, {})
    # a date that follows no year is a remark, not a restatement of the period
    same = "In its Q2 results (released August 3, 2023) what was Foo's revenue?"
    assert date_the_periods(same)[0] == same


def test_a_back_reference_reads_the_quoted_label():
    p = parse_question("Foo carries its receivables from payment processors as 'settlements "
                       "receivable'. What was that balance at December 31, 2020? USD millions.")
    assert p.figure and p.inputs == [("row_settlements_receivable", 2020)]
    assert p.labels == {"row_settlements_receivable": "settlements receivable"}
    p = parse_question("Foo carries its receivables from payment processors separately. What was "
                       "that balance at December 31, 2020?")
    assert not p.figure and "does not quote" in p.reason


def test_taken_as_asides_and_qualified_terms():
    p = parse_question("Foo fiscal 2020: capex, taken as payments for property and equipment, as "
                       "a percentage of total revenues? Two decimals.")
    assert p.unit == "percent" and {c for c, _ in p.inputs} == {"capex", "revenue"}
    p = parse_question("For the first half of 2022, what was Foo's operating margin, taken as "
                       "income before income tax expense divided by total net revenue? Percent.")
    assert p.unit == "percent" and {c for c, _ in p.inputs} == {"pretax_income", "revenue"}
    # a term after "before" qualifies another line item: no income tax expense here
    p = parse_question("What is Foo's FY2022 pretax return? Define pretax return as profit "
                       "before income tax expense divided by revenue.")
    assert p.inputs == [("row_profit_before_income_tax_expense", 2022), ("revenue", 2022)]


def test_a_percentage_asked_but_only_an_amount_built_falls_back():
    p = parse_question("What was Foo's FY2022 capex, in percent?")
    assert not p.figure and "ratio or change" in p.reason


def test_a_defined_name_stands_for_its_whole_definition():
    p = parse_question("Foo interest coverage for FY2023: EBIT divided by interest expense, with "
                       "EBIT taken as income before income taxes plus interest expense. Two "
                       "decimals.")
    vals = {"pretax_income__fy2023": 90, "interest_expense__fy2023": 10}
    assert p.figure and evaluate(p.expression, vals) == pytest.approx(10.0)  # (90 + 10) / 10


def test_times_365_share_of_and_days():
    p = parse_question("Foo days inventory outstanding for fiscal 2015: average inventories "
                       "(2014 and 2015) over cost of sales, x 365. Days, one decimal.")
    vals = {"inventory__fy2014": 10, "inventory__fy2015": 30, "cogs__fy2015": 365}
    assert p.unit == "days" and evaluate(p.expression, vals) == pytest.approx(20.0)
    p = parse_question("Foo Q1 2023: capital spending as a share of net revenue? Percent.")
    assert p.unit == "percent" and {c for c, _ in p.inputs} == {"capex", "revenue"}
    # days asked, but what was built is no day count: no answer rather than a wrong one
    p = parse_question("Foo FY2022 inventory turnover in days, inventory over cost of sales? "
                       "Define inventory turnover as inventory divided by cost of sales.")
    assert not p.figure and "days" in p.reason


def test_a_definition_of_the_asked_line_item_in_other_words():
    p = parse_question("How much inventory did Foo carry at June 30, 2023? Total inventories, "
                       "net, i.e. raw materials and supplies plus work in process and finished "
                       "goods, in USD millions.")
    assert p.figure and "+" in p.expression and set(p.labels.values()) == {
        "raw materials supplies", "work process finished goods"}


def test_parts_listed_in_words_are_not_replaced_by_a_formula():
    p = parse_question("Foo cash conversion cycle for 2019; DIO and DPO on total cost of "
                       "revenues, i.e. product costs, game operations and distribution costs. "
                       "Days.")
    assert not p.figure and "lists the parts" in p.reason


def test_the_questions_words_for_a_line_item_are_kept():
    p = parse_question("By what percentage did net income attributable to Foo plc grow in "
                       "fiscal 2023 versus fiscal 2022?")
    assert p.phrases["net_income"].startswith("net income attributable to foo plc")


def test_a_line_item_outside_the_vocabulary_is_kept_as_its_phrase():
    # no vocabulary term: the agent resolves the phrase against the printed row labels
    p = parse_question("What was the FY2022 headcount in Ohio?")
    assert p.figure and p.labels == {"row_headcount_ohio": "headcount ohio"}


@pytest.mark.parametrize("text, expression, unit", [
    # the share of a whole, asked "what portion / fraction / share of Y was X"
    ("What portion of Foo's sales in FY2018 was absorbed by COGS? In percent.",
     "((cogs__fy2018) / (revenue__fy2018) * 100)", "percent"),
    ("What fraction of Foo's FY2018 revenue went to cost of goods sold, in percent?",
     "((cogs__fy2018) / (revenue__fy2018) * 100)", "percent"),
    ("What was Foo's FY2018 cost of goods sold as a fraction of revenue, in percent?",
     "((cogs__fy2018) / (revenue__fy2018) * 100)", "percent"),
    # growth, in the forms a reader writes it; between the two years named
    ("By how much did Foo's sales grow in FY2021 compared with FY2020? In percent.",
     "((((revenue__fy2021 - revenue__fy2020) / revenue__fy2020) * 100))", "percent"),
    ("How fast did Foo's revenue grow in 2017 compared with 2016? In percent.",
     "((((revenue__fy2017 - revenue__fy2016) / revenue__fy2016) * 100))", "percent"),
    ("What was Foo's revenue growth from FY2016 to FY2018, in percent?",
     "((((revenue__fy2018 - revenue__fy2016) / revenue__fy2016) * 100))", "percent"),
    # "by how much" in an amount is the change
    ("By how much did Foo's inventory rise from FY2021 to FY2022, in USD millions?",
     "((inventory__fy2022) - (inventory__fy2021))", "usd"),
    # "X-to-Y ratio", "X per dollar of Y"
    ("What is Foo's FY2022 capex-to-revenue ratio?", "((capex__fy2022) / (revenue__fy2022))",
     "ratio"),
    ("How many dollars of sales did Foo generate per dollar of inventory in FY2022?",
     "((revenue__fy2022) / (inventory__fy2022))", "ratio"),
    # "the ratio of X to Y", with a "to" that splits no name
    ("What was Foo's FY2021 ratio of cash generated from operations to net income?",
     "((cfo__fy2021) / (net_income__fy2021))", "ratio"),
    ("What is Foo's 2018 ratio of revenue to average net property and equipment?",
     "((revenue__fy2018) / (((ppe_net__fy2018 + ppe_net__fy2017) / 2)))", "ratio"),
    # "what portion of Y came from X (rather than from Z)": X as a % of Y
    ("What portion of Foo's total 2022 revenue came from service work rather than from "
     "products? In percent.",
     "((row_service_work__fy2022) / (revenue__fy2022) * 100)", "percent"),
    # "X relative to Y"
    ("What was Foo's FY2021 long-term debt relative to total equity?",
     "((long_term_debt__fy2021) / (total_equity__fy2021))", "ratio"),
    # "X as a multiple of Y"; "at that date" dates the balance, no part of its name
    ("What was Foo's FY2021 cash from operations, expressed as a multiple of its total current "
     "liabilities at that date?",
     "((cfo__fy2021) / (total_current_liabilities__fy2021))", "ratio"),
    # "by how much did A exceed B": the excess of A over B, no change over time
    ("By how much did Foo's current assets exceed its current liabilities at the end of "
     "FY2021? USD millions.",
     "total_current_assets__fy2021 - total_current_liabilities__fy2021", "usd"),
    # ... asked in a named unit
    ("By how many millions of US dollars did Foo's current assets exceed its current "
     "liabilities at December 31, 2021?",
     "total_current_assets__fy2021 - total_current_liabilities__fy2021", "usd"),
    # the years listed after one year-end date
    ("What was Foo's net income as a percentage of revenue, averaged over the years ended "
     "December 31, 2019, 2020 and 2021?",
     "((((net_income__fy2019) / (revenue__fy2019) * 100) + ((net_income__fy2020) / "
     "(revenue__fy2020) * 100) + ((net_income__fy2021) / (revenue__fy2021) * 100)) / 3)",
     "percent"),
    # words bound by hyphens name one line item
    ("What was Foo's FY2021 depreciation-plus-amortization charge as a percentage of revenue?",
     "((depreciation_amortization__fy2021) / (revenue__fy2021) * 100)", "percent"),
    # a compound annual growth rate, between the two years named
    ("What is Foo's 2 year total revenue CAGR from FY2020 to FY2022, in percent?",
     "(((((revenue__fy2022 / revenue__fy2020) ** (1 / 2)) - 1) * 100))", "percent"),
    ("At what compound annual rate did Foo's sales grow over the two fiscal years from 2019 to "
     "2021? In percent.",
     "(((((revenue__fy2021 / revenue__fy2019) ** (1 / 2)) - 1) * 100))", "percent"),
    # a metric spelt out after a comma: its definition, applied once
    ("What was Foo's working capital at the end of FY2021, current assets minus current "
     "liabilities, in USD millions?",
     "total_current_assets__fy2021 - total_current_liabilities__fy2021", "usd"),
])
def test_shapes_in_common_english(text, expression, unit):
    p = parse_question(text)
    assert p.figure, p.reason
    assert (p.expression, p.unit) == (expression, unit)


def test_growth_of_a_line_item_outside_the_vocabulary():
    p = parse_question("By what percentage did Foo's proceeds from sale of businesses grow from "
                       "the fiscal year ended June 30, 2020 to the fiscal year ended June 30, "
                       "2022?")
    assert p.figure and p.labels == {"row_foos_proceeds_sale_businesses":
                                     "foos proceeds sale businesses"}
    assert "row_foos_proceeds_sale_businesses__fy2020" in p.expression


def test_a_compound_rate_without_its_first_year_is_not_guessed():
    p = parse_question("What was Foo's three-year revenue CAGR through 2022?")
    assert not p.figure and "first year" in p.reason


def test_the_companys_words_are_no_part_of_a_printed_label():
    text = ("How much did Foo Widgets owe its trade suppliers for goods bought on credit at "
            "December 31, 2022?")
    assert parse_question(text).labels == {
        "row_foo_widgets_owe_trade_suppliers_goods_bought_credit":
        "foo widgets owe trade suppliers goods bought credit"}
    p = parse_question(text, company_words=frozenset({"foo", "widgets"}))
    assert p.figure and p.labels == {"row_owe_trade_suppliers_goods_bought_credit":
                                     "owe trade suppliers goods bought credit"}
    # a ratio of two such items names neither by the company
    p = parse_question("What was the ratio of short-term assets to short-term liabilities for "
                       "Foo on its December 31, 2016 balance sheet?",
                       company_words=frozenset({"foo"}))
    assert p.expression == ("((row_short_term_assets__fy2016) / "
                            "(row_short_term_liabilities__fy2016))")


def test_an_average_asked_averages_the_ratios_balances():
    p = parse_question("For fiscal 2016, how many dollars of sales did Foo generate per dollar "
                       "of assets, using the average of the opening and closing balances?")
    assert p.figure and p.unit == "ratio"
    assert p.expression == ("((revenue__fy2016) / (((total_assets__fy2016 + "
                            "total_assets__fy2015) / 2)))")
    # a flow is not averaged, and an amount asked is left as it is
    p = parse_question("What was Foo's FY2016 revenue per dollar of average inventory?")
    assert "revenue__fy2015" not in p.expression and "inventory__fy2015" in p.expression


def test_question_words_are_no_line_item():
    p = parse_question("How many times did Foo turn over its stock in 2022?")
    assert not p.figure and not p.labels


def test_how_many_times_turned_is_a_turnover():
    p = parse_question("How many times did Foo turn its inventory in fiscal 2021?")
    assert p.figure and p.unit == "ratio"
    assert p.expression == "((cogs__fy2021 / ((inventory__fy2021 + inventory__fy2020) / 2)))"


@pytest.mark.parametrize("text, expression", [
    # an average over three or more years is the mean of each year's metric
    ("Foo's operating margin averaged across 2019, 2020 and 2021? Percent.",
     "(((((operating_income__fy2019 / revenue__fy2019) * 100)) + (((operating_income__fy2020 / "
     "revenue__fy2020) * 100)) + (((operating_income__fy2021 / revenue__fy2021) * 100))) / 3)"),
    # definitions written "with X = A + B" and ", X being A plus B"; "D&A" keeps its "A"
    ("Foo 2015 EBITDA margin, with EBITDA = operating profit + the D&A from the cash flow "
     "statement? Percent.",
     "(((operating_income__fy2015 + depreciation_amortization__fy2015)) / revenue__fy2015 * 100)"),
    ("Foo's EBITDA as a percentage of sales for FY2022, EBITDA being operating income plus the "
     "cash-flow D&A?",
     "(((operating_income__fy2022 + depreciation_amortization__fy2022)) / (revenue__fy2022) * "
     "100)"),
    # "each dollar of" as "per dollar of"
    ("In FY2020, how many dollars of sales did each dollar of inventory support?",
     "((revenue__fy2020) / (inventory__fy2020))"),
])
def test_averages_over_years_and_written_definitions(text, expression):
    p = parse_question(text)
    assert p.figure, p.reason
    assert p.expression == expression


def test_dates_units_and_rounding_are_no_part_of_a_label_phrase():
    p = parse_question("What was Foo's net interest cost for the fiscal year ended May 31, 2023, "
                       "in $ millions, to 2dp?")
    assert p.labels == {"row_net_interest_cost": "net interest cost"}


def test_by_how_much_did_it_fall_is_the_size_of_the_fall():
    p = parse_question("By how many dollars did Foo's current assets shrink from FY2022 to "
                       "FY2023, in USD millions?")
    assert p.expression == "((total_current_assets__fy2022) - (total_current_assets__fy2023))"
    # a question that asks for a signed change keeps the sign
    p = parse_question("By how much did Foo's inventory fall from FY2021 to FY2022, in USD "
                       "millions (negative for a fall)?")
    assert p.expression == "((inventory__fy2022) - (inventory__fy2021))"


def test_a_term_whose_words_the_question_scatters_wins_over_a_shorter_run():
    # "cash" is a term found as one run; "cash ... operations" holds a longer term of cfo
    pq = parse_question("How much cash did ACME's operations generate in FY2022? USD millions.")
    assert pq.expression == "cfo__fy2022"
    pq = parse_question("How much cash did ACME hold at the end of FY2022? USD millions.")
    assert pq.expression == "cash__fy2022"
    # words after a qualifying word qualify another line item
    pq = parse_question("What was ACME's FY2022 cash excluding cash from operations? USD millions.")
    assert pq.expression != "cfo__fy2022"


def test_a_period_over_is_no_division():
    pq = parse_question("How much cash did ACME hand to its shareholders as dividends over the "
                        "first half of 2023? USD millions.")
    assert pq.expression == "dividends_paid__fy2023", pq
    assert pq.duration == "6M"


def test_how_much_did_x_grow_and_a_percentage_increase_are_growth():
    growth = "((((revenue__fy2020 - revenue__fy2019) / revenue__fy2019) * 100))"
    for q in ("How much did ACME's revenue grow from 2019 to 2020, in percent?",
              "What was the percentage increase in ACME's revenue from 2019 to 2020?"):
        assert parse_question(q).expression == growth, q
    # in an amount, the change; a verb after "to" is no growth of the spending
    pq = parse_question("How much did ACME's revenue grow from 2019 to 2020? USD millions.")
    assert pq.expression == "((revenue__fy2020) - (revenue__fy2019))"
    pq = parse_question("How much did ACME spend on capex in FY2020 to increase capacity? "
                        "USD millions.")
    assert pq.expression == "capex__fy2020"


def test_the_day_count_ratios_by_their_analyst_names():
    # "inventory days", "receivable days", "payable days": the three day counts by one naming
    assert parse_question("What were ACME's FY2022 receivable days?").metric == \
        "days_sales_outstanding"
    assert parse_question("What were ACME's FY2022 payable days?").metric == \
        "days_payable_outstanding"
    assert parse_question("What were ACME's FY2022 inventory days?").metric == \
        "days_inventory_outstanding"


def test_money_spent_on_a_balance_is_the_flow_of_buying_it():
    # PP&E bought is capital expenditure (``spent_as`` in the vocabulary); its balance is not
    for q in ("How much cash did ACME spend buying plant and equipment in FY2022? USD millions.",
              "In FY2022, how much did ACME spend on plant and equipment as a share of sales?"):
        pq = parse_question(q)
        assert "capex__fy2022" in pq.expression and "ppe_net" not in pq.expression, pq
    pq = parse_question("What were ACME's net fixed assets at the end of FY2022? USD millions.")
    assert pq.expression == "ppe_net__fy2022"


def test_a_definition_by_pronoun_replaces_the_library_formula():
    q = ("How many days did ACME take to pay its suppliers in FY2022? Compute it as 365 times "
         "accounts payable divided by cost of goods sold.")
    pq = parse_question(q)
    assert pq.metric == "definition"
    assert pq.expression == "365 * accounts_payable__fy2022 / cogs__fy2022"


def test_a_framing_opening_is_no_line_item():
    # who asks and where to read ("As an analyst working from its balance sheet, ...") never
    # names the figure: a description the parser cannot read leaves the question unparsed
    # rather than read from the framing's words
    for opening in ("As a credit analyst working mainly from ACME's balance sheet",
                    "Going mainly by ACME's balance sheet", "Using ACME's balance sheet"):
        pq = parse_question(f"{opening}, what was the widget gadget gizmo doohickey thingamajig "
                            "whatsit sprocket flange bracket lever knob dial of ACME at "
                            "December 31, 2018? USD millions.")
        assert not pq.figure and "not understood" in pq.reason, (opening, pq)
    # the line item named before the question word is still read there
    pq = parse_question("ACME's total current liabilities at the end of FY2018: what was the "
                        "figure? USD millions.")
    assert pq.figure and pq.expression == "total_current_liabilities__fy2018", pq



def test_a_maturity_phrase_counts_as_one_word_of_a_line_items_name():
    # "falling due within the next twelve months" is one qualifier, not six words of a name
    p = parse_question("As of June 30, 2023, what was the sum of all obligations Foo had falling "
                       "due within the next twelve months? Answer in USD millions.",
                       company_words=frozenset({"foo"}))
    assert p.figure, p.reason
    [phrase] = p.labels.values()
    assert phrase.endswith("falling due within next twelve months") and \
        horizon(phrase) == "short"
    assert horizon("due within the following twelve months") == "short"
    # a long name without one is still too long to look up
    p = parse_question("What was the widget gadget gizmo doohickey thingamajig whatsit sprocket "
                       "flange bracket of Foo at December 31, 2018? USD millions.")
    assert not p.figure


def test_per_the_statement_names_a_source_not_a_rate():
    p = parse_question("As of June 30, 2016, how much did customers owe Foo, net of the reserve "
                       "for bad debts, per the balance sheet? Answer in USD millions.",
                       company_words=frozenset({"foo"}))
    assert p.figure, p.reason
    assert not parse_question("What was Foo's widget output per employee in 2020?").labels


def test_a_date_before_the_question_word_is_no_line_item():
    # the reason names the words that were not understood, not the date that leads them
    for lead in ("As of June 30", "At December 31", "For the six months ended July 29"):
        p = parse_question(f"{lead}, 2023, what was the widget gadget gizmo doohickey "
                           "thingamajig whatsit sprocket flange bracket lever of Foo?")
        assert not p.figure and "widget gadget" in p.reason and lead not in p.reason, p.reason


def test_a_question_that_refers_back_to_its_instruction_asks_the_instruction():
    from fingap.answers.question import instruction_as_question

    q = ("Using ACME's income statement, compute its net profit as a percentage of sales for "
         "each of fiscal 2020, 2021 and 2022 and average the three. What is the average, in "
         "percent to one decimal place?")
    restated = instruction_as_question(q)
    assert restated.startswith("What is its net profit as a percentage of sales for each of")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "percent" and pq.expression.endswith("/ 3)")
    assert {y for _, y in pq.inputs} == {2020, 2021, 2022}
    # a question sentence that names its own figure keeps it
    assert instruction_as_question("Take the 10-K. What was ACME's FY2022 net income?") is None
    assert instruction_as_question("What was ACME's FY2022 net income?") is None


def test_an_unread_question_sentence_is_asked_as_the_arithmetic_its_instruction_spells():
    from fingap.answers.question import instruction_as_question

    q = ("How many days did ACME take to pay its suppliers in 2022? Compute 365 times the mean "
         "of accounts payable at the ends of 2021 and 2022, divided by 2022 cost of goods sold "
         "plus the change in inventory over 2022. Round to two decimal places.")
    restated = instruction_as_question(q)
    assert restated.startswith("What is 365 times the mean of accounts payable")
    pq = parse_question(restated)
    # after the comma, the divisor is the whole sum (not "A / B + C")
    assert pq.figure and pq.unit == "days", pq.reason
    assert pq.expression == ("( 365 * ((accounts_payable__fy2021 + accounts_payable__fy2022) / 2) )"
                             " / ( cogs__fy2022 + (inventory__fy2022 - inventory__fy2021) ) ")\
        .strip()
    # "Compute DPO as <arithmetic>": the arithmetic is asked; a rounding tail is no operand
    q = ("How many days did ACME take to pay its suppliers in 2022? Compute DPO as 365 x "
         "accounts payable / cost of goods sold, rounded to two decimal places.")
    assert instruction_as_question(q).startswith(
        "What is 365 x accounts payable / cost of goods sold?")
    # an instruction without arithmetic asks nothing in its place
    assert instruction_as_question("How many days did ACME take to pay its suppliers in 2022? "
                                   "Use the balance sheet.") is None
    # "the change in inventory" in the arithmetic is an operand's change, not the whole's
    pq = parse_question("How many days of payables did ACME carry in 2022, measured as 365 times "
                        "accounts payable at the end of 2022, divided by 2022 cost of goods sold "
                        "plus the change in inventory from the end of 2021 to the end of 2022?")
    assert pq.expression.count("accounts_payable__fy2022") == 1, pq.expression


def test_a_sum_of_two_parts_and_an_operand_in_parentheses():
    pq = parse_question("What is 365 x accounts payable at the end of 2022 divided by the sum of "
                        "2022 cost of goods sold and the increase in inventory over 2022?")
    assert pq.figure, pq.reason
    assert "(cogs__fy2022 + (inventory__fy2022 - inventory__fy2021))" in \
        pq.expression.replace("( ", "(").replace(" )", ")")
    # a parenthesis right after an operator is an operand, not a remark
    pq = parse_question("What was ACME's 2022 DPO? DPO is defined as 365 x (average accounts "
                        "payable between 2021 and 2022) / cost of goods sold.")
    assert pq.figure and "accounts_payable__fy2021" in pq.expression, pq.reason


def test_a_list_of_years_after_the_asked_figure_is_its_period():
    for q in ("What was ACME's cost of sales as a percentage of its sales, averaged over "
              "fiscal 2020, 2021 and 2022?",
              "What was ACME's cost of sales as a percentage of its sales over fiscal 2020, 2021 "
              "and 2022, averaged?",
              "What was ACME's cost of sales as a percentage of its sales, averaged over the "
              "three fiscal years 2020, 2021 and 2022?",
              "What was the average, over 2020, 2021 and 2022, of ACME's cost of sales as a "
              "percentage of its sales?"):
        pq = parse_question(q)
        assert pq.figure, (q, pq.reason)
        assert pq.expression.count("cogs__fy") == 3 and pq.expression.endswith("/ 3)")
    # a maturity's "within a year" is no list of years
    pq = parse_question("How many dollars of cash did ACME hold at December 31, 2022 for every "
                        "dollar of obligations due within a year?")
    assert pq.expression == "((cash__fy2022) / (row_obligations_due_within_year__fy2022))"


def test_how_many_times_one_amount_covers_another_is_their_ratio():
    from fingap.answers.question import times_covered_as_ratio

    q = ("For ACME's fiscal 2022, how many times over did the cash its operations generated "
         "cover its interest charges? Two decimals.")
    restated = times_covered_as_ratio(q)
    assert restated.startswith("For ACME's fiscal 2022, what was the ratio of the cash its "
                               "operations generated to its interest charges?")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "ratio" and pq.expression.startswith("((cfo__fy2022) /")
    assert times_covered_as_ratio("How many times did ACME turn over its inventory?") is None


def test_a_stated_day_count_makes_a_days_figure():
    pq = parse_question("How many days did ACME take to pay its suppliers in the 26 weeks ended "
                        "July 29, 2023? Measure it as accounts payable divided by cost of sales, "
                        "multiplied by 182 days.")
    assert pq.figure and pq.unit == "days", pq.reason
    assert pq.expression.endswith("* 182")


def test_a_stated_maturity_reads_the_line_item_of_that_maturity():
    from fingap.answers.question import maturity_variant, with_stated_maturity

    vocab = Vocabulary.load()
    assert maturity_variant("total_assets", "assets expected to turn into cash within a year",
                            vocab) == "total_current_assets"
    assert maturity_variant("total_liabilities", "liabilities due within twelve months",
                            vocab) == "total_current_liabilities"
    assert maturity_variant("total_assets", "everything it owned", vocab) is None
    # a concept that has a maturity of its own keeps it
    assert maturity_variant("total_current_assets", "current assets within a year", vocab) is None
    pq = parse_question("How many dollars of assets expected to turn into cash within a year did "
                        "ACME hold at December 31, 2022 for every dollar of total liabilities?")
    out = with_stated_maturity(pq, vocab)
    assert "total_current_assets__fy2022" in out.expression
    assert "total_assets__fy" not in out.expression
    assert ("total_current_assets", 2022) in out.inputs


def test_a_line_item_known_by_its_words_keeps_them_as_written():
    # the label phrase drops function words; the words as written keep them, from the name's
    # first word to its last, without the statement's name or the company's
    pq = parse_question("What was the combined value of everything ACME owned, as reported on "
                        "its balance sheet at the end of FY2022, in USD millions?",
                        company_words=frozenset({"acme"}))
    assert pq.labels == {"row_combined_everything_owned": "combined everything owned"}
    assert pq.described == {"row_combined_everything_owned": "combined value of everything owned"}
    # the tail of a metric's words is no operand as written
    pq = parse_question("What was the growth in ACME's widget licensing fees from FY2021 to "
                        "FY2022?")
    assert pq.labels and pq.described == {}


def test_an_average_of_a_line_item_known_by_its_words_is_averaged():
    pq = parse_question("What was ACME's net income divided by the average of its widget "
                        "holdings at December 31, 2021 and December 31, 2022?")
    assert pq.expression == ("net_income__fy2022 / ((row_widget_holdings__fy2021 + "
                             "row_widget_holdings__fy2022) / 2)"), pq.expression


def test_the_start_of_a_year_is_a_period_not_part_of_a_name():
    pq = parse_question("What was ACME's net income divided by the average of the company's "
                        "widget base at the start of the year (December 31, 2021) and at the "
                        "end (December 31, 2022)?")
    assert set(pq.labels.values()) == {"widget base"}, pq.labels
    # a maturity keeps its year
    pq = parse_question("What were ACME's widget obligations due within a year at the end of "
                        "FY2022?")
    assert "year" in " ".join(pq.labels.values())


def test_an_instruction_that_divides_is_asked_as_a_division():
    q = ("What return did ACME earn on its assets in 2022? Take the profit for the year and "
         "divide it by the average of its asset totals at December 31, 2021 and December 31, "
         "2022, using mainly the balance sheet. Express as a percentage.")
    restated = division_as_question(q)
    assert restated.startswith("What is the profit for the year, divided by the average of its "
                               "asset totals at December 31, 2021 and December 31, 2022? What "
                               "return did ACME earn"), restated
    assert "using mainly" not in restated and restated.endswith("Express as a percentage.")
    # "double" annualizes a half year's figure; "Use A divided by B" and "Divide A by B" too
    assert "the profit times 2, divided by equity?" in division_as_question(
        "What was it? Double the profit and divide it by equity.")
    assert division_as_question("What was it? Use net income divided by equity.").startswith(
        "What is net income, divided by equity?")
    assert division_as_question("What was it? Divide net income by equity.").startswith(
        "What is net income, divided by equity?")
    assert division_as_question("What was ACME's net income in 2022?") is None
    # a division for each of the years listed, then averaged, is asked averaged over them
    q3 = ("For each of ACME's fiscal years 2020, 2021 and 2022, divide the money spent on plant "
          "and equipment by that year's revenue, then average the three results. Answer in "
          "percent.")
    restated = division_as_question(q3)
    assert restated.startswith("What is the money spent on plant and equipment, divided by "
                               "that year's revenue, averaged over 2020, 2021 and 2022?"), restated
    pq = parse_question(restated)
    assert pq.expression.count("capex__fy") == 3 and pq.unit == "percent", pq.expression
    restated = division_as_question(
        "For ACME, divide capex by revenue for each of 2020, 2021 and 2022, then take the simple "
        "mean of those three percentages. What is it, in percent?")
    assert restated.startswith("What is capex, divided by revenue, averaged over 2020, 2021 and "
                               "2022? . What is it"), restated
    # "take A, divide it by B, and multiply by 365" after a colon; "Using A, divided by B,
    # what ...?" cut before the question words
    q2 = ("Measure how long it took ACME to collect: take the mean of its receivables, divide "
          "it by the year's sales, and multiply by 365. Answer in days.")
    # (the factor first and no parentheses: the asked phrase is read without parentheses)
    assert division_as_question(q2).startswith(
        "What is 365 times the mean of its receivables, divided by the year's sales?")
    # "divide by" needs no pronoun; "multiply by 181 days" is the factor
    q4 = ("How many days of sales did ACME carry in its receivables in 2022? Take the average of "
          "its accounts receivable at December 31, 2021 and December 31, 2022, divide by the "
          "year's revenue, and multiply by 181 days.")
    pq = parse_question(division_as_question(q4))
    assert pq.expression == ("181 * ((accounts_receivable__fy2021 + accounts_receivable__fy2022)"
                             " / 2) / revenue__fy2022"), pq.expression
    q3 = ("Using the year's profit, divided by the average of its equity, what return did ACME "
          "earn in 2022? Answer in percent.")
    assert division_as_question(q3) == ("What is the year's profit, divided by the average of "
                                        "its equity? Answer in percent.")


def test_a_list_of_parts_taken_together_is_their_sum():
    pq = parse_question("What was ACME's acid-test ratio in FY2022, i.e. its cash and cash "
                        "equivalents, short-term investments and accounts receivable, taken "
                        "together and divided by its current liabilities?")
    vals = {"cash__fy2022": 2, "short_term_investments__fy2022": 3,
            "accounts_receivable__fy2022": 5, "total_current_liabilities__fy2022": 4}
    assert set(n for n, _ in pq.inputs) == {n.split("__")[0] for n in vals}, pq.expression
    assert evaluate(pq.expression, vals) == pytest.approx(10 / 4)


def test_how_a_figure_is_presented_is_no_part_of_its_name():
    pq = parse_question("What was the sum of everything ACME owned, as shown on its balance "
                        "sheet, at the end of FY2022?", company_words=frozenset({"acme"}))
    assert all("shown" not in p for p in pq.labels.values()), pq.labels


def test_cash_the_business_generated_is_no_cash_balance():
    # "cash" is a balance line item, but cash brought in over a year is a flow: the phrase is
    # read by its words (the resolver's glossary reads it as operating cash flow)
    pq = parse_question("How much cash did ACME bring in from running its business in 2022?",
                        company_words=frozenset({"acme"}))
    assert pq.figure and pq.inputs[0][0].startswith("row_"), pq.expression
    # a company named like a verb ("Best Buy") moves no money
    pq = parse_question("Best Buy total current assets as of July 29, 2023?",
                        company_words=frozenset({"best", "buy"}))
    assert "buy" not in pq.expression, pq.expression


def test_an_instruction_of_steps_is_asked_when_the_question_only_refers_back():
    from fingap.answers.question import instruction_as_question, refers_back

    q = ("For ACME's 2022, take operating income as reported, add back the depreciation and "
         "amortization from the cash flow statement to get EBITDA, then subtract capital "
         "expenditures. What is left, in millions of US dollars?")
    assert refers_back(q)
    pq = parse_question(instruction_as_question(q))
    assert pq.expression == ("operating_income__fy2022 + depreciation_amortization__fy2022 - "
                             "capex__fy2022"), pq.expression
    # "subtract A from it" takes A from what came before
    q2 = ("Take ACME's 2022 operating income, add back depreciation and amortization, and "
          "subtract capital expenditures from the result. What is the result in USD millions?")
    assert parse_question(instruction_as_question(q2)).expression.endswith("- capex__fy2022")
    # a question sentence that names its figure does not refer back
    assert not refers_back("What was ACME's operating income in 2022? Take the income "
                           "statement.")
    # words that refer back are never the name of a printed line item
    pq = parse_question("What is the result in millions of US dollars for 2022?")
    assert not pq.figure and not pq.labels


def test_a_definition_given_as_an_instruction_replaces_the_line_item():
    q = ("What was ACME's operating margin for 2022, taking operating profit as revenue minus "
         "cost of goods sold minus research and development expense? Give the percentage.")
    assert parse_question(q).expression.replace(" ", "") == (
        "((((revenue__fy2022-cogs__fy2022-row_research_development_expense__fy2022)"
        "/revenue__fy2022)*100))")
    # "... and dividing by sales" is the next step, not part of the definition; a defined
    # name inside a metric the library builds ("EBITDA margin") leaves the metric a margin
    q2 = ("What was ACME's 2022 EBITDA margin on an unadjusted basis, taking EBITDA as operating "
          "income plus depreciation and amortization and dividing by revenue?")
    pq = parse_question(q2)
    assert pq.figure and pq.unit == "percent", pq.reason
    assert "revenue__fy2022" in pq.expression and "depreciation_amortization" in pq.expression


def test_two_words_added_that_name_one_printed_line_item_are_that_line_item():
    # "depreciation plus amortization" is the one row "Depreciation and amortization"
    pq = parse_question("What was ACME's EBITDA for 2022, taken here as operating profit plus "
                        "depreciation plus amortization?")
    assert pq.expression == "operating_income__fy2022 + depreciation_amortization__fy2022", \
        pq.expression
    # two line items stay two
    pq = parse_question("What was ACME's EBITDA for 2022, taken here as operating profit plus "
                        "depreciation plus interest expense?")
    assert pq.expression.count("+") == 2, pq.expression


def test_what_share_of_a_whole_consisted_of_a_part():
    pq = parse_question("At the end of 2022, what share of ACME's obligations due within one year "
                        "consisted of the bills it owed to its suppliers? Express as a "
                        "percentage.", company_words=frozenset({"acme", "acmes"}))
    assert pq.figure and pq.unit == "percent", pq.reason
    assert pq.expression.startswith("((row_bills_it_owed_suppliers__fy2022) / ("), pq.expression


def test_an_abbreviation_joined_by_and_keeps_its_letters():
    # "D&A" is written "d and a": its "a" is the abbreviation's, not an article
    pq = parse_question("What was ACME's D&A as a share of its sales for fiscal 2022?")
    assert pq.expression == "((depreciation_amortization__fy2022) / (revenue__fy2022) * 100)"
    pq = parse_question("What was ACME's ratio of capex to its D&A charge in fiscal 2022?")
    assert pq.figure and "depreciation_amortization__fy2022" in pq.expression, pq.reason


def test_not_annualizing_is_no_part_of_a_name():
    pq = parse_question("For the six months ended June 30, 2023, what was ACME's net income "
                        "divided by the average of everything the company owned at December 31, "
                        "2022 and June 30, 2023, without annualizing?")
    assert pq.figure and not any("annualiz" in name for name in pq.labels.values()), pq.labels


def test_the_nearest_million_is_the_scale_asked():
    pq = parse_question("How much did ACME owe its suppliers at December 31, 2022? Round to the "
                        "nearest million US dollars.")
    assert pq.out_scale == "millions"


def test_an_x_to_y_ratio_asked_at_a_date():
    # the date the ratio is asked at ends the asked phrase; it names when, never what
    for q in ("What was ACME's current-assets-to-current-liabilities ratio as of December 31, "
              "2022? Round to two decimal places.",
              "What was ACME's current assets to current liabilities ratio at the end of 2022?"):
        pq = parse_question(q)
        assert pq.expression == "((total_current_assets__fy2022) / " \
            "(total_current_liabilities__fy2022))", (q, pq.reason)


def test_a_share_left_after_a_part_is_the_whole_less_the_part_over_the_whole():
    from fingap.answers.question import left_after_as_question

    q = ("For ACME's fiscal year ended May 29, 2022, what share of its sales was left after "
         "subtracting what it cost to make the products it sold? Give the percentage to one "
         "decimal place.")
    restated = left_after_as_question(q)
    assert restated == ("For ACME's fiscal year ended May 29, 2022, what was its sales minus "
                        "what it cost to make the products it sold, as a percentage of its "
                        "sales? Give the percentage to one decimal place.")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "percent"
    assert pq.expression.startswith("((revenue__fy2022 - row_") and \
        pq.expression.endswith(") / (revenue__fy2022) * 100)")
    # the part stops before a period phrase or a remark in parentheses
    kept = left_after_as_question(
        "What share of its sales did ACME keep after the direct cost of making the products "
        "it sold during the six months ended July 2, 2023? Round to one decimal place.")
    assert "minus the direct cost of making the products it sold, as a percentage of its " \
        "sales during the six months" in kept
    # "remained after", and a part that lists items ("its subscriptions, products and
    # services"): the list is the part's, not a clause after it
    listed = left_after_as_question(
        "What percentage of ACME's 2015 revenue remained after subtracting the direct costs of "
        "delivering its subscriptions, products and services? Round to two decimal places.")
    assert "minus the direct costs of delivering its subscriptions, products and services, as " \
        "a percentage of ACME's 2015 revenue?" in listed
    assert left_after_as_question("What was ACME's gross margin in FY2022?") is None
    assert left_after_as_question("How much profit was left for shareholders after taxes "
                                  "in FY2022?") is None


def test_a_share_of_a_difference_takes_the_whole_difference():
    # "as a percentage of" binds looser than the minus before it
    pq = parse_question("What was ACME's FY2022 net sales minus cost of sales, as a percentage "
                        "of net sales?")
    assert pq.expression == "((revenue__fy2022 - cogs__fy2022) / (revenue__fy2022) * 100)", \
        pq.expression
    assert pq.unit == "percent"


def test_a_division_after_an_opening_clause_splits_at_the_dividing_by():
    from fingap.answers.question import division_as_question

    q = ("Using ACME's balance sheet and cash flow statement, divide net cash generated by "
         "operations for FY2022 by the company's current liabilities at that date. What is this "
         "operating-cash-flow-to-current-liabilities ratio, rounded to two decimals?")
    restated = division_as_question(q)
    assert restated.startswith("What is net cash generated by operations for FY2022, divided "
                               "by the company's current liabilities at that date?"), restated
    pq = parse_question(restated)
    assert pq.figure and pq.expression == "cfo__fy2022 / total_current_liabilities__fy2022"


def test_the_change_in_a_balance_after_period_words_is_its_difference():
    q = ("What is 365 times the average of ACME's 2021 and 2022 trade payables, divided by 2022 "
         "cost of goods sold plus the year's change in inventory?")
    assert parse_question(q).expression.endswith(
        "( cogs__fy2022 + (inventory__fy2022 - inventory__fy2021) )")
    q2 = q.replace("the year's change", "the 2021-to-2022 change")
    assert parse_question(q2).expression == parse_question(q).expression
    # a year-over-year change asked in percent stays a growth rate
    p = parse_question("What is ACME's year-over-year change in revenue from FY2021 to FY2022 "
                       "(in units of percents)?")
    assert p.metric == "growth" and p.unit == "percent", p


def test_an_instruction_after_the_question_spells_out_the_metric_asked():
    from fingap.answers.question import spelt_out_after_question

    q = ("For ACME's fiscal 2022, how many days of payables were outstanding? Use 365 times "
         "the average of the 2021 and 2022 accounts payable, divided by the sum of 2022 cost "
         "of goods sold and the change in inventory from the end of 2021 to the end of 2022. "
         "Round to two decimal places.")
    assert spelt_out_after_question(q).startswith("365 times the average of the 2021 and 2022")
    # by default the library's formula is read; the spelt-out reading replaces it, once
    library = parse_question(q)
    assert library.metric == "days_payable_outstanding"
    assert "inventory" not in library.expression, library.expression
    spelt = parse_question(q, spelt_out=True)
    assert spelt.unit == "days" and spelt.expression.count("accounts_payable__fy") == 2
    assert "cogs__fy2022 + (inventory__fy2022 - inventory__fy2021)" in spelt.expression
    assert evaluate(spelt.expression, {
        "accounts_payable__fy2021": 90.0, "accounts_payable__fy2022": 110.0,
        "cogs__fy2022": 700.0, "inventory__fy2021": 20.0,
        "inventory__fy2022": 50.0}) == pytest.approx(365 * 100 / 730)
    # an instruction without arithmetic spells nothing out
    assert spelt_out_after_question("What was ACME's FY2022 inventory turnover? Use the "
                                    "balance sheet and the income statement.") is None
    assert spelt_out_after_question("Use 365 times A, divided by B.") is None


def test_a_slash_joining_the_two_words_of_one_line_item_is_no_division():
    p = parse_question("What was ACME's FY2022 EBITDA, computed as operating income plus the "
                       "depreciation/amortization charge?")
    assert p.expression.count("/") == 0 and "depreciation_amortization__fy2022" in p.expression
    # with spaces either side, or between two line items, a slash divides
    p2 = parse_question("What was ACME's FY2022 net income / revenue, in percent?")
    assert p2.expression == "(net_income__fy2022 / revenue__fy2022) * 100", p2.expression


def test_the_excess_of_one_amount_over_another_is_their_difference():
    p = parse_question("What was the excess of ACME's total current assets over its total "
                       "current liabilities at December 31, 2022? Answer in USD millions.")
    assert p.expression == "total_current_assets__fy2022 - total_current_liabilities__fy2022"
    assert p.unit == "usd"


def test_what_follows_that_is_or_meaning_explains_the_figure_named_before_it():
    p = parse_question("For fiscal 2022, what was ACME's interest coverage, that is, how many "
                       "times its earnings from operations covered the interest charged on its "
                       "borrowings? Round to two decimal places.")
    assert p.expression == "((operating_income__fy2022 / interest_expense__fy2022))", p
    p2 = parse_question("What was ACME's cost of goods sold for 2022, meaning the combined "
                        "direct costs of everything it sold? Answer in USD millions.")
    assert p2.expression == "cogs__fy2022", p2
    # an explanation that adds or subtracts is arithmetic, read as before
    p3 = parse_question("What was ACME's 2022 unadjusted EBITDA, meaning operating income plus "
                        "depreciation and amortization?")
    assert p3.expression.count("+") == 1 and "depreciation_amortization__fy2022" in p3.expression


def test_the_share_of_a_whole_handed_back_as_a_part():
    p = parse_question("What share of its 2022 net income did ACME hand back to its owners as "
                       "cash dividends, based on its cash flow statement? In percent.")
    assert p.expression == "((dividends_paid__fy2022) / (net_income__fy2022) * 100)", p


def test_an_instruction_that_expresses_its_result_as_a_share_keeps_the_division():
    from fingap.answers.question import instruction_as_question

    q = ("We're computing a margin for ACME in 2022: take operating income as reported, add "
         "back the depreciation and amortization from the cash flow statement to get EBITDA, "
         "and express that as a percentage of revenue. What is it?")
    pq = parse_question(instruction_as_question(q))
    assert pq.expression == ("((operating_income__fy2022 + depreciation_amortization__fy2022) / "
                             "(revenue__fy2022) * 100)"), pq.expression
    assert pq.unit == "percent"
    # a tail that still operates on the result is never dropped: no partial restatement
    q2 = ("For ACME's 2022, take operating income plus depreciation, rounding the sum and then "
          "dividing it by revenue. What is the result?")
    assert instruction_as_question(q2) is None


def test_a_year_after_of_is_no_company_name():
    # "for 3M" names the company; "to the end of 2022" dates the change
    pq = parse_question("By what percentage did ACME's receivables grow from the end of 2021 to "
                        "the end of 2022?")
    assert pq.expression == ("((((accounts_receivable__fy2022 - accounts_receivable__fy2021) / "
                             "accounts_receivable__fy2021) * 100))"), pq.expression
    assert parse_question("What was the revenue of 3M for FY2022?").expression == "revenue__fy2022"


def test_balances_taken_at_the_year_end_are_not_averaged():
    # the library's ROE averages equity over the year's two ends; the question's own basis wins
    for basis in ("using the year-end equity balance",
                  "measured against the equity on its balance sheet at that year-end"):
        pq = parse_question(f"What was ACME's return on equity for 2022, {basis}?")
        assert pq.expression == "(((net_income__fy2022 / total_equity__fy2022) * 100))", \
            (basis, pq.expression)
    # an average asked keeps the average
    pq = parse_question("What was ACME's return on equity for 2022, using the average of the "
                        "opening and year-end equity balances?")
    assert "/ 2)" in pq.expression, pq.expression


def test_a_year_ended_in_the_first_days_of_january_may_be_headed_by_the_year_before():
    pq = parse_question("What was ACME's revenue for the fiscal year ended January 1, 2023?")
    assert pq.fiscal_of.get(2023) == 2022
    # a year that ends late in January is named as the filing names it: no fallback
    pq = parse_question("What was ACME's revenue for the fiscal year ended January 28, 2023?")
    assert 2023 not in pq.fiscal_of


def test_earnings_per_share_on_a_diluted_basis_is_diluted_eps():
    from fingap.answers.question import diluted_per_share

    for q in ("What were ACME's earnings per share on a fully diluted basis for 2022?",
              "On a fully diluted basis, how much did ACME earn per share in 2022?",
              "How much did ACME earn per diluted share in 2022?"):
        pq = parse_question(q)
        assert pq.expression == "eps_diluted__fy2022" and pq.unit == "usd_per_share", (q, pq)
    # basic earnings keep their words; so does a question with no diluted basis
    q = "What were ACME's basic earnings per share, on a diluted basis too, in 2022?"
    assert diluted_per_share(q) == q
    assert diluted_per_share("How much did ACME earn per share in 2022?") == \
        "How much did ACME earn per share in 2022?"


def test_a_period_length_stated_with_its_end_wins_over_a_quarter_naming_the_document():
    from fingap.answers.question import stated_duration

    q = ("Based on ACME's fourth-quarter 2022 earnings release, what was its revenue for the "
         "twelve months ended December 31, 2022?")
    assert stated_duration(q) == "12M" and parse_question(q).duration == "12M"
    assert parse_question("What was ACME's revenue in the fourth quarter of 2022?").duration \
        == "3M"
    assert stated_duration("ACME's 52 weeks ended January 28, 2023") == "12M"
    # two lengths stated: neither wins here
    assert stated_duration("the six months ended June 30, 2023 against the three months ended "
                           "June 30, 2023") is None


def test_an_unread_question_sentence_is_asked_by_its_own_definition_or_name():
    from fingap.answers.question import named_or_defined_as_question

    # "how many days of ... did ..." is no question form the parser reads; the definition
    # after it is what is asked, once
    q = ("For ACME's fiscal year ended May 31, 2019, how many days of purchases did it leave "
         "unpaid to suppliers, computed as the average of its opening and closing accounts "
         "payable divided by cost of goods sold, times 365? Round to one decimal place.")
    assert not parse_question(q).figure
    restated = named_or_defined_as_question(q)
    assert restated.startswith("What is the average of its opening and closing accounts payable")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "days" and pq.decimals == 1, pq.reason
    assert pq.expression == ("((accounts_payable__fy2018 + accounts_payable__fy2019) / 2) / "
                             "cogs__fy2019 * 365")
    # no definition: a remark in parentheses that names a library metric whole
    q = ("Using the average of ACME's receivables at the start and end of 2022 and a 365-day "
         "year, how many days of 2022 sales did those receivables represent (days sales "
         "outstanding)? Round to one decimal place.")
    restated = named_or_defined_as_question(q)
    assert restated.startswith("What is the days sales outstanding?")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "days" and pq.target_year == 2022, pq.reason
    # a remark that is no metric, or none at all: no reading
    assert named_or_defined_as_question(
        "How many days of 2022 sales did ACME's receivables represent (roughly)?") is None
    assert named_or_defined_as_question("How many days of sales did ACME hold in 2022?") is None


def test_a_pronoun_subject_is_the_line_item_named_before_the_colon():
    from fingap.answers.question import lead_as_subject

    q = "ACME's top line: how much did it grow from 2016 to 2017, in percent (one decimal)?"
    assert not parse_question(q).figure
    restated = lead_as_subject(q)
    assert restated.startswith("how much did ACME's top line grow from 2016 to 2017")
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "percent", pq.reason
    assert pq.expression == "((((revenue__fy2017 - revenue__fy2016) / revenue__fy2016) * 100))"
    # a role or a source before the colon frames the question; no pronoun subject, no reading
    assert lead_as_subject("As an analyst: how much did it earn in 2019?") is None
    assert lead_as_subject("ACME's top line: what was the 2019 figure?") is None


def test_an_instruction_after_a_sentence_the_parser_could_not_build_is_asked():
    from fingap.answers.question import instruction_as_question

    q = ("What fraction of its fiscal 2022 profit did ACME keep in the business rather than pay "
         "out? Compute one minus cash dividends paid divided by net income, rounded to two "
         "decimal places.")
    # the question sentence names a figure of its own, so only an unread one gives way
    assert instruction_as_question(q) is None
    restated = instruction_as_question(q, unread=True)
    assert restated.startswith("What is one minus cash dividends paid divided by net income?")
    pq = parse_question(restated)
    # "one minus": the number one is an operand
    assert pq.figure and pq.unit == "ratio", pq.reason
    assert pq.expression == "1 - dividends_paid__fy2022 / net_income__fy2022"
    assert parse_question("What was ACME's FY2022 one-time charge minus one-time gains?")\
        .expression != "1"


def test_a_division_for_each_of_the_years_listed_by_their_closing_dates():
    from fingap.answers.question import division_as_question

    q = ("For each of ACME's fiscal years ended January 31, 2015, January 30, 2016 and January "
         "28, 2017, divide net income by revenue, then average the three results. What is that "
         "average, in percent to one decimal place?")
    restated = division_as_question(q)
    assert "averaged over 2015, 2016 and 2017?" in restated
    pq = parse_question(restated)
    assert pq.figure and pq.unit == "percent", pq.reason
    assert {y for _, y in pq.inputs} == {2015, 2016, 2017}
    # a 52/53-week year that closes in the first days of January is named for the year before
    q = q.replace("January 31, 2015, January 30, 2016 and January 28, 2017",
                  "January 3, 2016, January 1, 2017 and December 31, 2017")
    assert "averaged over 2015, 2016 and 2017?" in division_as_question(q)


def test_those_stands_for_the_head_noun_of_the_operand_before_it():
    from fingap.answers.question import _those_as_head

    q = ("Treat cost of goods sold as the costs booked against product sales plus those booked "
         "against service sales.")
    assert "plus costs booked against service sales" in _those_as_head(q)
    assert _those_as_head("the cost of products and that of services") == \
        "the cost of products and cost of services"
    # no noun before the link word: left as written
    assert _those_as_head("the sum of A plus those of B") == "the sum of A plus those of B"


def test_a_reconciliation_clause_names_where_the_item_sits():
    q = ("How large was the non-cash charge for depreciation plus amortization that ACME added "
         "back in reconciling 2022 profit to operating cash flow? Answer in USD millions.")
    assert "in the 2022 cash flow statement" in reconciliation_as_source(q)
    pq = parse_question(q)
    assert pq.expression == "depreciation_amortization__fy2022"
    assert "cash_flow" in pq.statements
    # its target alone is what is asked when no reconciling verb places it
    assert parse_question("What was ACME's operating cash flow in 2022?").expression == \
        "cfo__fy2022"


def test_every_input_read_from_one_statement():
    q = ("How many times did ACME's cash from operations cover its profit in 2022? Compute "
         "operating cash flow divided by net profit (both from the cash flow statement).")
    assert every_input_statement(q) == "cash_flow"
    assert every_input_statement("all three read from the balance sheet") == "balance_sheet"
    assert every_input_statement("What was its net margin in both years?") is None


def test_receivables_net_of_the_allowance_ask_for_the_net_row():
    pq = parse_question("What were ACME's customer receivables after the credit-loss allowance "
                        "at December 31, 2021?")
    assert pq.expression == "accounts_receivable__fy2021"
    assert pq.phrases["accounts_receivable"].endswith("net")


def test_tax_charge_and_operating_revenues_are_vocabulary_names():
    # (the names filings print: "Income tax charge", "Operating revenues")
    assert parse_question("What was ACME's income tax charge for 2019?").expression == \
        "income_tax__fy2019"
    assert parse_question("What were ACME's total operating revenues in 2021?").expression == \
        "revenue__fy2021"


def test_fixed_asset_investment_is_capex():
    # (capital expenditure is the investment in fixed assets)
    assert parse_question("How much did ACME spend on fixed-asset investment in 2019?"
                          ).expression == "capex__fy2019"


def test_a_bracketed_division_after_an_operator_is_the_ratio_it_groups():
    from fingap.answers.question import instruction_as_question

    q = ("What fraction of its fiscal 2022 profit did ACME keep rather than pay out? Compute 1 "
         "minus (cash dividends paid / net income) for fiscal 2022, rounded to two decimals.")
    restated = instruction_as_question(q, unread=True)
    assert restated.startswith("What is 1 minus the ratio of cash dividends paid to net income")
    assert parse_question(restated).expression.replace(" ", "") == \
        "1-((dividends_paid__fy2022)/(net_income__fy2022))"
    # a remark in brackets that defines a metric stays a remark
    q = ("For fiscal 2022, compute ACME's EBITDA margin (operating profit plus D&A, divided by "
         "revenue). What is the result in percent?")
    assert "the ratio of" not in (instruction_as_question(q, unread=True) or "")
