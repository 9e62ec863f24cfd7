"""LLM-written cover summaries for document routing (HiREC's per-document summaries), used
only when a capable LLM is configured (``routing.summaries: llm``); the router's default is the
deterministic extractive summary (fingap.retrieval.doc_routing.extractive_summary).

The prompt gives the filing's first pages and asks for two sentences naming the company, the
form, the fiscal period and the main topics: the facets a question is routed by, plus the
topics the extractive summary cannot condense.
"""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM = "You summarise SEC filings for a search index."


def summary_messages(company: str, form: str, doc: str, first_pages: Sequence[str],
                     max_chars: int = 3000) -> list[dict]:
    text = "\n\n".join(first_pages)[:max_chars]
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"The first pages of {company}'s {form} ({doc}):\n\n"
                                        f"{text}\n\nIn two sentences, say which company, form, "
                                        "fiscal period and main topics this filing covers."}]


def clean_summary(reply: str, max_chars: int = 600) -> str:
    """The reply on one line, cut to ``max_chars`` (empty when the reply is)."""
    return " ".join(reply.split())[:max_chars]
