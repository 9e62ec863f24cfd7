import pytest

from fingap.generation.curation import (
    curate,
    curated_ranking,
    page_precision_recall,
    parse_relevant,
    parse_yes,
    round_quality,
)
from fingap.generation.llm_base import LLM

TEXTS = {("D", p): f"text of page {p}" for p in range(20)}


class ScriptedLLM(LLM):
    """Replies from a list, in order; records each prompt's last message."""

    backend, model_id = "fake", "scripted"

    def __init__(self, replies):
        self.replies, self.prompts = list(replies), []

    def generate(self, messages, max_new_tokens, temperature, seed):
        self.prompts.append(messages[-1]["content"])
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


def words(text: str) -> int:
    return len(text.split())


def test_one_round_when_the_kept_pages_suffice():
    llm = ScriptedLLM(["Pages 2 and 3", "Yes, they do."])
    c = curate("capex?", [("D", 0), ("D", 1), ("D", 2)], TEXTS, llm,
               search=lambda q, seen: pytest.fail("no follow-up query when sufficient"),
               count_tokens=words)
    assert c.pages == [("D", 1), ("D", 2)] and len(c.rounds) == 1
    assert c.rounds[0].sufficient and c.rounds[0].query is None
    assert "[Page 3] (D, page 3)" in llm.prompts[0]  # 1-based page numbers in prompts
    # prompts (system + user) and both replies ("Pages 2 and 3": 4 words, "Yes, they do.": 3)
    assert c.tokens == sum(words(p) for p in llm.prompts) + len(SYSTEM_WORDS) * 2 + 4 + 3


SYSTEM_WORDS = ("You are a financial analyst assistant who checks whether pages of SEC filings "
                "hold the evidence for a question.").split()


def test_a_complementary_query_brings_unseen_pages_into_the_next_round():
    searched = []

    def search(query, seen):
        searched.append((query, set(seen)))
        return [("D", 0), ("D", 7), ("D", 8)]  # ("D", 0) was seen: never re-added

    llm = ScriptedLLM(["1", "no", "capital expenditures cash flow statement\nextra line",
                       "1, 2", "yes"])
    c = curate("capex?", [("D", 0), ("D", 1)], TEXTS, llm, search, words, top=3)
    assert searched == [("capital expenditures cash flow statement", {("D", 0), ("D", 1)})]
    assert [r.pages for r in c.rounds] == [[("D", 0)], [("D", 0), ("D", 7)]]
    assert [r.sufficient for r in c.rounds] == [False, True]


def test_at_most_max_rounds_and_no_query_after_the_last():
    llm = ScriptedLLM(["1", "no", "q1", "1", "no", "q2", "1", "no"])
    c = curate("q?", [("D", 0)], TEXTS, llm, lambda q, s: [("D", len(s))], words, max_rounds=3)
    assert len(c.rounds) == 3 and [r.query for r in c.rounds] == ["q1", "q2", None]
    assert not llm.replies  # exactly 8 calls


def test_failed_or_unparsable_replies_keep_the_pages():
    llm = ScriptedLLM([RuntimeError("server down"), "maybe"])
    c = curate("q?", [("D", 0), ("D", 1)], TEXTS, llm, lambda q, s: [], words, max_rounds=1)
    assert c.pages == [("D", 0), ("D", 1)] and not c.rounds[0].sufficient


def test_reply_parsers():
    assert parse_relevant("Pages 1, 3 and 9", 4) == [0, 2]
    assert parse_relevant("None of them", 4) == []
    assert parse_relevant("I cannot tell", 4) is None
    assert parse_yes(" Yes.") is True and parse_yes("No") is False and parse_yes("?") is None


def test_precision_recall_per_round_by_hand():
    from fingap.generation.curation import Curation, CurationRound

    gold = [("D", 1), ("D", 5)]
    c = Curation("q", [CurationRound([("D", 1), ("D", 2)], False, "x", 10, 2),
                       CurationRound([("D", 1), ("D", 5)], True, None, 8, 1)])
    early = Curation("q", [CurationRound([("D", 5)], True, None, 4, 1)])
    assert page_precision_recall([("D", 1), ("D", 2)], gold) == (0.5, 0.5)
    assert page_precision_recall([], gold) == (0.0, 0.0)
    rows = round_quality([c, early], [gold, gold],
                         [[("D", 1), ("D", 2), ("D", 3), ("D", 4)], [("D", 5), ("D", 6)]], 2)
    # round 0: (1/4 + 1/2) / 2 precision, (1/2 + 1/2) / 2 recall
    assert rows[0] == {"round": 0, "precision": 0.375, "recall": 0.5, "tokens": 0, "n": 2}
    assert rows[1] == {"round": 1, "precision": 0.75, "recall": 0.5, "tokens": 17, "n": 2}
    # round 2: the early stopper keeps its round-1 pages and spends nothing more
    assert rows[2] == {"round": 2, "precision": 1.0, "recall": 0.75, "tokens": 9, "n": 2}


def test_curated_ranking_puts_kept_pages_first_and_demotes_dropped_ones():
    a, b, c, d, e = (("D", i) for i in range(5))
    ranking = [(a, 0.9), (b, 0.8), (c, 0.7), (d, 0.6)]
    # b was dropped, e came from a complementary query, d was never a candidate
    out = curated_ranking(ranking, [c, a, e])
    assert [key for key, _ in out] == [c, a, e, b, d]
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    # nothing kept: the ranking is unchanged in order
    assert [key for key, _ in curated_ranking(ranking, [])] == [a, b, c, d]
