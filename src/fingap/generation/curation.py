"""Evidence curation with the configured LLM (HiREC's loop), over a question's top pages.

Each round: the LLM marks which candidate pages are relevant (the others are dropped), then
judges whether the kept pages suffice to answer; if not, it writes one complementary query,
whose search results (pages not seen yet) join the candidates of the next round. At most
``max_rounds`` rounds. Every prompt and reply is counted, so the cost of curation is reported
with its gain: page precision and recall against the gold pages after every round.

The LLM's replies are parsed leniently (page numbers anywhere in the reply, "yes"/"no" at the
start), and an unparsable or failed reply keeps the pages as they were: curation can only
narrow what retrieval found when the LLM says so explicitly.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .llm_base import LLM, Request

PageKey = tuple[str, int]
SYSTEM = ("You are a financial analyst assistant who checks whether pages of SEC filings hold "
          "the evidence for a question.")
_NUMBER = re.compile(r"\d+")


@dataclass
class CurationRound:
    pages: list[PageKey]
    sufficient: bool
    query: str | None = None
    prompt_tokens: int = 0
    reply_tokens: int = 0


@dataclass
class Curation:
    question: str
    rounds: list[CurationRound] = field(default_factory=list)

    @property
    def pages(self) -> list[PageKey]:
        return self.rounds[-1].pages if self.rounds else []

    @property
    def tokens(self) -> int:
        return sum(r.prompt_tokens + r.reply_tokens for r in self.rounds)


def _listing(pages: Sequence[PageKey], texts: dict[PageKey, str], max_chars: int) -> str:
    return "\n\n".join(f"[Page {i + 1}] ({doc}, page {page + 1})\n{texts[(doc, page)][:max_chars]}"
                       for i, (doc, page) in enumerate(pages))


def relevance_messages(question: str, listing: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{listing}\n\nQuestion: {question}\n\nList the numbers "
                                        "of the pages that hold evidence for the question, "
                                        "separated by commas, or 'none'."}]


def sufficiency_messages(question: str, listing: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{listing}\n\nQuestion: {question}\n\nDo these pages "
                                        "hold everything needed to answer? Answer yes or no."}]


def query_messages(question: str, listing: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{listing}\n\nQuestion: {question}\n\nThese pages are "
                                        "not enough. Write one search query for the missing "
                                        "evidence, on one line."}]


def parse_relevant(reply: str, n: int) -> list[int] | None:
    """0-based indices of the pages a reply names (None: the reply names none it could mean)."""
    if reply.strip().lower().startswith("none"):
        return []
    picked = sorted({int(m) - 1 for m in _NUMBER.findall(reply) if 1 <= int(m) <= n})
    return picked or None


def parse_yes(reply: str) -> bool | None:
    word = reply.strip().lower()[:3]
    return True if word.startswith("yes") else False if word.startswith("no") else None


def curate(question: str, pages: Sequence[PageKey], texts: dict[PageKey, str], llm: LLM,
           search: Callable[[str, set[PageKey]], list[PageKey]],
           count_tokens: Callable[[str], int], max_rounds: int = 3, top: int = 10,
           max_chars: int = 1500, max_new_tokens: int = 64) -> Curation:
    """Curate ``pages`` (a ranking) for ``question``; ``search(query, seen)`` returns new pages
    for a complementary query, never one of ``seen``."""
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be >= 1, got {max_rounds}")
    out = Curation(question)
    candidates = list(pages[:top])
    seen = set(candidates)
    for round_no in range(max_rounds):
        spent = [0, 0]

        def ask(messages: list[dict], spent: list[int] = spent) -> str:
            res = llm.generate_one(Request(messages, max_new_tokens))
            spent[0] += sum(count_tokens(m["content"]) for m in messages)
            spent[1] += count_tokens(res.text)
            return res.text if res.error is None else ""

        listing = _listing(candidates, texts, max_chars)
        keep = parse_relevant(ask(relevance_messages(question, listing)), len(candidates))
        kept = candidates if keep is None else [candidates[i] for i in keep]
        listing = _listing(kept, texts, max_chars)
        sufficient = bool(kept) and parse_yes(ask(sufficiency_messages(question, listing))) is True
        query = None
        if not sufficient and round_no + 1 < max_rounds:
            query = ask(query_messages(question, listing)).strip().splitlines()
            query = query[0].strip() if query else ""
        out.rounds.append(CurationRound(kept, sufficient, query or None, *spent))
        if sufficient or not query:
            break
        new = [p for p in search(query, seen) if p not in seen][: max(0, top - len(kept))]
        seen.update(new)
        candidates = kept + new
    return out


def curated_ranking(ranking: Sequence[tuple[PageKey, float]],
                    kept: Sequence[PageKey]) -> list[tuple[PageKey, float]]:
    """A page ranking after curation: the kept pages first, in their curated order (a page a
    complementary query found included), then every other page of ``ranking`` in its order.
    Scores fall strictly down the list, so a final step that orders by page score keeps it;
    a dropped page is demoted, not removed, so nothing is lost when the LLM is wrong."""
    head = list(dict.fromkeys(kept))
    first = set(head)
    rest = [key for key, _ in ranking if key not in first]
    n = len(head) + len(rest)
    return [(key, float(n - i)) for i, key in enumerate(head + rest)]


def page_precision_recall(pages: Sequence[PageKey], gold: Sequence[PageKey]) -> tuple[float,
                                                                                      float]:
    """Share of ``pages`` that are gold, and share of gold pages among ``pages`` (0 if empty)."""
    hit = len(set(pages) & set(gold))
    return (hit / len(set(pages)) if pages else 0.0, hit / len(set(gold)) if gold else 0.0)


def round_quality(curations: Sequence[Curation], golds: Sequence[Sequence[PageKey]],
                  before: Sequence[Sequence[PageKey]], max_rounds: int) -> list[dict]:
    """Mean page precision/recall and tokens per round (round 0: the pages before curation);
    a question that stopped early keeps its last pages in later rounds."""
    rows = []
    for r in range(max_rounds + 1):
        pr, tokens = [], 0
        for c, g, b in zip(curations, golds, before, strict=True):
            pages = list(b) if r == 0 else c.rounds[min(r, len(c.rounds)) - 1].pages
            pr.append(page_precision_recall(pages, g))
            if 1 <= r <= len(c.rounds):
                tokens += c.rounds[r - 1].prompt_tokens + c.rounds[r - 1].reply_tokens
        n = max(len(pr), 1)
        rows.append({"round": r, "precision": sum(p for p, _ in pr) / n,
                     "recall": sum(x for _, x in pr) / n, "tokens": tokens,
                     "n": len(pr)})
    return rows
