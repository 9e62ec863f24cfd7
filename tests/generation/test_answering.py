from fingap.generation.answering import (
    SYSTEM_PROMPT,
    build_messages,
    count_errors,
    generate_answers,
)
from fingap.generation.llm_base import LLM


class ScriptedLLM(LLM):
    """Answers from a function of the user message; records every call."""

    backend = "fake"
    model_id = "scripted"

    def __init__(self, reply):
        self.reply = reply
        self.calls: list[tuple] = []

    def generate(self, messages, max_new_tokens, temperature, seed):
        self.calls.append((messages, max_new_tokens, temperature, seed))
        return self.reply(messages[-1]["content"])


def test_prompt_matches_the_paper():
    assert SYSTEM_PROMPT == (
        "You are a financial analyst assistant. Your task is to provide accurate, concise, and "
        "well-supported answers to questions based on provided financial document segments."
    )
    messages = build_messages("What was capex?", ["chunk one", "chunk two"])
    assert messages == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user",
         "content": "Context:\nchunk one\n\nchunk two\n\nQuestion: What was capex?\n\nAnswer:"},
    ]
    assert build_messages("Q?", [])[1]["content"] == "Context:\n\n\nQuestion: Q?\n\nAnswer:"


def test_generate_answers_records_failures_and_continues():
    def reply(user: str) -> str:
        if "boom" in user:
            raise RuntimeError("server said no")
        return "$1,577 million"

    llm = ScriptedLLM(reply)
    questions = {"q1": "capex?", "q2": "boom?", "q3": "no context?", "q4": "eps?"}
    contexts = {"q1": ["Capex was $1,577 million."], "q2": ["x"], "q4": []}
    results = generate_answers(llm, questions, contexts, max_new_tokens=64)

    assert list(results) == ["q1", "q2", "q3", "q4"]
    assert results["q1"] == {"answer": "$1,577 million", "error": None}
    assert results["q2"] == {"answer": "", "error": "RuntimeError: server said no"}
    assert results["q3"]["answer"] == "" and results["q3"]["error"].startswith("KeyError")
    assert results["q4"] == {"answer": "$1,577 million", "error": None}
    assert count_errors(results) == 2
    # q3 never reached the LLM; the others were sent greedy, with the requested budget.
    assert len(llm.calls) == 3
    assert all(c[1:] == (64, 0.0, 0) for c in llm.calls)
    assert "Capex was $1,577 million." in llm.calls[0][0][1]["content"]


def test_generate_answers_passes_decoding_params():
    llm = ScriptedLLM(lambda user: "ok")
    out = generate_answers(llm, {"q": "?"}, {"q": ["c"]}, max_new_tokens=8, temperature=0.5,
                           seed=7)
    assert out == {"q": {"answer": "ok", "error": None}}
    assert llm.calls[0][1:] == (8, 0.5, 7)
