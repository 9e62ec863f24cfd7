import numpy as np
import pytest

from fingap.answers.glossary import Glossary, GlossParams, load_meanings, with_head_clause
from fingap.answers.labels import Vocabulary, balance_side, horizon
from fingap.answers.resolver import gloss_phrase, resolve_rows


class FakeMatcher:
    """Cosines from a table: (phrase, text) -> cosine, 0 otherwise."""

    def __init__(self, table: dict[tuple[str, str], float]):
        self.table = table

    def matrix(self, phrases, texts):
        return np.array([[self.table.get((p, t), 0.0) for t in texts] for p in phrases])


def _vocab():
    return Vocabulary.load()


def test_every_concept_of_the_vocabulary_has_meanings_and_only_those():
    meanings = load_meanings()
    assert set(meanings) == set(_vocab().concepts)
    assert all(meanings[c] for c in meanings)


def test_a_glossary_naming_an_unknown_concept_is_refused(tmp_path):
    bad = tmp_path / "g.yaml"
    bad.write_text("widgets: [things a company makes]\n")
    with pytest.raises(ValueError, match="widgets"):
        Glossary(_vocab(), FakeMatcher({}), load_meanings(bad))
    scalar = tmp_path / "g2.yaml"
    scalar.write_text("revenue: sales\n")
    with pytest.raises(ValueError, match="list of non-empty strings"):
        load_meanings(scalar)


def test_a_phrase_reads_as_the_concept_whose_meaning_fits_clearly_best():
    meanings = {"total_assets": ("everything the company owns",),
                "total_liabilities": ("everything the company owes",)}
    table = {("everything it owned", "everything the company owns"): 0.80,
             ("everything it owned", "everything the company owes"): 0.60,
             ("what it has", "everything the company owns"): 0.72,
             ("what it has", "everything the company owes"): 0.70}
    g = Glossary(_vocab(), FakeMatcher(table), meanings, GlossParams(0.7, 0.05))
    assert g.read("everything it owned") == ("total_assets", 0.8)
    assert g.concept_score("everything it owned", "total_liabilities") == pytest.approx(0.6)
    assert g.read("what it has") is None           # two concepts too close to tell apart
    assert g.read("something else") is None       # nothing reaches the threshold
    assert g.read("  ") is None
    # the vocabulary's own terms count as meanings too
    term = _vocab().concepts["total_assets"].terms[0]
    g2 = Glossary(_vocab(), FakeMatcher({("its asset base", term): 0.9}), {})
    assert g2.read("its asset base") == ("total_assets", 0.9)


def test_a_meaning_scores_by_its_head_clause_too():
    meanings = {"total_assets": ("everything the company owns or controls, its current and "
                                 "noncurrent assets together",),
                "inventory": ("goods held for sale, in production, and raw materials",),
                "ppe_net": ("the company's land, buildings and equipment",)}
    assert with_head_clause(meanings["total_assets"][0]) == (
        meanings["total_assets"][0], "everything the company owns or controls")
    assert with_head_clause(meanings["inventory"][0])[1] == "goods held for sale"
    assert with_head_clause("the company's land, buildings") == (  # too short to be a meaning
        "the company's land, buildings",)
    assert with_head_clause("sales to customers") == ("sales to customers",)
    table = {("everything it owned", "everything the company owns or controls"): 0.78,
             ("everything it owned", meanings["total_assets"][0]): 0.65}
    g = Glossary(_vocab(), FakeMatcher(table), meanings, GlossParams(0.7, 0.05))
    assert g.read("everything it owned") == ("total_assets", 0.78)


def test_the_resolver_reads_a_described_line_item_only_when_no_label_matches_its_words():
    facts = [{"label_norm": "total assets", "concept": "total_assets", "page": 3},
             {"label_norm": "total liabilities", "concept": "total_liabilities", "page": 3},
             {"label_norm": "goodwill", "concept": None, "page": 3}]
    seen, sides = [], []

    def read(phrase, side=None):
        seen.append(phrase)
        sides.append(side)
        return ("total_assets", 0.81)

    out = resolve_rows("everything acme owned", None, facts, skip_words={"acme"}, gloss=read)
    assert seen == ["everything owned"]
    assert sides == ["asset"]  # the side of the whole phrase travels with its describing words
    assert [f["label_norm"] for f in out] == ["total assets"]
    assert out[0]["resolver_gloss"] == "total_assets" and out[0]["resolver_score"] == 0.81
    # a printed label sharing the phrase's words comes first; the glossary is not asked
    seen.clear()
    assert [f["label_norm"] for f in resolve_rows("goodwill", None, facts, gloss=read)] == \
        ["goodwill"]
    assert seen == []
    # nothing read: not found
    assert resolve_rows("everything owned", None, facts, gloss=lambda p, side=None: None) == []
    # a vocabulary concept operand is never re-read by the glossary
    assert resolve_rows("inventory", "inventory", facts, gloss=read) == []


def test_the_resolver_reads_the_words_as_written_when_the_bare_phrase_says_too_little():
    facts = [{"label_norm": "total assets", "concept": "total_assets", "page": 3},
             {"label_norm": "total liabilities", "concept": "total_liabilities", "page": 3}]
    seen = []

    def read(phrase, side=None):
        seen.append((phrase, side))
        return ("total_assets", 0.7) if phrase == "everything the company owned" else None

    out = resolve_rows("everything company owned", None, facts, gloss=read,
                       described="everything the ACME company owned", skip_words={"acme"})
    assert [f["label_norm"] for f in out] == ["total assets"]
    assert seen == [("everything owned", "asset"), ("everything the company owned", "asset")]
    # a phrase that relates two line items is read as nothing, as written or not
    seen.clear()
    assert resolve_rows("owned exceeded owed", None, facts, gloss=read,
                        described="what it owned exceeded what it owed") == []
    assert [p for p, _ in seen] == [""]   # gloss_phrase's "" (relating); never the words


def test_gloss_phrase_keeps_only_describing_words():
    # words of how a figure is taken whole or combined describe no line item
    assert gloss_phrase("the combined value of everything ACME owned in 2022", {"acme"}) == \
        "everything owned"
    assert gloss_phrase("simple everything company owned") == "everything owned"
    assert gloss_phrase("what everything it owned added up to") == "everything owned"
    assert gloss_phrase("cash due within a year") == "cash due within year"
    # ... nor where or how it is shown; "consolidated" says whose share, and stays
    assert gloss_phrase("the size of its balance sheet, measured by everything it owned") == \
        "everything owned"
    assert gloss_phrase("the balance-sheet asset totals") == "asset totals"
    assert gloss_phrase("the consolidated profit") == "consolidated profit"


def test_the_agent_answers_a_described_line_item_and_the_gate_judges_its_meaning(
        statement_store):
    from fingap.answers.agent import Agent
    from fingap.answers.meaning import GateParams

    from ..conftest import DOC

    store, texts = statement_store
    question = ("How much money did ACME take in from selling its goods to customers in "
                "FY2022, in USD millions?")
    rec = Agent(store, texts).answer("q", question, [(DOC, 2)])
    assert rec.path == "structured" and rec.value == 32765 and rec.verified, rec.reason
    assert rec.inputs[0]["label"] == "Net sales"
    assert rec.gate["labels"][rec.inputs[0]["name"]] >= 0.7
    # without the glossary the phrase names no printed label: withheld, not guessed
    off = Agent(store, texts, gate_params=GateParams(gloss=None)).answer("q", question,
                                                                         [(DOC, 2)])
    assert off.value is None and off.abstained


def test_the_glossary_is_off_with_the_vocabulary_prior_and_its_params_are_checked():
    from fingap.answers.resolver import ResolverParams
    from fingap.core.params import ParamError
    from fingap.steps.answer import gate_params

    facts = [{"label_norm": "total assets", "concept": "total_assets", "page": 3}]
    assert resolve_rows("everything owned", None, facts, ResolverParams(vocabulary_prior=False),
                        gloss=lambda p: ("total_assets", 0.9)) == []
    assert gate_params({}).gloss == GlossParams()
    assert gate_params({"gloss": False}).gloss is None
    assert gate_params({"gloss_threshold": 0.8, "gloss_margin": 0.1}).gloss == \
        GlossParams(0.8, 0.1)
    with pytest.raises(ParamError, match="answer.gloss"):
        gate_params({"gloss": "yes"})
    with pytest.raises(ParamError, match="gloss_threshold"):
        gate_params({"gloss_threshold": 1.5})
    assert gate_params({"gloss_fixed_threshold": 0.5}).gloss.fixed_threshold == 0.5
    with pytest.raises(ParamError, match="gloss_fixed_threshold"):
        gate_params({"gloss_fixed_threshold": -0.1})


def test_maturity_words_are_read_from_phrases_and_labels():
    from fingap.answers.meaning import horizon_reason

    assert horizon("obligations due within the next twelve months") == "short"
    assert horizon("liabilities due within a year") == "short"
    assert horizon("Total current liabilities") == horizon("Current portion of long-term debt")
    assert horizon("Current portion of long-term debt") == "short"
    assert horizon("Long-term debt, net of current portion") == "long"
    assert horizon("debt due beyond one year") == "long"
    assert horizon("Total noncurrent liabilities") == "long"
    assert horizon("Total liabilities") is None
    assert "gives no maturity" in horizon_reason("liabilities due within a year",
                                                 "Total liabilities")
    assert "due within a year" in horizon_reason("debt due after one year",
                                                 "Short-term borrowings")
    assert horizon_reason("liabilities due within a year", "Total current liabilities") is None
    assert horizon_reason("everything it owed", "Total liabilities") is None


def test_a_phrase_with_a_maturity_reads_only_as_a_concept_with_that_maturity():
    meanings = {"total_liabilities": ("everything the company owes",),
                "total_current_liabilities": ("obligations due within one year",)}
    table = {("liabilities due within year", "everything the company owes"): 0.75,
             ("liabilities due within year", "obligations due within one year"): 0.65}
    g = Glossary(_vocab(), FakeMatcher(table), meanings, GlossParams(0.6, 0.05))
    assert g.horizons["total_current_liabilities"] == "short"
    assert g.horizons["total_liabilities"] is None
    assert g.read("liabilities due within year") == ("total_current_liabilities", 0.65)


def test_a_phrase_that_says_who_owes_reads_only_as_a_balance_of_that_side():
    # the embedder scores "what it owes" closer to receivables than to payables
    meanings = {"accounts_receivable": ("amounts customers owe the company",),
                "accounts_payable": ("amounts the company owes its suppliers",)}
    table = {("owe vendors goods bought", "amounts customers owe the company"): 0.82,
             ("owe vendors goods bought", "amounts the company owes its suppliers"): 0.78,
             ("owed", "amounts customers owe the company"): 0.70,
             ("owed", "amounts the company owes its suppliers"): 0.72}
    g = Glossary(_vocab(), FakeMatcher(table), meanings, GlossParams(0.6, 0.05))
    assert g.sides["accounts_payable"] == "liability" and g.sides["revenue"] is None
    assert g.read("owe vendors goods bought") == ("accounts_payable", 0.78)
    # a phrase stripped of the words that said it ("owed to the company" -> "owed") takes
    # the side of the operand's whole phrase
    assert g.read("owed", side=balance_side("amounts owed to the company")) == \
        ("accounts_receivable", 0.7)
    assert g.read("owed") == ("accounts_payable", 0.72)


def test_a_phrase_that_fixes_side_and_maturity_reads_at_the_looser_bar():
    meanings = {"total_liabilities": ("everything the company owes",),
                "total_current_liabilities": ("obligations due within one year",)}
    table = {("everything it owed within the next twelve months",
              "obligations due within one year"): 0.57,
             ("everything due within the next twelve months",
              "obligations due within one year"): 0.57}
    g = Glossary(_vocab(), FakeMatcher(table), meanings, GlossParams(0.6, 0.05, 0.55))
    assert g.read("everything it owed within the next twelve months") == \
        ("total_current_liabilities", 0.57)
    # a maturity alone, no side: the usual bar
    assert g.read("everything due within the next twelve months") is None
    assert horizon("obligations falling due beyond the next twelve months") == "long"


def test_a_maturity_is_part_of_a_line_items_name_not_a_period():
    from fingap.answers.periods import strip_period_phrases
    from fingap.answers.question import parse_question

    assert "within a year" in strip_period_phrases("liabilities due within a year in 2022")
    assert "during" not in strip_period_phrases("sales during the fiscal year 2022")
    pq = parse_question("What was ACME's aggregate of liabilities due within a year at the end "
                        "of FY2022, in USD millions?")
    assert list(pq.labels.values()) == ["aggregate liabilities due within year"]
    # "short-term assets" is no "assets" (total assets): read from the labels and glossary
    pq = parse_question("What were ACME's short-term assets in aggregate at the end of FY2022, "
                        "in USD millions?")
    assert "total_assets" not in pq.expression and pq.labels
    assert parse_question("What were ACME's current assets in FY2022?").expression == \
        "total_current_assets__fy2022"


def test_a_ratio_asked_as_a_decimal_is_not_given_in_percent():
    from fingap.answers.question import parse_question

    pq = parse_question("What was ACME's gross margin in FY2022? Answer as a decimal (not a "
                        "percentage), rounded to two decimal places.")
    assert pq.unit == "ratio" and pq.expression.endswith("/ 100")
    pq = parse_question("What was ACME's gross margin in FY2022? Round to two decimal places.")
    assert pq.unit == "percent"


def test_a_phrase_relating_two_line_items_is_read_as_none():
    assert gloss_phrase("short term assets exceed short term liabilities changed") == ""
    assert gloss_phrase("long term debt including its current slice") == ""
    assert gloss_phrase("everything it owned") == "everything owned"


def test_a_requested_scale_in_words_is_read():
    from fingap.answers.question import parse_question

    pq = parse_question("How much cash did ACME's operations generate in FY2022? Give millions "
                        "of US dollars.")
    assert pq.out_scale == "millions"


def test_money_spent_is_never_read_from_a_balance_sheet(statement_store):
    from fingap.answers.agent import Agent

    from ..conftest import DOC

    store, texts = statement_store
    # "plant and equipment" names net PP&E, a balance; "spend buying" asks for the cash flow of
    # buying it (``spent_as``: capex), which the follow-up finds on the cash-flow page
    rec = Agent(store, texts).answer(
        "q", "How much cash did ACME spend buying plant and equipment in FY2022, in USD "
        "millions?", [(DOC, 2)])
    assert rec.value == 1577.0 and rec.formula == "capex__fy2022" and rec.verified, rec
    assert all(inp["page"] == 1 for inp in rec.inputs), rec.inputs


def test_a_described_balance_is_read_at_the_quarter_end_a_quarterly_question_names(
        statement_store):
    from fingap.answers.agent import Agent

    from ..conftest import DOC

    store, texts = statement_store
    # the question speaks of a quarter (duration 3M); the line item it describes is read by
    # the glossary as a balance, so it is looked up on the balance sheet, whose columns carry
    # no duration, not among the quarter's flows
    rec = Agent(store, texts).answer(
        "q", "How much did ACME owe, in total, on obligations due within one year at the end "
        "of the quarter ended December 31, 2022, in USD millions?", [(DOC, 2)])
    plan = next(s for s in rec.steps if s["step"] == "plan")
    assert plan["duration"] == "3M"
    assert rec.value == 7000.0 and rec.verified, rec.reason
    assert rec.inputs[0]["label"] == "Total current liabilities"


def test_a_phrase_after_taxes_reads_no_measure_before_them_nor_the_taxes():
    """Embeddings hardly tell "after" from "before": 'profit after tax' scored the pretax
    line best. A phrase stating its side of income taxes keeps the measures on that side,
    and never the line it is left after ('earn after taxes' is no tax expense)."""
    v = _vocab()
    pretax, net, tax = (v.concepts[c].terms[0] for c in ("pretax_income", "net_income",
                                                       "income_tax"))
    table = {("profit after tax", pretax): 0.85, ("profit after tax", net): 0.70,
             ("earn after taxes", tax): 0.74, ("earn after taxes", net): 0.72,
             ("pre tax profit", pretax): 0.82, ("pre tax profit", net): 0.56}
    g = Glossary(v, FakeMatcher(table), {}, GlossParams(0.6, 0.05))
    assert g.read("profit after tax") == ("net_income", 0.7)
    assert g.read("earn after taxes") == ("net_income", 0.72)
    assert g.read("pre tax profit") == ("pretax_income", 0.82)
