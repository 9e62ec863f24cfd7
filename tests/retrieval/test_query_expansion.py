from fingap.retrieval.query_expansion import expand, expansions, load_rules


def test_acronyms_and_periods():
    assert expansions("FY18 CAPEX") == [
        "fiscal year 2018", "capital expenditure purchases of property plant and equipment"]
    assert expansions("What was Q3 EPS?") == ["third quarter", "earnings per share"]
    assert expansions("net PP&E and D&A in FY2022") == [
        "property plant and equipment", "depreciation and amortization", "fiscal year 2022"]
    assert expansions("EBITDA in 2Q 2023") == [
        "earnings before interest taxes depreciation and amortization", "second quarter 2023"]
    assert expansions("H1 2022 revenue") == ["first half 2022"]


def test_expansion_keeps_the_query_and_is_idempotent_per_term():
    q = "FY18 capex vs FY18 CAPEX"
    out = expand(q)
    assert out.startswith(q)
    assert out.count("fiscal year 2018") == 1


def test_no_false_matches_inside_words():
    assert expansions("The company's earnings grew; an apex year") == []
    assert expansions("EBIT and EBITDA") == [
        "earnings before interest and taxes",
        "earnings before interest taxes depreciation and amortization"]
    assert expand("plain question") == "plain question"


def test_rules_file_loads():
    rules = load_rules()
    assert rules["capex"].startswith("capital expenditure")
    assert all(k == k.lower() for k in rules)
