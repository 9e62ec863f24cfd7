"""Answer generation from retrieved chunks, with the paper's prompt.

The retrieved chunks are joined with blank lines, in retrieval order, into the user message.
Decoding defaults to greedy (temperature 0), so answers are reproducible for a given backend.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from .llm_base import LLM, Request

log = logging.getLogger("fingap.generation")

SYSTEM_PROMPT = (
    "You are a financial analyst assistant. Your task is to provide accurate, concise, and "
    "well-supported answers to questions based on provided financial document segments."
)
USER_TEMPLATE = "Context:\n{context}\n\nQuestion: {query}\n\nAnswer:"
CHUNK_SEPARATOR = "\n\n"


def build_messages(query: str, chunks: Sequence[str]) -> list[dict]:
    context = CHUNK_SEPARATOR.join(chunks)
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": USER_TEMPLATE.format(context=context, query=query)},
    ]


def generate_answers(
    llm: LLM,
    questions: Mapping[str, str],
    contexts: Mapping[str, Sequence[str]],
    max_new_tokens: int,
    temperature: float = 0.0,
    seed: int = 0,
) -> dict[str, dict]:
    """Answer every question from its retrieved chunks: ``{qid: {"answer", "error"}}``.

    A failure on one question (a server error, a missing context) is recorded as that
    question's ``error`` with an empty answer, and the run goes on; ``count_errors`` tallies
    them. One bad question should not throw away the answers already paid for.
    """
    results: dict[str, dict] = {}
    requests: dict[str, Request] = {}
    for qid, query in questions.items():
        try:
            requests[qid] = Request(build_messages(query, contexts[qid]), max_new_tokens,
                                    temperature, seed)
        except Exception as exc:  # e.g. no context for this question
            results[qid] = {"answer": "", "error": f"{type(exc).__name__}: {exc}"}
    # one call, so a batching backend sees every request
    replies = llm.generate_many(list(requests.values()))
    for qid, res in zip(requests, replies, strict=True):
        results[qid] = {"answer": res.text, "error": res.error}
    results = {qid: results[qid] for qid in questions}  # question order
    for qid, r in results.items():
        if r["error"]:
            log.warning("generation failed for %s: %s", qid, r["error"])
    failed = count_errors(results)
    if failed:
        log.warning("generation failed for %d of %d questions", failed, len(results))
    return results


def count_errors(results: Mapping[str, dict]) -> int:
    return sum(1 for r in results.values() if r.get("error"))
