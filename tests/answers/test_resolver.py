import pytest

from fingap.answers.agent import Agent
from fingap.answers.resolver import (
    ResolverParams,
    content_stems,
    lexical_overlap,
    resolve_rows,
    stem,
)

from ..conftest import DOC


def _fact(label: str, concept: str | None = None, page: int = 1) -> dict:
    return {"label_norm": label, "concept": concept, "page": page}


def _reader(table: dict):
    """A glossary reader from a table: phrase -> (concept, score); the side is not read."""
    return lambda phrase, side=None: table.get(phrase)


def test_stems_drop_function_words_numbers_and_the_skip_list():
    assert stem("liabilities") == stem("liability") == "liabilit"
    assert stem("expenses") == stem("expense")
    assert stem("tax") == "tax"                      # too short to cut
    assert stem("taxes") == "tax"                    # ... and its plural alike
    assert content_stems("total cost of the services sold in 2022") == {"cost", "servic", "sold"}
    assert content_stems("acme cost of services", {"acme"}) == {"cost", "servic"}


def test_lexical_overlap_is_the_dice_coefficient():
    a, b = frozenset({"cost", "servic"}), frozenset({"cost", "servic", "sold"})
    assert lexical_overlap(a, b) == pytest.approx(0.8)
    assert lexical_overlap(a, frozenset()) == 0.0


def test_the_vocabulary_prior_keeps_every_row_of_the_concept():
    facts = [_fact("net sales", "revenue", 1), _fact("revenue by segment", None, 2),
             _fact("net sales", "revenue", 3)]
    out = resolve_rows("revenue", "revenue", facts)
    assert [f["page"] for f in out] == [1, 3] and all(f["resolver_prior"] for f in out)


def test_without_a_concept_row_the_best_printed_label_wins_and_other_concepts_are_ruled_out():
    facts = [_fact("total current assets", "current_assets"),
             _fact("cost of services", None, 2), _fact("cost of products", None, 3)]
    # "assets" shares words with "total current assets", which the vocabulary reads as
    # another line item: ruled out under the prior, chosen by words without it
    assert resolve_rows("total assets", "total_assets", facts) == []
    off = resolve_rows("total assets", "total_assets", facts, ResolverParams(False))
    assert [f["label_norm"] for f in off] == ["total current assets"]
    out = resolve_rows("cost of services", None, facts)
    assert [f["page"] for f in out] == [2] and out[0]["resolver_overlap"] == 1.0


def test_a_label_sharing_too_few_words_is_no_match():
    facts = [_fact("short term investments"), _fact("accounts payable")]
    assert resolve_rows("the carrying value of merchandise stock", None, facts) == []
    assert resolve_rows("payable", None, facts, ResolverParams(min_overlap=0.7)) == []
    assert len(resolve_rows("payable", None, facts, ResolverParams(min_overlap=0.6))) == 1


def test_the_prior_off_resolves_a_concept_by_the_questions_words(statement_store):
    store, texts = statement_store
    question = "What was ACME's FY2022 cost of sales in USD millions?"
    on = Agent(store, texts).answer("q", question, [(DOC, 2)])
    off = Agent(store, texts, resolver=ResolverParams(vocabulary_prior=False)).answer(
        "q", question, [(DOC, 2)])
    assert on.value == off.value == 16682 and off.verified
    assert off.inputs[0]["label"] == "Cost of sales"


def test_a_line_item_outside_the_vocabulary_is_read_from_the_printed_label(statement_store):
    store, texts = statement_store
    rec = Agent(store, texts).answer(
        "q", "How much did ACME receive in proceeds from sale of businesses in FY2021, "
        "in USD millions?", [(DOC, 1)])
    assert rec.path == "structured" and rec.value == 1065
    assert rec.inputs[0]["label"] == "Proceeds from sale of businesses"


def test_a_matcher_may_also_resolve_a_phrase_by_meaning():
    facts = [_fact("merchandise inventories", "inventory"), _fact("accounts payable")]
    cosines = {"merchandise inventories": 0.8, "accounts payable": 0.2}

    def similarity(phrase, labels):
        assert phrase == "carrying value of merchandise stock"
        return [cosines[label] for label in labels]

    assert resolve_rows("carrying value of merchandise stock", None, facts) == []
    out = resolve_rows("carrying value of merchandise stock", None, facts,
                       ResolverParams(min_similarity=0.6), similarity=similarity)
    assert [f["label_norm"] for f in out] == ["merchandise inventories"]
    assert out[0]["resolver_score"] == 0.8
    # below min_similarity the meaning does not count
    assert resolve_rows("carrying value of merchandise stock", None, facts,
                        ResolverParams(min_similarity=0.9), similarity=similarity) == []


def test_the_resolver_may_not_use_the_gates_matcher():
    from fingap.core.params import ParamError
    from fingap.steps.answer import resolver_params

    assert resolver_params({"resolver_matcher": "other-model"}).matcher == "other-model"
    with pytest.raises(ParamError, match="must differ from answer.gate_matcher"):
        resolver_params({"resolver_matcher": "minilm"})
    with pytest.raises(ParamError, match="vocabulary_prior"):
        resolver_params({"vocabulary_prior": "yes"})


def test_a_concept_printed_in_unknown_words_is_read_from_its_labels_on_its_own_statement():
    def fact(label, statement, page=1):
        return {"label_norm": label, "concept": None, "page": page, "statement": statement}

    facts = [fact("purchases of land buildings and equipment", "cash_flow"),
             fact("dividends payable", "balance_sheet", 2),
             fact("proceeds from sale of land", "cash_flow")]
    reads = {"purchases land buildings equipment": ("capex", 0.8),
             "dividends payable": ("capex", 0.9), "proceeds sale land": ("revenue", 0.9)}
    out = resolve_rows("capital expenditures", "capex", facts, label_gloss=_reader(reads),
                       home="cash_flow")
    # the balance-sheet row reads as capex too, but sits on another statement
    assert [f["label_norm"] for f in out] == ["purchases of land buildings and equipment"]
    assert out[0]["resolver_gloss"] == "capex" and out[0]["resolver_score"] == 0.8
    # without the reader, or over a whole document's labels, nothing is read
    assert resolve_rows("capital expenditures", "capex", facts, home="cash_flow") == []
    many = facts + [fact(f"line {i}", "cash_flow") for i in range(400)]
    assert resolve_rows("capital expenditures", "capex", many, label_gloss=_reader(reads),
                        home="cash_flow") == []


def test_a_negated_label_is_read_as_nothing():
    from fingap.answers.resolver import gloss_phrase

    assert gloss_phrase("Dividends declared and not paid") == ""
    assert gloss_phrase("Dividends declared") == "dividends declared"


def test_a_sure_reading_of_the_phrase_beats_a_label_sharing_some_of_its_words():
    # "short-term assets" shares two words with "Short-term debt", but the glossary reads it,
    # as surely as the gate's label check, as total current assets: that row is read
    facts = [_fact("short term debt"), _fact("total current assets", "total_current_assets", 2)]
    reads = {"short term assets": ("total_current_assets", 0.8)}
    out = resolve_rows("short-term assets", None, facts, label_gloss=_reader(reads))
    assert [f["page"] for f in out] == [2] and out[0]["resolver_gloss"] == "total_current_assets"
    # a label that holds every word of the phrase is what the phrase names
    assert [f["page"] for f in resolve_rows("short-term debt", None, facts,
                                            label_gloss=_reader({"short term debt": (
                                                "total_current_assets", 0.8)}))] == [1]
    # without a sure reading, the overlap decides as before
    assert [f["page"] for f in resolve_rows("short-term assets", None, facts)] == [1]


def test_a_row_on_the_other_side_of_income_taxes_is_never_the_phrases_line_item():
    from fingap.answers.resolver import taxes_side_conflict

    assert taxes_side_conflict("profit after all costs and taxes",
                               "Income before income taxes") == ("after", "before")
    assert taxes_side_conflict("pre-tax income", "Income before income taxes") is None
    assert taxes_side_conflict("net income", "Income before income taxes") is None
    facts = [_fact("income before income taxes"), _fact("net income after taxes", None, 2)]
    out = resolve_rows("profit after taxes", None, facts,
                       label_gloss=_reader({}), params=ResolverParams(min_overlap=0.3))
    assert [f["page"] for f in out] == [2]


def test_a_row_the_phrase_takes_away_is_not_what_is_left():
    from fingap.answers.resolver import deducted_row

    assert deducted_row("keep after the direct cost of making the products it sold",
                        "Cost of sales (a)")
    assert not deducted_row("keep after the direct cost of making the products it sold",
                            "Gross profit")
    # the line item named before "after" is what is asked ("profit after tax" is net income)
    assert not deducted_row("profit after taxes", "Net income")
    assert not deducted_row("property, plant and equipment after accumulated depreciation",
                            "Property, plant and equipment, net")
    assert deducted_row("property, plant and equipment after accumulated depreciation",
                        "Accumulated depreciation")
    assert not deducted_row("cost of sales", "Cost of sales")


def test_a_row_printing_one_part_of_a_sum_is_not_the_sum():
    from fingap.answers.resolver import one_part_of_a_sum

    phrase = "the combined cost of the products and services it sold"
    assert one_part_of_a_sum(phrase, "Cost of products")
    assert one_part_of_a_sum(phrase, "Cost of services")
    assert not one_part_of_a_sum(phrase, "Total cost of products and services")
    # without a word that adds up, "and" may sit inside one line item's name
    assert not one_part_of_a_sum("the cost of products and services sold", "Cost of products")
    assert not one_part_of_a_sum("cash and equivalents held together", "Cash and equivalents")
