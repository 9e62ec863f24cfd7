"""``fingap ask``: the answer agent for people, on one question or a FinanceBench-format file.

Pages come from the chosen condition:
- ``oracle_page``: the question's gold pages (``evidence[].evidence_page_num``); needs only the
  ``extract`` and ``tables`` stages;
- ``oracle_doc``: the retriever restricted to the question's ``doc_name``;
- ``standard``: the retriever over the whole corpus.
Retrieval methods are those with a chunk index under ``data/indexes`` (``bm25`` and ``dense``
need no training). The LLM path (questions that are not figure questions, or whose figures
cannot be grounded) calls the configured ``llm`` of params.yaml, lazily, once per question.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..answers.agent import Agent, AnswerRecord
from ..answers.fact_store import FactStore
from ..conditions import CONDITIONS
from ..io import JsonlError, read_jsonl, write_jsonl
from ..params import load_params, section
from .answer import gold_pages_of, load_page_texts, load_question_file

RETRIEVERS = ("bm25", "dense")
TABLE_ROWS = "table_rows"   # BM25 over statement-table rows (the tables stage), search only
PAGES = Path("data/pages/pages.jsonl")
FACTS = Path("data/facts/facts.sqlite")
CHUNKS = Path("data/chunks/chunks.jsonl")
INDEXES = Path("data/indexes")


class AskError(ValueError):
    """Bad input to ``fingap ask`` or ``fingap search``; the message says what to fix."""


def check_question(question: str | None) -> str:
    if question is None or not question.strip():
        raise AskError("the question is empty")
    return question.strip()


def available_methods(index_dir: Path = INDEXES) -> list[str]:
    return [m for m in RETRIEVERS if (index_dir / m).is_dir()]


def check_method(method: str, index_dir: Path = INDEXES) -> str:
    if method not in RETRIEVERS:
        raise AskError(f"unknown method {method!r}; valid methods: {', '.join(RETRIEVERS)}")
    if method not in available_methods(index_dir):
        built = available_methods(index_dir)
        raise AskError(f"method {method!r} has no index under {index_dir}; run `dvc repro "
                       f"index@{method}`" + (f" (built: {', '.join(built)})" if built else ""))
    return method


class PageRetriever:
    """Top-k distinct pages of a chunk retriever, optionally inside one document."""

    def __init__(self, method: str):
        from ..pipeline import load_retriever

        params = load_params()
        self.retriever = load_retriever(method, section(params, method), INDEXES / method,
                                        Path("data/cache/embeddings.sqlite"))
        self.chunks = {c["chunk_id"]: (c["doc"], int(c["page"])) for c in read_jsonl(CHUNKS)}

    def pages(self, question: str, k: int, doc: str | None = None) -> list[tuple[str, int]]:
        allowed = None
        if doc:
            rows = np.array([i for i, c in enumerate(self.retriever.ids)
                             if self.chunks[c][0] == doc], dtype=np.int64)
            if len(rows) == 0:
                raise AskError(f"no chunks for document {doc!r}")
            allowed = {"q": rows}
        hits = self.retriever.search({"q": question}, 4 * k, allowed)["q"]
        return list(dict.fromkeys(self.chunks[c] for c, _ in hits))[:k]


def _llm_answer(question: str, pages: list[tuple[str, int]], texts: dict) -> Callable[[], str]:
    def call() -> str:
        from ..generation import generate_answers
        from ..llm import open_llm

        params = load_params()
        contexts = {"q": [texts.get(p, "")[:4000] for p in pages]}
        with open_llm(params["llm"], Path("data/cache/llm_ask.sqlite")) as llm:
            out = generate_answers(llm, {"q": question}, contexts,
                                   int(params["generate"]["max_new_tokens"]))
        return out["q"]["answer"]
    return call


def _agent(texts: dict, store: FactStore) -> Agent:
    params = load_params()
    ap = params.get("answer") or {}
    return Agent(store, texts, gate=ap.get("gate", "flag"),
                 max_follow_ups=int(ap.get("max_follow_ups", 3)))


def _check_inputs(condition: str, method: str | None) -> None:
    if condition not in CONDITIONS:
        raise AskError(f"unknown condition {condition!r}; valid: {', '.join(CONDITIONS)}")
    for path in (PAGES, FACTS):
        if not path.exists():
            raise AskError(f"{path} missing; run `dvc repro tables` first")
    if condition != "oracle_page" and method is not None:
        check_method(method)


def ask_one(question: str, condition: str, method: str, k: int, doc: str | None) -> dict:
    question = check_question(question)
    if condition == "oracle_page":
        raise AskError("--condition oracle_page needs gold pages: use --questions FILE with "
                       "evidence[{doc_name, evidence_page_num}]")
    if condition == "oracle_doc" and not doc:
        raise AskError("--condition oracle_doc needs --doc")
    _check_inputs(condition, method)
    texts = load_page_texts(PAGES)
    pages = PageRetriever(method).pages(question, k, doc)
    with FactStore(FACTS) as store:
        rec = _agent(texts, store).answer("q", question, pages,
                                          _llm_answer(question, pages, texts), doc_hint=doc)
    return rec.to_dict() | {"method": method, "condition": condition}


def ask_file(path: Path, out: Path | None, condition: str, method: str, k: int) -> int:
    try:
        rows = load_question_file(path)
    except JsonlError as e:
        raise AskError(str(e)) from None
    except FileNotFoundError as e:
        raise AskError(str(e)) from None
    _check_inputs(condition, method)
    for r in rows:
        if condition == "oracle_page" and not gold_pages_of(r):
            raise AskError(f"{path}: question {r['financebench_id']}: --condition oracle_page "
                           "needs evidence pages")
        if condition == "oracle_doc" and not r.get("doc_name"):
            raise AskError(f"{path}: question {r['financebench_id']}: --condition oracle_doc "
                           "needs doc_name")
    texts = load_page_texts(PAGES)
    retriever = PageRetriever(method) if condition != "oracle_page" else None
    records: list[dict] = []
    with FactStore(FACTS) as store:
        agent = _agent(texts, store)
        for r in rows:
            q = r["question"]
            if retriever is None:
                pages = gold_pages_of(r)
            else:
                doc = r.get("doc_name") if condition == "oracle_doc" else None
                pages = retriever.pages(q, k, doc)
            hint = r.get("doc_name") if condition != "standard" else None
            rec: AnswerRecord = agent.answer(r["financebench_id"], q, pages,
                                             _llm_answer(q, pages, texts), doc_hint=hint)
            records.append(rec.to_dict() | {"method": None if retriever is None else method,
                                             "condition": condition})
    if out is not None:
        write_jsonl(out, records)
    else:
        for rec in records:
            print(json.dumps(rec, sort_keys=True))
    return len(records)


def format_record(rec: dict) -> str:
    lines = [f"answer: {rec['answer'] or '(withheld)'}",
             f"path: {rec['path']}" + (f"  (structured path not taken: {rec['reason']})"
                                       if rec["reason"] else "")]
    if rec["formula"]:
        lines.append(f"formula: {rec['formula']}")
    for inp in rec["inputs"]:
        lines.append(f"  {inp['name']} = {inp['printed']} ({inp['scale'] or 'units'})  "
                     f"\"{inp['label']}\" FY{inp['fiscal_year']}  {inp['doc']} page "
                     f"{inp['page']} [{inp['source']}]")
    gate = rec.get("gate") or {}
    lines.append("verified: " + ("yes" if rec["verified"] else
                                 "NO - " + "; ".join(gate.get("reasons", []))))
    return "\n".join(lines)
