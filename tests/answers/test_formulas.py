import pytest

from fingap.answers.calculator import CalcError, evaluate
from fingap.answers.formulas import expand, load_library, mean_over_years, split_input_name


def test_avg_and_prev_expand_to_fiscal_years():
    e = expand("revenue / avg(ppe_net)", 2019)
    assert evaluate(e, {"revenue__fy2019": 6489, "ppe_net__fy2019": 253,
                        "ppe_net__fy2018": 282}) == pytest.approx(6489 / 267.5)
    g = expand("({x} - prev({x})) / prev({x}) * 100", 2016, x="operating_income")
    assert evaluate(g, {"operating_income__fy2016": 1494, "operating_income__fy2015": 903}) == \
        pytest.approx((1494 - 903) / 903 * 100)
    assert split_input_name("ppe_net__fy2018") == ("ppe_net", 2018)


def test_a_compound_rate_runs_over_the_years_between_the_two_named():
    e = expand(load_library()["cagr"].expr, 2022, x="revenue", prev_year=2020)
    assert e == "((((revenue__fy2022 / revenue__fy2020) ** (1 / 2)) - 1) * 100)"
    assert evaluate(e, {"revenue__fy2022": 121, "revenue__fy2020": 100}) == pytest.approx(10.0)


def test_multi_year_average():
    e = mean_over_years("capex / revenue * 100", [2017, 2018, 2019])
    vals = {f"capex__fy{y}": 1 for y in (2017, 2018, 2019)} | \
        {f"revenue__fy{y}": 100 for y in (2017, 2018, 2019)}
    assert evaluate(e, vals) == pytest.approx(1.0)


def test_library_covers_the_common_metrics_and_every_formula_expands():
    lib = load_library()
    for name in ("current_ratio", "quick_ratio", "gross_margin", "operating_margin",
                 "net_margin", "return_on_assets", "return_on_equity", "days_sales_outstanding",
                 "days_inventory_outstanding", "days_payable_outstanding",
                 "cash_conversion_cycle", "free_cash_flow", "ebitda", "capex_to_revenue",
                 "dividend_payout_ratio", "interest_coverage", "asset_turnover",
                 "inventory_turnover", "effective_tax_rate", "growth", "cagr"):
        assert name in lib
    for m in lib.values():
        expand(m.expr, 2020, x="revenue")  # raises on a malformed library entry


def test_bad_formula_raises():
    with pytest.raises(CalcError):
        expand("revenue % 2", 2020)
    with pytest.raises(CalcError):
        expand("({x} - prev({x}))", 2020)  # needs the concept
