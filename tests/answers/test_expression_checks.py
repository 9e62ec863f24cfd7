import ast
from dataclasses import replace

from fingap.answers.expression_checks import (
    annualize_reason,
    arithmetic_reason,
    average_reason,
    between_reason,
    change_reason,
    complement_reason,
    covered_input,
    dimension_reason,
    operations_not_taken,
    period_days_reason,
    repeat_reason,
    repeated_term_reason,
    scale_reason,
    self_difference_reason,
    stated_factor_reason,
    weight_reason,
    year_end_reason,
    years_reason,
)
from fingap.answers.labels import Vocabulary
from fingap.answers.question import parse_question


def test_dimensions_catch_days_added_to_dollars():
    days = "365 * ((ap__fy2020 + ap__fy2019) / 2) / cogs__fy2020"
    assert dimension_reason(days, "days", set()) is None
    # "... divided by COGS plus the change in inventory", read without the parenthesis
    misread = f"{days} + (inv__fy2020 - inv__fy2019)"
    assert "adds a pure number to an amount" in dimension_reason(misread, "days", set())
    assert dimension_reason("(op__fy2022 + da__fy2022) / rev__fy2022 * 100", "percent",
                            set()) is None
    assert "a usd is asked" in dimension_reason("op__fy2022 / rev__fy2022", "usd", set())
    assert dimension_reason("ni__fy2022 / shares__fy2022", "usd_per_share", set()) is not None
    assert dimension_reason("eps__fy2022", "usd_per_share", {"eps__fy2022"}) is None


def test_a_quantity_subtracted_from_itself_is_caught():
    # "the change in inventory" inside a formula read as a change of the whole formula
    days = "365 * ap__fy2020 / (cogs__fy2020 + (inv__fy2020 - inv__fy2019))"
    assert self_difference_reason(f"(({days}) - ({days}))") is not None
    assert self_difference_reason(days) is None
    assert self_difference_reason("rev__fy2022 - rev__fy2021") is None


def test_weights_catch_a_definition_applied_twice():
    assert weight_reason("((tca__fy2021 - tcl__fy2021)) - tcl__fy2021") is not None
    for fine in ("cfo__fy2020 - capex__fy2020", "(a__fy2019 + a__fy2020) / 2",
                 "op__fy2022 + da__fy2022 - capex__fy2022",
                 "365 * ((ap__fy2020 + ap__fy2019) / 2) / (cogs__fy2020 + (inv__fy2020 - "
                 "inv__fy2019))",
                 "1 - div__fy2022 / ni__fy2022"):
        assert weight_reason(fine) is None, fine


def test_every_year_the_question_names_is_read():
    q = ("Over fiscal 2017 through 2019, what did ACME's capital spending average as a share "
         "of revenue?")
    pq = parse_question(q)
    one_year = pq.__class__(**{**pq.__dict__, "inputs": [("capex", 2019), ("revenue", 2019)]})
    assert "2017" in years_reason(q, one_year)
    all_years = pq.__class__(**{**pq.__dict__, "inputs": [
        ("capex", y) for y in (2017, 2018, 2019)]})
    assert years_reason(q, all_years) is None
    # a retailer's fiscal 2024 quarter is printed under 2023: the rows read count
    q2 = "What was ACME's Q2 FY2024 revenue?"
    pq2 = parse_question(q2)
    assert years_reason(q2, pq2.__class__(**{**pq2.__dict__, "inputs": [("revenue", 2023)]}),
                        [{"year": 2023, "fiscal_year": 2024}]) is None
    # a balance read at the date named beside the fiscal year it ends ("January 28, 2023, the
    # end of fiscal 2022"); a balance at another date reads no 2022
    q3 = "What were ACME's current liabilities as of January 28, 2023 (fiscal 2022 year-end)?"
    pq3 = parse_question(q3)
    at_date = [{"year": 2023, "fiscal_year": 2023, "end_date": "2023-01-28"}]
    assert years_reason(q3, pq3, at_date) is None
    assert "2022" in years_reason(q3, pq3, [at_date[0] | {"end_date": "2023-07-29"}])


def test_an_average_asked_needs_a_formula_that_takes_one():
    q = "Sales per dollar of assets, using the average of the opening and closing balances?"
    assert average_reason(q, "revenue__fy2016 / total_assets__fy2016")
    assert average_reason(q, "revenue__fy2016 / ((total_assets__fy2016 + "
                             "total_assets__fy2015) / 2)") is None
    assert average_reason("Weighted average diluted shares in FY2016?", "x__fy2016") is None


def test_an_operation_the_question_states_is_one_the_formula_takes():
    q = ("What were ACME's D&A charges in FY2023, taking D&A as the depreciation add-back plus "
         "the amortization add-back? USD millions.")
    assert "adds" in arithmetic_reason(q, "depreciation_amortization__fy2023")
    assert arithmetic_reason(q, "depreciation__fy2023 + amortization__fy2023") is None
    # words bound by hyphens name one line item, no sum
    bound = "What was ACME's FY2023 depreciation-plus-amortization charge? USD millions."
    assert arithmetic_reason(bound, "depreciation_amortization__fy2023") is None
    summed = "Divide operating cash flow by the sum of short-term liabilities and round it."
    assert arithmetic_reason(summed, "cfo__fy2023 / total_current_liabilities__fy2023") is None
    assert "adds" in arithmetic_reason("the sum of cash and investments", "cash__fy2023")
    assert "subtracts" in arithmetic_reason("revenue minus cost of sales", "revenue__fy2023")
    assert "divides" in arithmetic_reason("Divide FY2019 revenue by total assets",
                                          "revenue__fy2019")
    assert arithmetic_reason("revenue divided by total assets", "revenue__fy2019 / ta__fy2019") \
        is None
    # words in parentheses qualify a line item; "less" and "over" are left alone: English
    # uses them for other things
    assert arithmetic_reason("net income over the year, no less than zero", "ni__fy2019") is None
    assert arithmetic_reason("operating cash flow (continuing plus discontinued operations)",
                             "cfo__fy2021") is None
    # "add X to Y ... that sum" adds
    q2 = "Add the D&A charge to operating profit and express that sum as a share of revenue."
    assert "adds" in arithmetic_reason(q2, "da__fy2015 / revenue__fy2015")
    # a definition that restates a total the page prints as that difference
    q3 = "Taking everything ACME owned and subtracting everything it owed, what was left?"
    assert arithmetic_reason(q3, "equity__fy2022", printed=lambda op: op is ast.Sub) is None
    assert "subtracts" in arithmetic_reason(q3, "equity__fy2022", printed=lambda op: False)
    # a list of parts "taken together" adds them; "the combined value of X" names one item
    q4 = ("What was ACME's acid-test ratio, i.e. its cash, short-term investments and "
          "receivables, taken together and divided by its current liabilities?")
    assert "adds" in arithmetic_reason(q4, "cash__fy2022 / tcl__fy2022")
    assert arithmetic_reason(q4, "(cash__fy2022 + sti__fy2022 + ar__fy2022) / tcl__fy2022") \
        is None
    assert arithmetic_reason("What was the combined value of everything ACME owned?",
                             "total_assets__fy2022") is None


def test_an_annualized_figure_needs_a_formula_that_scales_the_period():
    q = "What annualized return on equity did ACME earn in the first quarter of 2021? Percent."
    pq = parse_question(q)
    assert pq.duration == "3M"
    assert "annualizes" in annualize_reason(q, pq)
    assert annualize_reason(q, replace(pq, expression=f"({pq.expression}) * 4")) is None
    # "(not annualised)" asks for the quarter's own figure, a year needs no scaling
    assert annualize_reason(q.replace("annualized", "(not annualised)"), pq) is None
    assert annualize_reason(q, replace(pq, duration="12M")) is None


def test_days_over_a_shorter_period_count_its_days_not_a_years():
    q = ("How many days of inventory did ACME carry in the 12 weeks ended March 25, 2023? "
         "Use average inventory and the quarter's cost of sales.")
    days = "365 * ((inventory__fy2023 + inventory__fy2022) / 2) / cogs__fy2023"
    assert "counts a year's days" in period_days_reason(q, days, "3M")
    assert period_days_reason(q, days.replace("365", "84"), "3M") is None
    assert period_days_reason(q, days, "12M") is None
    # a year's days stated, or the figure annualized: the question's own choice
    assert period_days_reason(q.replace("Use", "Use 365 days and"), days, "3M") is None
    assert period_days_reason(q.replace("carry", "carry, annualized,"), days, "3M") is None


def test_year_end_balances_are_not_averaged():
    averaged = "365 * ((inventory__fy2020 + inventory__fy2019) / 2) / cogs__fy2020"
    q = "Using balances at the end of fiscal 2020 and a 365-day year, what were days of inventory?"
    assert "averages them" in year_end_reason(q, averaged)
    assert year_end_reason(q, "365 * inventory__fy2020 / cogs__fy2020") is None
    for asked in ("Use averages of the opening and closing balances of inventory.",
                  "the average of the year-end balances of 2019 and 2020"):
        assert year_end_reason(asked, averaged) is None, asked


def test_the_change_in_a_line_item_is_a_difference_of_two_years():
    vocab = Vocabulary.load()
    q = "DPO: 365 x payables / (2020 COGS plus the change in inventory from 2019 to 2020)."
    assert "change in inventory" in change_reason(q, "365 * ap__fy2020 / cogs__fy2020", vocab)
    assert change_reason(q, "365 * ap__fy2020 / (cogs__fy2020 + inventory__fy2020 - "
                            "inventory__fy2019)", vocab) is None
    assert change_reason("the change in revenue from 2019 to 2020?",
                         "revenue__fy2020 - revenue__fy2019", vocab) is None


def test_what_is_kept_rather_than_paid_out_is_a_complement():
    q = "What fraction of its profit did ACME keep rather than pay out as dividends?"
    assert "subtracts nothing" in complement_reason(q, "dividends_paid__fy2022 / ni__fy2022")
    assert complement_reason(q, "1 - dividends_paid__fy2022 / ni__fy2022") is None
    assert complement_reason("What was ACME's payout ratio?", "dp__fy2022 / ni__fy2022") is None
    q = "What share of ACME's 2022 profit was kept in the business rather than returned?"
    assert "subtracts nothing" in complement_reason(q, "dividends_paid__fy2022 / ni__fy2022")
    # "rather than" that contrasts two parts or two forms asks for no complement
    for q in ("What portion of ACME's 2022 revenue came from services rather than products?",
              "What was ACME's 2022 return on assets, as a decimal rather than a percent?"):
        assert complement_reason(q, "services__fy2022 / revenue__fy2022") is None


def test_a_year_between_year_end_and_balance_is_still_a_year_end_balance():
    averaged = "365 * ((accounts_payable__fy2015 + accounts_payable__fy2014) / 2) / cogs__fy2015"
    q = ("Days payable outstanding for 2015, computed as the year-end 2015 balance owed to "
         "vendors divided by cost of revenues, times 365?")
    assert "averages them" in year_end_reason(q, averaged)
    assert year_end_reason(q, "365 * accounts_payable__fy2015 / cogs__fy2015") is None


def test_a_definition_applied_twice_squares_its_line_items():
    twice = ("(365 * ((accounts_payable__fy2023 + accounts_payable__fy2022) / 2) / cogs__fy2023)"
             " * ((accounts_payable__fy2022 + accounts_payable__fy2023) / 2) / cogs__fy2023")
    assert "accounts_payable, cogs twice over" in repeat_reason(twice)
    for once in ("(net_income__fy2017 / ((total_assets__fy2017 + total_assets__fy2016) / 2)) * 100",
                 "(operating_income__fy2022 + depreciation__fy2022) / revenue__fy2022 * 100",
                 "365 * inventory__fy2020 / cogs__fy2020 + 365 * receivables__fy2020 / "
                 "revenue__fy2020 - 365 * payables__fy2020 / cogs__fy2020"):
        assert repeat_reason(once) is None, once


def test_days_and_a_percent_do_not_add():
    mixed = ("365 * ((ap__fy2019 + ap__fy2020) / 2) / cogs__fy2020 + "
             "(((inventory__fy2020 - inventory__fy2019) / inventory__fy2019) * 100)")
    assert scale_reason(mixed) == "the formula adds days to percent"
    assert scale_reason("((ni__fy2015 / rev__fy2015 * 100) + (ni__fy2016 / rev__fy2016 * 100)) "
                        "/ 2") is None
    assert scale_reason("365 * ap__fy2020 / (cogs__fy2020 + inventory__fy2020 - "
                        "inventory__fy2019)") is None


def test_words_that_name_one_line_item_state_no_addition():
    ratio = "cfo__fy2015 / total_current_liabilities__fy2015"
    for q in ("Divide operating cash flow by the sum of its current liabilities.",
              "How much depreciation did ACME add back to earnings in its cash flow statement?",
              "Taking operating cash flow and subtracting what it spent adding to plant and "
              "equipment, what free cash flow did it produce?"):
        assert ast.Add not in operations_not_taken(q, ratio), q
    for q in ("Divide A by the sum of cash and receivables.",
              "Add back the depreciation to operating income, then divide by revenue."):
        assert ast.Add in operations_not_taken(q, ratio), q


def test_the_change_the_question_takes_is_a_difference_of_two_years():
    vocab = Vocabulary.load()
    q = ("Compute DPO as 365 x average payables / (cost of goods sold + the change in inventory "
         "between 2021 and 2022).")
    dpo = "365 * ((ap__fy2022 + ap__fy2021) / 2) / cogs__fy2022"
    assert "change in inventory" in change_reason(q, dpo, vocab)
    with_change = "365 * ((ap__fy2022 + ap__fy2021) / 2) / (cogs__fy2022 + (inventory__fy2022 " \
        "- inventory__fy2021))"
    assert change_reason(q, with_change, vocab) is None
    # an item in words the vocabulary does not know: some line item's two years taken apart;
    # the same year on both sides of a subtraction ("DIO - DPO" over one cost of sales) is none
    q2 = ("Compute the cycle as DIO minus DPO, DPO over (cost of goods sold + the change in "
          "stock on hand).")
    cycle = "(365 * inventory__fy2022 / cogs__fy2022) - (365 * ap__fy2022 / cogs__fy2022)"
    assert "stock on hand" in change_reason(q2, cycle, vocab)
    assert change_reason(q2, cycle.replace("ap__fy2022 / cogs__fy2022", "ap__fy2022 / "
                                           "(cogs__fy2022 + inventory__fy2022 - "
                                           "inventory__fy2021)"), vocab) is None


def test_a_coverage_divides_by_the_amount_covered():
    q = "How many times did ACME's operating profit cover its net interest charge in 2022?"
    assert covered_input(q, "((operating_income__fy2022) / (row_net_interest__fy2022))") == \
        "row_net_interest__fy2022"
    assert covered_input(q, "((operating_income__fy2022) / (row_net_interest__fy2022) * 100)") \
        == "row_net_interest__fy2022"
    assert covered_input("What was ACME's operating margin in 2022?",
                         "((operating_income__fy2022) / (revenue__fy2022))") is None
    assert covered_input(q, "operating_income__fy2022 / (a__fy2022 + b__fy2022)") is None


def test_line_items_taken_at_the_year_end_are_not_averaged():
    averaged = "365 * ((accounts_receivable__fy2020 + accounts_receivable__fy2019) / 2) / " \
        "revenue__fy2020"
    q = ("Measuring DSO as year-end net receivables divided by full-year revenue, times 365, "
         "what was ACME's DSO for 2020?")
    assert "averages them" in year_end_reason(q, averaged)
    assert year_end_reason(q, "365 * accounts_receivable__fy2020 / revenue__fy2020") is None
    # a year-end date or an average asked for is no single balance
    for asked in ("What was ACME's DSO for the fiscal year-end 2020?",
                  "DSO from the average of year-end receivables of 2019 and 2020?"):
        assert year_end_reason(asked, averaged) is None, asked


def test_by_how_much_between_two_periods_takes_two_periods_apart():
    q = ("By how much did what customers owed ACME shrink between January 28, 2023 and July 29, "
         "2023? USD millions.")
    assert "moved between January 28, 2023 and July 29, 2023" in \
        between_reason(q, "receivables__fy2024")
    assert between_reason(q, "receivables__fy2023 - receivables__fy2024") is None
    q2 = "By how much did ACME's revenue grow from 2021 to 2022? Percent."
    assert between_reason(q2, "(revenue__fy2022 - revenue__fy2021) / revenue__fy2021 * 100") \
        is None
    assert between_reason(q2, "revenue__fy2022") is not None
    # no change asked, or one period named twice
    assert between_reason("What was ACME's revenue from 2021 to 2022?", "revenue__fy2022") is None
    assert between_reason("By how much did current assets exceed current liabilities at "
                          "December 31, 2022?", "tca__fy2022 - tcl__fy2022") is None


def test_a_term_added_twice_is_a_definition_applied_twice():
    dio = "((365 * inventory__fy2022) / cogs__fy2022)"
    dso = "((365 * accounts_receivable__fy2022) / revenue__fy2022)"
    dpo = "((365 * accounts_payable__fy2022) / cogs__fy2022)"
    assert "twice" in repeated_term_reason(f"(({dio} + {dso}) - {dpo}) + {dso} - {dpo}")
    assert repeated_term_reason(f"{dio} + {dso} - {dpo}") is None
    # the same line item in two years is two terms; an average is no repetition
    assert repeated_term_reason("(inventory__fy2022 + inventory__fy2021) / 2") is None
    assert repeated_term_reason("cogs__fy2022 + (inventory__fy2022 - inventory__fy2021)") is None


def test_the_excess_of_one_amount_over_another_is_a_stated_subtraction():
    q = "What was the excess of ACME's current assets over its current liabilities in 2022?"
    assert "excess" in arithmetic_reason(q, "total_current_assets__fy2022 / "
                                            "total_current_liabilities__fy2022")
    assert arithmetic_reason(q, "total_current_assets__fy2022 - "
                                "total_current_liabilities__fy2022") is None


def test_a_factor_the_question_states_is_the_formulas():
    half = ("Take the average inventory, divide it by the cost of sales of the six months, and "
            "multiply by 182.5 days (half a 365-day year).")
    # the library's days metric (365) answers another question; the stated factor wins
    assert "182.5" in stated_factor_reason(half, "(365 * ((inventory__fy2023 + inventory__fy2022)"
                                                 " / 2) / cogs__fy2023)")
    assert stated_factor_reason(half, "182.5 * ((inventory__fy2023 + inventory__fy2022) / 2) / "
                                      "cogs__fy2023") is None
    assert "360" in stated_factor_reason("Using a 360-day year, what was ACME's DSO in 2022?",
                                         "365 * accounts_receivable__fy2022 / revenue__fy2022")
    for q in ("Using a 365-day year, what was ACME's DSO in 2022?",
              "Compute it as 365 times the average payables, divided by cost of sales.",
              "How many times did ACME turn over its inventory in 2022?"):
        assert stated_factor_reason(q, "365 * accounts_receivable__fy2022 / revenue__fy2022") \
            is None, q



def test_combine_with_is_an_addition_and_a_reconciliation_clause_is_none():
    q = ("What was ACME's total D&A for 2019? Combine the charge for wear and tear on fixed "
         "assets with the amortization add-back.")
    assert "adds" in arithmetic_reason(q, "depreciation_amortization__fy2019")
    assert arithmetic_reason(q, "depreciation__fy2019 + amortization__fy2019") is None
    # "add back when reconciling its profit to operating cash flow" places one line item
    q = ("How much depreciation and amortization did ACME add back when reconciling its profit "
         "to operating cash flow in fiscal 2022?")
    assert arithmetic_reason(q, "depreciation_amortization__fy2022") is None
