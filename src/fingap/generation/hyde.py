"""HyDE and Multi-HyDE query texts (Gao et al. 2022; the paper's Multi-HyDE variant).

- HyDE: the LLM writes one hypothetical filing passage that would answer the question; the
  passage (not the question) is embedded for retrieval.
- Multi-HyDE: the LLM first writes N related but non-equivalent sub-queries, then one
  hypothetical passage per sub-query. If it yields fewer than N usable sub-queries, the list is
  padded with the original question, so there are always N passages.

Sampling is at temperature 0.7 with a seed, so reruns (and the LLM cache) see identical
requests. Passage i of Multi-HyDE uses ``seed + i``, so two identical (padded) sub-queries still
give two different passages. These functions return texts only; embedding and retrieval happen
elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .llm_base import LLM, Request

TEMPERATURE = 0.7
PASSAGE_TOKENS = 200
SUBQUERY_TOKENS = 200
N_SUBQUERIES = 4

SYSTEM_PROMPT = "You are a financial analyst who knows how SEC filings are written."
PASSAGE_TEMPLATE = (
    "Write a short passage, in the style of a company's SEC filing (10-K, 10-Q or 8-K), that "
    "answers the question below. Use specific, plausible figures and line-item names. Write "
    "only the passage.\n\nQuestion: {question}\n\nPassage:"
)
SUBQUERY_TEMPLATE = (
    "Write {n} search queries for finding, in a company's financial filings, the information "
    "needed to answer the question below. Each query must be related to the question but not a "
    "rephrasing of it: target a different line item, statement, period or fact that the answer "
    "depends on. Write exactly {n} queries, one per line, numbered 1 to {n}, and nothing else."
    "\n\nQuestion: {question}"
)


@dataclass(frozen=True)
class MultiHyDE:
    subqueries: list[str]
    passages: list[str]


def _messages(user: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def hyde_passage(
    llm: LLM,
    question: str,
    seed: int = 0,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = PASSAGE_TOKENS,
) -> str:
    """One hypothetical passage answering ``question``."""
    messages = _messages(PASSAGE_TEMPLATE.format(question=question))
    return llm.generate(messages, max_new_tokens, temperature, seed).strip()


# A list marker at the start of a line, followed by whitespace: "1.", "2)", "3:", "-", "*",
# "•", "#", or a label such as "Query 1:" / "Sub-query:", optionally in markdown bold. The
# whitespace requirement keeps "10-K filing ..." or "-5% ..." intact.
_MARKER = re.compile(
    r"^(?:\*\*)?"
    r"(?:\d{1,2}\s*[.):\-]|[-*\u2022#]+|(?:sub[- ]?)?(?:query|question)\s*\d{0,2}\s*[.):\-])"
    r"(?:\*\*)?(?:\s+|$)",
    re.IGNORECASE,
)
# "1. first query 2. second query" on one line: split before each small list number.
_INLINE_NUMBER = re.compile(r"\s+(?=\d{1,2}[.)]\s)")
_PREAMBLE = re.compile(r"^(?:sure|certainly|okay|ok|here (?:are|is)|below (?:are|is))\b", re.I)


def _normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def parse_subqueries(text: str, n: int, question: str) -> list[str]:
    """Exactly ``n`` sub-queries from the LLM's list, padded with ``question`` if short.

    Tolerates numbering styles, bullets, markdown bold, quotes, a chatty preamble and a list
    written on one line. Drops empty lines, repeats, and rephrasings identical to the question
    once punctuation and case are ignored (they are not "non-equivalent").
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) <= 1:
        lines = _INLINE_NUMBER.split(text.strip())
    seen = {_normalise(question)}
    out: list[str] = []
    for line in lines:
        item = line.strip()
        # Markers can nest ("1. **Query 1:** ..."), so strip until nothing changes.
        while True:
            stripped = _MARKER.sub("", item, count=1).strip()
            if stripped == item:
                break
            item = stripped
        item = item.strip("*_`\"'\u201c\u201d ").strip()
        if not item or _PREAMBLE.match(item) or item.endswith(":"):
            continue
        key = _normalise(item)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(item)
        if len(out) == n:
            break
    return out + [question] * (n - len(out))


def generate_subqueries(
    llm: LLM,
    question: str,
    n: int = N_SUBQUERIES,
    seed: int = 0,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = SUBQUERY_TOKENS,
) -> list[str]:
    messages = _messages(SUBQUERY_TEMPLATE.format(n=n, question=question))
    return parse_subqueries(llm.generate(messages, max_new_tokens, temperature, seed), n, question)


def multi_hyde(
    llm: LLM,
    question: str,
    n: int = N_SUBQUERIES,
    seed: int = 0,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = PASSAGE_TOKENS,
) -> MultiHyDE:
    """N sub-queries for ``question`` and one hypothetical passage per sub-query."""
    subqueries = generate_subqueries(llm, question, n, seed=seed, temperature=temperature)
    passages = [
        hyde_passage(llm, sq, seed=seed + i, temperature=temperature,
                     max_new_tokens=max_new_tokens)
        for i, sq in enumerate(subqueries)
    ]
    return MultiHyDE(subqueries=subqueries, passages=passages)


def _passage_request(question: str, seed: int, temperature: float,
                     max_new_tokens: int) -> Request:
    return Request(_messages(PASSAGE_TEMPLATE.format(question=question)), max_new_tokens,
                   temperature, seed)


def hyde_for_questions(
    llm: LLM,
    questions: Mapping[str, str],
    seed: int = 0,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = PASSAGE_TOKENS,
    errors: dict[str, str] | None = None,
) -> dict[str, str]:
    """``{qid: passage}``, all requests sent at once so a backend can batch them.

    A failed generation falls back to the question itself (plain dense retrieval for that
    query) and is recorded in ``errors`` if given: retrieval cannot silently drop a query.
    """
    qids = list(questions)
    results = llm.generate_many([_passage_request(questions[q], seed, temperature,
                                                  max_new_tokens) for q in qids])
    out = {}
    for qid, res in zip(qids, results, strict=True):
        out[qid] = res.text.strip() if res.error is None else questions[qid]
        if res.error is not None and errors is not None:
            errors[qid] = res.error
    return out


def multi_hyde_for_questions(
    llm: LLM,
    questions: Mapping[str, str],
    n: int = N_SUBQUERIES,
    seed: int = 0,
    temperature: float = TEMPERATURE,
    max_new_tokens: int = PASSAGE_TOKENS,
    errors: dict[str, str] | None = None,
    subquery_max_new_tokens: int = SUBQUERY_TOKENS,
) -> dict[str, MultiHyDE]:
    """Multi-HyDE for every question in two batched rounds: all sub-query lists, then all
    passages. Failures fall back to the question (sub-queries) or the sub-query (passages)."""
    qids = list(questions)
    lists = llm.generate_many([
        Request(_messages(SUBQUERY_TEMPLATE.format(n=n, question=questions[q])),
                subquery_max_new_tokens, temperature, seed) for q in qids])
    subqueries = {}
    for qid, res in zip(qids, lists, strict=True):
        if res.error is not None and errors is not None:
            errors[qid] = res.error
        subqueries[qid] = parse_subqueries(res.text if res.error is None else "", n,
                                           questions[qid])
    pairs = [(qid, i) for qid in qids for i in range(n)]
    passages = llm.generate_many([
        _passage_request(subqueries[q][i], seed + i, temperature, max_new_tokens)
        for q, i in pairs])
    texts: dict[str, list[str]] = {q: [] for q in qids}
    for (qid, i), res in zip(pairs, passages, strict=True):
        if res.error is not None and errors is not None:
            errors[qid] = res.error
        texts[qid].append(res.text.strip() if res.error is None else subqueries[qid][i])
    return {q: MultiHyDE(subqueries=subqueries[q], passages=texts[q]) for q in qids}
