import pytest

from fingap.generation.hyde import (
    N_SUBQUERIES,
    MultiHyDE,
    hyde_for_questions,
    hyde_passage,
    multi_hyde,
    multi_hyde_for_questions,
    parse_subqueries,
)
from fingap.generation.llm_base import LLM

Q = "What was ACME's FY2022 capital expenditure?"


class FakeLLM(LLM):
    """Returns a canned sub-query list for the sub-query prompt, else a passage naming its
    input; records (user message, max_new_tokens, temperature, seed) per call."""

    backend = "fake"
    model_id = "fake"

    def __init__(self, subquery_output: str):
        self.subquery_output = subquery_output
        self.calls: list[tuple[str, int, float, int]] = []

    def generate(self, messages, max_new_tokens, temperature, seed):
        user = messages[-1]["content"]
        self.calls.append((user, max_new_tokens, temperature, seed))
        if "search queries" in user:
            return self.subquery_output
        question = user.split("Question: ", 1)[1].split("\n\nPassage:", 1)[0]
        return f" passage for [{question}] seed {seed} "


def test_hyde_passage_is_seeded_sampling_with_200_tokens():
    llm = FakeLLM("")
    assert hyde_passage(llm, Q, seed=3) == f"passage for [{Q}] seed 3"
    user, max_new_tokens, temperature, seed = llm.calls[0]
    assert (max_new_tokens, temperature, seed) == (200, 0.7, 3)
    assert user.endswith(f"Question: {Q}\n\nPassage:")


def test_hyde_for_questions():
    llm = FakeLLM("")
    assert hyde_for_questions(llm, {"a": "x?", "b": "y?"}) == {
        "a": "passage for [x?] seed 0", "b": "passage for [y?] seed 0"}


def test_multi_hyde_four_subqueries_then_one_passage_each():
    llm = FakeLLM("Here are the queries:\n1. ACME purchases of PP&E 2022\n2. ACME cash flow "
                  "statement 2022\n3. ACME capex guidance\n4. ACME depreciation 2022\n5. extra")
    result = multi_hyde(llm, Q, seed=10)
    assert isinstance(result, MultiHyDE)
    assert N_SUBQUERIES == 4
    assert result.subqueries == ["ACME purchases of PP&E 2022", "ACME cash flow statement 2022",
                                 "ACME capex guidance", "ACME depreciation 2022"]
    assert result.passages == [f"passage for [{sq}] seed {10 + i}"
                               for i, sq in enumerate(result.subqueries)]
    assert len(llm.calls) == 5  # one sub-query request + four passages
    assert "4 search queries" in llm.calls[0][0] and llm.calls[0][3] == 10
    assert [c[3] for c in llm.calls[1:]] == [10, 11, 12, 13]


def test_multi_hyde_pads_with_the_question():
    llm = FakeLLM("1. ACME purchases of PP&E 2022\n2. " + Q)  # the 2nd merely repeats Q
    result = multi_hyde(llm, Q)
    assert result.subqueries == ["ACME purchases of PP&E 2022", Q, Q, Q]
    # Padded duplicates still get distinct seeds, hence distinct passages.
    assert len(set(result.passages)) == 4
    assert multi_hyde_for_questions(FakeLLM(""), {"q": Q}, n=2)["q"].subqueries == [Q, Q]


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1. a b\n2) c d\n3: e f\n4 - g h", ["a b", "c d", "e f", "g h"]),
        ("- a b\n* c d\n\u2022 e f\n# g h", ["a b", "c d", "e f", "g h"]),
        ("Sure! Here are 4 sub-queries:\n\n1. **Query 1:** a b\n**2.** \"c d\"\n"
         "Sub-query 3: e f\nQuestion 4 - g h", ["a b", "c d", "e f", "g h"]),
        ("1. a b 2. c d 3) e f 4. g h", ["a b", "c d", "e f", "g h"]),  # one line
        ("1. 10-K capex note\n2. -5% margin change\n3. net income of $1.5 billion",
         ["10-K capex note", "-5% margin change", "net income of $1.5 billion", "Q?"]),
        ("1. a b\n2. A B!\n3. q\n\n", ["a b", "Q?", "Q?", "Q?"]),  # repeats and the question
        ("", ["Q?", "Q?", "Q?", "Q?"]),
    ],
)
def test_parse_subqueries(output, expected):
    assert parse_subqueries(output, 4, "Q?") == expected


def test_batched_helpers_send_one_call_per_round_and_fall_back_on_failure():
    from fingap.generation.llm_base import Result

    class Recording(FakeLLM):
        def __init__(self, out):
            super().__init__(out)
            self.rounds = []

        def generate_many(self, requests):
            self.rounds.append(len(requests))
            res = super().generate_many(requests)
            # the passage for question "b?" (or its sub-queries) fails
            return [Result("", "LLMError: down") if "b?" in r.messages[-1]["content"] else x
                    for r, x in zip(requests, res, strict=True)]

    llm = Recording("1. one\n2. two")
    errors = {}
    assert hyde_for_questions(llm, {"a": "a?", "b": "b?"}, seed=2, errors=errors) == {
        "a": "passage for [a?] seed 2", "b": "b?"}  # failure -> the question itself
    assert errors == {"b": "LLMError: down"} and llm.rounds == [2]

    llm = Recording("1. one\n2. two")
    errors = {}
    out = multi_hyde_for_questions(llm, {"a": "a?", "b": "b?"}, n=2, seed=5, errors=errors)
    assert llm.rounds == [2, 4]  # all sub-query lists, then all passages
    assert out["a"].subqueries == ["one", "two"]
    assert out["a"].passages == ["passage for [one] seed 5", "passage for [two] seed 6"]
    assert out["b"].subqueries == ["b?", "b?"] and out["b"].passages == ["b?", "b?"]
    assert set(errors) == {"b"}
