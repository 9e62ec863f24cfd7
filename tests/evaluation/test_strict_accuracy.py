from fingap.evaluation.strict_accuracy import (
    first_new_number,
    gold_numbers,
    single_number_gold,
    strict_match,
)


def test_tolerance_is_half_a_printed_unit_or_one_percent():
    # "$8.70": 1% of 8.70 = 0.087 > half a cent, so 8.738 counts and 8.80 does not
    assert strict_match(8.738, "$8.70") and not strict_match(8.80, "$8.70")
    # "24.26": 1% = 0.2426 -> [24.0174, 24.5026]
    assert strict_match(24.5, "24.26") and not strict_match(24.51, "24.26")
    # small golds: half a unit of the last decimal wins over 1%
    assert strict_match(0.014, "0.01") and not strict_match(0.0, "0.01")  # NumMatch lets 0 pass
    assert strict_match(-3.70, "-3.7") and not strict_match(3.7, "-3.7")


def test_percent_fraction_and_scale_are_normalised():
    assert strict_match(1.9, "1.9%") and strict_match(0.019, "1.9%")
    assert strict_match(1600, "$1.6 billion", value_scale=1e6)
    assert strict_match(1.6, "$1.6 billion")
    assert not strict_match(1600, "$1.6 billion")


def test_gold_numbers_skip_years_and_labels():
    assert [g[0] for g in gold_numbers("In FY2019 the CCC was -3.7 days (Q4 2019)")] == [-3.7]
    assert single_number_gold("$1577.00") and not single_number_gold("$32,765 million; $9.09")
    assert not single_number_gold("Yes, the company is capital intensive.")
    # an amount that reads like a year is an amount
    assert [g[0] for g in gold_numbers("$2014.3")] == [2014.3]
    assert [g[0] for g in gold_numbers("$2010 million in FY2019")] == [2010.0]
    assert strict_match(2014.3, "$2014.3") and not strict_match(0.3, "$2014.3")


def test_first_new_number_skips_numbers_of_the_question():
    q = "What was the FY2019 capex (in USD millions)?"
    assert first_new_number("In FY2019, capex was $1,577 million.", q) == 1577e6
    assert first_new_number("FY2019", q) is None
    assert first_new_number("No number here", q) is None
