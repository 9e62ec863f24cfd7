from fingap.answers.expression_checks import (
    average_reason,
    dimension_reason,
    weight_reason,
    years_reason,
)
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


def test_an_average_asked_needs_a_formula_that_takes_one():
    q = "Sales per dollar of assets, using the average of the opening and closing balances?"
    assert average_reason(q, "revenue__fy2016 / total_assets__fy2016")
    assert average_reason(q, "revenue__fy2016 / ((total_assets__fy2016 + "
                             "total_assets__fy2015) / 2)") is None
    assert average_reason("Weighted average diluted shares in FY2016?", "x__fy2016") is None
