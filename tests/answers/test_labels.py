from fingap.answers.labels import (
    Vocabulary,
    balance_side,
    money_moved,
    normalise_label,
    normalise_phrase,
    per_share,
)


def test_normalise_label_drops_marks_and_punctuation():
    assert normalise_label("Property, plant and equipment \u2014 net") == \
        "property plant and equipment net"
    assert normalise_label("Property, plant & equipment, net (a)") == \
        "property plant and equipment net"
    assert normalise_label("Purchases of property, plant and equipment (PP&E)") == \
        "purchases of property plant and equipment"
    assert normalise_label("Shareholders' equity*") == "shareholders equity"


def test_question_phrases_keep_parentheses():
    assert normalise_phrase("(average PP&E between FY2018 and FY2019)") == \
        "average pp and e between fy2018 and fy2019"


def test_concepts_of_printed_labels():
    v = Vocabulary.load()
    assert v.concept_of("Purchases of property, plant and equipment (PP&E)")[0] == "capex"
    assert v.concept_of("Capital expenditures")[0] == "capex"
    assert v.concept_of("Total net revenues")[0] == "revenue"
    assert v.concept_of("Cost of sales")[0] == "cogs"
    assert v.concept_of("Net income attributable to ACME")[0] == "net_income"
    assert v.concept_of("Net income attributable to noncontrolling interest") is None
    # the consolidated form of the parent's share, as ASC 810 statements print it
    assert v.concept_of("Consolidated net income attributable to ACME")[0] == "net_income"
    assert v.concept_of("Consolidated net income attributable to noncontrolling interest") is None
    assert v.concept_of("Total current liabilities")[0] == "total_current_liabilities"
    assert v.concept_of("Something else entirely") is None
    # earlier patterns are preferred: "Total revenues" ranks before plain "Sales"
    assert v.concept_of("Total revenues")[1] < v.concept_of("Sales")[1]


def test_a_per_share_row_is_no_amount():
    v = Vocabulary.load()
    # a per-share row reads only as a per-share concept
    assert v.concept_of("Cash dividends declared per common share") is None
    assert v.concept_of("Net income attributable to ACME per common share - diluted") is None
    assert v.concept_of("Diluted earnings per share")[0] == "eps_diluted"
    # the amount a per-share figure is computed from is still that amount
    assert v.concept_of("Net income attributable to ACME used in diluted earnings per common "
                        "share calculation")[0] == "net_income"
    assert v.concept_of("Cash dividends paid")[0] == "dividends_paid"
    assert per_share("diluted EPS") and not per_share("Dividends paid")


def test_question_terms_prefer_the_longest():
    v = Vocabulary.load()
    found = [c for _, _, c in v.find_terms("What was the cost of sales and net sales?")]
    assert found == ["cogs", "revenue"]


def test_label_qualifiers_do_not_change_the_line_item():
    v = Vocabulary.load()
    assert v.concept_of("Additions to property and equipment, net of $35, $46 and $32")[0] == \
        "capex"
    assert v.concept_of("Provision/(benefit) for taxes on income")[0] == "income_tax"
    assert v.concept_of("Purchase of property, plant and equipment")[0] == "capex"


def test_who_owes_whom_gives_a_balance_side():
    # owed to the company, or owned by it: an asset
    for phrase in ("what customers owe it", "amounts owed to the company",
                   "amounts owed by clients", "everything the company owned", "cash it holds"):
        assert balance_side(phrase) == "asset", phrase
    # owed by the company: a liability
    for phrase in ("what it owes its suppliers", "owe vendors for goods bought on credit",
                   "amounts owed to lenders", "obligations falling due within a year"):
        assert balance_side(phrase) == "liability", phrase
    # "its own shareholders" owns nothing; a flow says neither
    assert balance_side("profit belonging to its own shareholders") is None
    assert balance_side("cash spent buying equipment") is None


def test_every_balance_of_the_vocabulary_has_a_side_and_only_balances_do():
    vocab = Vocabulary.load()
    sides = {c.name: c.side for c in vocab.concepts.values()}
    assert sides["accounts_receivable"] == sides["total_assets"] == "asset"
    assert sides["accounts_payable"] == sides["total_current_liabilities"] == "liability"
    assert sides["total_equity"] == "equity"
    assert all((c.side is not None) == (c.statement == "balance_sheet")
               for c in vocab.concepts.values())


def test_money_spent_paid_or_generated_is_a_flow():
    for flow in ("cash its day-to-day business generated", "cash spent buying back shares",
                 "how much cash did it bring in from running its business",
                 "dividends paid to shareholders"):
        assert money_moved(flow), flow
    # a balance, even when the words say how it came about
    for balance in ("cash and cash equivalents", "what it owes for goods bought on credit",
                    "total current assets"):
        assert not money_moved(balance), balance


def test_a_charge_of_the_period_but_not_a_balance_named_for_expenses():
    from fingap.answers.labels import charged

    for text in ("the non-cash charge for wear on fixed assets", "D&A added back",
                 "write-downs of intangibles", "interest expense"):
        assert charged(text), text
    for text in ("accrued expenses", "prepaid expenses and other", "deferred charges",
                 "plant and equipment"):
        assert not charged(text), text


def test_a_term_negated_by_non_is_not_that_line_item():
    vocab = Vocabulary.load()
    assert vocab.find_terms("the non-cash charge for wear") == []
    assert [c for _, _, c in vocab.find_terms("non current assets")] != ["total_current_assets"]
    assert [c for _, _, c in vocab.find_terms("cash and cash equivalents")] == ["cash"]


def test_a_loss_headed_label_names_its_income_line():
    from fingap.answers.labels import income_form

    v = Vocabulary.load()
    assert income_form("Net loss") == "net income"
    assert income_form("Loss from operations") == "income from operations"
    assert income_form("Net loss/(gain)") is None and income_form("Net sales") is None
    assert v.concept_of("Net loss") is None     # read only by the sign the row prints
    assert v.loss_concept_of("Operating loss") == ("operating_income", 0)
    assert v.loss_concept_of("Loss before income tax")[0] == "pretax_income"
    assert v.loss_concept_of("Net loss attributable to noncontrolling interests") is None
    assert v.loss_concept_of("Loss on extinguishment of debt") is None
    # the singular printed form is the pretax line too
    assert v.concept_of("Income (loss) before income tax")[0] == "pretax_income"
