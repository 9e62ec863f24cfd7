from fingap.core.text_tokens import canonical_number, tokenize


def test_keeps_financial_units_as_tokens():
    toks = tokenize("CAPEX was $1,577.00 in FY2018, up 12.5% vs Q3; PP&E and D&A.")
    for expected in ["$1,577.00", "fy2018", "12.5%", "q3", "pp&e", "d&a", "capex"]:
        assert expected in toks


def test_numbers_also_yield_canonical_form():
    assert tokenize("$1,577.00") == ["$1,577.00", "1577"]
    assert tokenize("1,577") == ["1,577", "1577"]
    assert tokenize("2018") == ["2018"]  # already canonical: no duplicate
    assert "1577" in tokenize("$1577.00")


def test_digit_led_names_stay_whole():
    assert tokenize("3M Company files a 10K") == ["3m", "company", "files", "10k"]


def test_canonical_number():
    assert canonical_number("$1,577.00") == "1577"
    assert canonical_number("12.50%") == "12.5"
    assert canonical_number("fy2018") is None
    assert canonical_number("3m") is None


def test_lowercases_and_drops_stopwords():
    assert tokenize("The Net Income of the Company") == ["net", "income", "company"]


def test_trailing_punctuation_is_not_part_of_number():
    assert tokenize("sales of 1,234, and 5.") == ["sales", "1,234", "1234", "5"]
