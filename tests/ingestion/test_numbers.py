from fingap.ingestion.numbers import decimals_of, detect_scale, parse_value, printed_forms


def test_parse_value_signs_separators_and_dashes():
    assert parse_value("1,577").value == 1577
    assert parse_value("(1,577)").value == -1577
    assert parse_value("$(12.5)").value == -12.5
    assert parse_value("-3.7").value == -3.7
    assert parse_value("(370").value == -370  # PyMuPDF split off the closing parenthesis
    assert parse_value("\u2014").value == 0 and parse_value("-").value == 0
    pct = parse_value("21.5%")
    assert pct.value == 21.5 and pct.percent
    assert parse_value("(3.2)%").value == -3.2
    for not_a_number in ("Revenue", "10-K", "2019-2020", "", "$"):
        assert parse_value(not_a_number) is None


def test_detect_scale_first_declaration_wins():
    assert detect_scale("Consolidated Balance Sheet\n(Dollars in millions, except per share)") \
        == "millions"
    assert detect_scale("(Millions)\n2018 2017") == "millions"
    assert detect_scale("($ in thousands)") == "thousands"
    assert detect_scale("in billions ... later in millions") == "billions"
    assert detect_scale("Net sales rose 5% this year") is None


def test_decimals_and_printed_forms():
    assert decimals_of("24.26") == 2 and decimals_of("$1,577") == 0 and decimals_of("1.9%") == 1
    assert {"1577", "1,577"} <= printed_forms(1577.0)
    assert "8.74" in printed_forms(8.74)


def test_singular_scale_words():
    assert detect_scale("Twelve Months Ended June 30, 2023\n($ million)") == "millions"
    assert detect_scale("(US$ thousand)") == "thousands"
