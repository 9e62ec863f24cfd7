from fingap.answers.periods import period_spans, strip_period_phrases


def test_a_period_led_by_a_preposition_is_stripped_keeping_its_years():
    assert strip_period_phrases("dividends over the first half of 2023").strip() == \
        "dividends 2023"
    assert strip_period_phrases(
        "cash its operations generated over the 52 weeks ended January 28, 2023").strip() == \
        "cash its operations generated 2023"
    assert strip_period_phrases("the top line grow over the prior fiscal year").strip() == \
        "the top line grow"
    assert strip_period_phrases("sales grow over the two years from 2020 to 2022") == \
        "sales grow from 2020 to 2022"
    assert strip_period_phrases("growth in sales over the two fiscal years from 2021") == \
        "growth in sales from 2021"
    assert strip_period_phrases(
        "the same six months a year earlier").strip() == "the same six months"


def test_over_that_divides_is_kept():
    for text in ("net income over total assets",
                 "this year's revenue over the prior year's revenue",
                 "operating cash flow over the year-end current liabilities",
                 "net income over the average of the opening and closing equity"):
        assert period_spans(text) == [], text
        assert strip_period_phrases(text) == text


def test_year_over_year_is_one_word():
    assert strip_period_phrases("revenue growth year over year") == "revenue growth year-over-year"
    assert strip_period_phrases("year-over-year change in revenue") == \
        "year-over-year change in revenue"
