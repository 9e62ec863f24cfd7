"""More training signal from the LLM, fold-safe: doc2query-style questions for pages of a fold's
training documents (#14 part 4), for when a capable LLM is configured.

For each training document, ``per_doc`` pages with enough text are drawn reproducibly (the same
pages in every fold, so one cached reply serves every fold that trains on the document). The LLM
is asked for one question that the page alone answers, and that page becomes the question's
positive. Replies that are not a question are dropped and counted. A 135M model writes
unusable questions, so this is off by default (``doc2query.per_doc: 0``); switch it on with a
7B-class model behind the ``llm`` section. Asking for a test document raises ``FoldLeak``
before any prompt is sent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..core.params import section_dataclass
from .folds import FoldLeak

# the LLM as this module sees it: chat messages in, one reply per prompt (None: it failed)
Ask = Callable[[Sequence[list[dict]], int], list[str | None]]

SYSTEM = "You are a financial analyst who writes questions about SEC filings."
_PREFIX = re.compile(r"^(?:question|q)\s*\d*\s*[:.)-]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Doc2QueryConfig:
    per_doc: int = 0            # questions asked per training document (0: off)
    seed: int = 13              # which pages are drawn
    min_chars: int = 800        # a page with less text is never drawn (covers, blank pages)
    max_chars: int = 2000       # of the page in the prompt
    max_new_tokens: int = 48

    @classmethod
    def from_params(cls, p: dict) -> Doc2QueryConfig:
        return section_dataclass(cls, p, "doc2query")


def pick_pages(doc: str, pages: Mapping[int, str], n: int, seed: int,
               min_chars: int) -> list[int]:
    """Up to ``n`` pages of ``doc`` with at least ``min_chars`` characters of text, drawn from
    ``seed`` and the document's name only (so every fold draws the same ones)."""
    eligible = sorted(p for p, text in pages.items() if len(text.strip()) >= min_chars)
    return sorted(random.Random(f"{seed}:{doc}").sample(eligible, min(n, len(eligible))))


def question_messages(company: str, doc: str, page: int, text: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Page {page + 1} of {company}'s filing {doc}:\n\n{text}"
                                        "\n\nWrite one question that an analyst could answer "
                                        "from this page alone, naming the company and the "
                                        "period. Reply with the question only."}]


def parse_question(reply: str) -> str | None:
    """The reply's first non-empty line as a question ("Question:" and quotes removed), or
    None when it is not one: no question mark at the end, or fewer than four words."""
    line = next((s.strip() for s in reply.splitlines() if s.strip()), "")
    line = _PREFIX.sub("", line).strip().strip("\"'").strip()
    return line if line.endswith("?") and len(line.split()) >= 4 else None


def generate_questions(ask: Ask, pages_by_doc: Mapping[str, Mapping[int, str]],
                       company_of: Mapping[str, str], train_docs: Iterable[str],
                       test_docs: Iterable[str], cfg: Doc2QueryConfig) -> tuple[list[dict], int]:
    """(questions, replies rejected) for ``train_docs``; each question a record with ``id``,
    ``doc``, ``page`` (0-based, its positive) and ``question``. ``ask(prompts,
    max_new_tokens)`` returns one reply per prompt, None for a failed one."""
    train, test = set(train_docs), set(test_docs)
    leak = train & test
    if leak:
        raise FoldLeak(f"doc2query asked for test documents {sorted(leak)}")
    keys, prompts = [], []
    for doc in sorted(train):
        pages = pages_by_doc.get(doc, {})
        for page in pick_pages(doc, pages, cfg.per_doc, cfg.seed, cfg.min_chars):
            keys.append((doc, page))
            prompts.append(question_messages(company_of[doc], doc, page,
                                             pages[page][:cfg.max_chars]))
    out, rejected = [], 0
    for (doc, page), reply in zip(keys, ask(prompts, cfg.max_new_tokens) if prompts else [],
                                  strict=True):
        question = None if reply is None else parse_question(reply)
        if question is None:
            rejected += 1
            continue
        out.append({"id": f"doc2query_{doc}_p{page}", "doc": doc, "page": page,
                    "question": question})
    return out, rejected
