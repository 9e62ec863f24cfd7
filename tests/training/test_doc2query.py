import pytest

from fingap.core.params import ParamError
from fingap.training.doc2query import (
    Doc2QueryConfig,
    generate_questions,
    parse_question,
    pick_pages,
)
from fingap.training.folds import FoldLeak

LONG = "Revenue grew to $1,200 million. " * 40        # 1,280 characters
PAGES = {"A": {0: "cover", 1: LONG, 2: LONG, 3: LONG, 4: "short"},
         "B": {0: LONG, 1: LONG},
         "T": {0: LONG}}
COMPANY = {"A": "Acme", "B": "Bolt", "T": "Test"}


def test_pick_pages_draws_only_pages_with_enough_text_and_the_same_in_every_call():
    picked = pick_pages("A", PAGES["A"], 2, seed=13, min_chars=800)
    assert len(picked) == 2 and set(picked) <= {1, 2, 3} and picked == sorted(picked)
    assert pick_pages("A", PAGES["A"], 2, seed=13, min_chars=800) == picked
    assert pick_pages("A", PAGES["A"], 10, seed=13, min_chars=800) == [1, 2, 3]
    assert pick_pages("A", PAGES["A"], 10, seed=13, min_chars=0) == [0, 1, 2, 3, 4]
    assert pick_pages("A", PAGES["A"], 0, seed=13, min_chars=800) == []


def test_parse_question_keeps_a_question_and_refuses_anything_else():
    assert parse_question("Question: What was Acme's revenue in FY2022?\nmore") == \
        "What was Acme's revenue in FY2022?"
    assert parse_question('\n "How much cash did Bolt hold in 2021?" ') == \
        "How much cash did Bolt hold in 2021?"
    assert parse_question("Q1: What is Acme's debt?") == "What is Acme's debt?"
    assert parse_question("Revenue was $1.2 billion.") is None      # no question
    assert parse_question("Why?") is None                           # too short to train on
    assert parse_question("") is None


def test_generate_questions_asks_about_training_documents_only():
    asked = []

    def scripted(replies):
        def ask(prompts, max_new_tokens):
            assert max_new_tokens == 48 and len(prompts) == len(replies)
            asked.extend(p[-1]["content"] for p in prompts)
            return replies
        return ask

    cfg = Doc2QueryConfig(per_doc=1)
    ask = scripted(["What was Acme's revenue in FY2022?", "not a question"])
    out, rejected = generate_questions(ask, PAGES, COMPANY, ["A", "B", "C"], ["T"], cfg)
    # C has no pages: one prompt per page drawn from A and B; the reply that is no question
    # is dropped and counted
    assert len(asked) == 2 and "Acme's filing A" in asked[0] and "Bolt's filing B" in asked[1]
    assert LONG[:100] in asked[0] and rejected == 1
    assert [(r["doc"], r["question"]) for r in out] == [
        ("A", "What was Acme's revenue in FY2022?")]
    assert out[0]["id"] == f"doc2query_A_p{out[0]['page']}" and out[0]["page"] in (1, 2, 3)
    # a failed reply (None) is dropped too
    out, rejected = generate_questions(scripted([None]), PAGES, COMPANY, ["B"], [], cfg)
    assert out == [] and rejected == 1


def test_a_test_document_is_refused_before_any_prompt():
    def ask(prompts, max_new_tokens):
        raise AssertionError("no prompt may be sent")

    with pytest.raises(FoldLeak, match="test documents \\['T'\\]"):
        generate_questions(ask, PAGES, COMPANY, ["A", "T"], ["T"], Doc2QueryConfig(per_doc=1))


def test_config_domain_and_unknown_keys():
    assert Doc2QueryConfig.from_params({}).per_doc == 0
    with pytest.raises(ParamError, match="doc2query.per_doc"):
        Doc2QueryConfig.from_params({"per_doc": -1})
    with pytest.raises(ParamError, match="doc2query.max_chars"):
        Doc2QueryConfig.from_params({"max_chars": 10})
    with pytest.raises(ParamError, match="unknown keys"):
        Doc2QueryConfig.from_params({"per_page": 1})
