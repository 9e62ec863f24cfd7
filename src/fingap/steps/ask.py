"""``fingap ask``: the answer agent for people, on one question or a FinanceBench-format file.

Pages come from the chosen condition:
- ``oracle_page``: the question's gold pages (``evidence[].evidence_page_num``); needs only the
  ``extract`` and ``tables`` stages;
- ``oracle_doc``: the retriever restricted to the question's ``doc_name``;
- ``standard``: the retriever over the whole corpus.
Retrieval methods (:mod:`fingap.steps.adhoc`): ``fingap_best`` by default, ``bm25`` and
``dense`` (no training), or any built page-then-chunk method; a per-fold model is chosen
deterministically and the record says which (``retrieval``). The LLM path (questions that
are not figure questions, or whose figures cannot be grounded) calls the configured ``llm``
of params.yaml, opened on the first question that needs it and kept for the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from ..answers.agent import Agent, AnswerRecord
from ..answers.fact_store import FactStore
from ..answers.resolver import ResolverParams
from ..core.io import JsonlError, read_jsonl, write_jsonl
from ..core.params import load_params
from ..ingestion.extract import read_page_texts
from ..retrieval.conditions import CONDITIONS
from . import adhoc
from .answer import gold_pages_of, load_question_file

TABLE_ROWS = "table_rows"   # BM25 over statement-table rows (the tables stage), search only
TABLE_ROWS_DENSE = "table_rows_dense"  # the same rows embedded (index_table_rows), search only
PAGES = Path("data/pages/pages.jsonl")
FACTS = Path("data/facts/facts.sqlite")
CHUNKS = Path("data/chunks/chunks.jsonl")


class AskError(ValueError):
    """Bad input to ``fingap ask`` or ``fingap search``; the message says what to fix."""


def check_question(question: str | None) -> str:
    if question is None or not question.strip():
        raise AskError("the question is empty")
    return question.strip()


def check_method(method: str) -> str:
    try:
        return adhoc.check_method(method)
    except adhoc.AdHocError as e:
        raise AskError(str(e)) from None


class PageRetriever:
    """Top-k distinct pages of a built retrieval method, for any questions."""

    def __init__(self, method: str):
        self.retriever = adhoc.AdHocRetriever(check_method(method))
        self.chunks = {c["chunk_id"]: (c["doc"], int(c["page"])) for c in read_jsonl(CHUNKS)}

    def pages(self, questions: list[adhoc.AdHocQuestion], k: int, condition: str
              ) -> tuple[dict[str, list[tuple[str, int]]], dict[str, dict]]:
        """({qid: pages}, {qid: provenance}); k pages from the top 4k chunks."""
        run, prov = self.retriever.search(questions, 4 * k, condition)
        pages = {q.id: list(dict.fromkeys(self.chunks[c] for c, _ in run.get(q.id, [])))[:k]
                 for q in questions}
        return pages, prov


class SharedLLM:
    """The configured LLM for the questions of one ``fingap ask`` call: opened on the first
    question that needs it, kept open for the rest (loading a model per question cost more
    than answering it), closed with the call."""

    def __init__(self, stack: ExitStack):
        self.stack, self.llm = stack, None

    def answer(self, question: str, pages: list[tuple[str, int]],
               texts: dict) -> Callable[[], str]:
        def call() -> str:
            from ..generation.answering import generate_answers
            from ..generation.llm import open_llm

            params = load_params()
            if self.llm is None:
                self.llm = self.stack.enter_context(
                    open_llm(params["llm"], Path("data/cache/llm_ask.sqlite")))
            contexts = {"q": [texts.get(p, "")[:4000] for p in pages]}
            out = generate_answers(self.llm, {"q": question}, contexts,
                                   int(params["generate"]["max_new_tokens"]))
            return out["q"]["answer"]
        return call


def answer_agent(texts: dict, store: FactStore, resolver: ResolverParams | None = None,
                 overrides: dict | None = None) -> Agent:
    """The answer agent as params.yaml ``answer`` configures it (``resolver`` overrides the
    line-item resolver's settings, ``overrides`` any ``answer`` key, for a benchmark that
    compares them)."""
    from .answer import gate_params, llm_figures, resolver_params

    ap = (load_params().get("answer") or {}) | (overrides or {})
    return Agent(store, texts, gate=ap.get("gate", "abstain"),
                 max_follow_ups=int(ap.get("max_follow_ups", 3)), gate_params=gate_params(ap),
                 llm_figures=llm_figures(ap), resolver=resolver or resolver_params(ap))


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
    texts = read_page_texts(PAGES)
    q = adhoc.AdHocQuestion("q", question, doc)
    pages, prov = PageRetriever(method).pages([q], k, condition)
    with FactStore(FACTS) as store, ExitStack() as stack:
        rec = answer_agent(texts, store).answer("q", question, pages["q"],
                                          SharedLLM(stack).answer(question, pages["q"], texts),
                                          doc_hint=doc)
    return rec.to_dict() | {"method": method, "condition": condition, "retrieval": prov["q"]}


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
    texts = read_page_texts(PAGES)
    if condition == "oracle_page":
        pages = {r["financebench_id"]: gold_pages_of(r) for r in rows}
        prov: dict[str, dict] = {qid: {"method": None} for qid in pages}
    else:
        # the document names the fold under every condition; it restricts only oracle_doc
        qs = [adhoc.AdHocQuestion(r["financebench_id"], r["question"], r.get("doc_name"))
              for r in rows]
        pages, prov = PageRetriever(method).pages(qs, k, condition)
    records: list[dict] = []
    with FactStore(FACTS) as store, ExitStack() as stack:
        agent, llm = answer_agent(texts, store), SharedLLM(stack)
        for r in rows:
            qid, q = r["financebench_id"], r["question"]
            hint = r.get("doc_name") if condition != "standard" else None
            rec: AnswerRecord = agent.answer(qid, q, pages[qid],
                                             llm.answer(q, pages[qid], texts), doc_hint=hint)
            records.append(rec.to_dict() | {"method": prov[qid]["method"],
                                             "condition": condition, "retrieval": prov[qid]})
    if out is not None:
        write_jsonl(out, records)
    else:
        for rec in records:
            print(json.dumps(rec, sort_keys=True))
    return len(records)


def format_record(rec: dict) -> str:
    lines = [f"answer: {rec['answer'] or '(withheld)'}",
             *([f"retrieval: {provenance_line(rec['retrieval'])}"] if rec.get("retrieval") else []),
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


def provenance_line(prov: dict) -> str:
    """The method, the one that ran, its fold and why, and the routed documents."""
    if prov.get("method") is None:
        return "gold pages (oracle_page)"
    out = prov["method"]
    if prov.get("ran") and prov["ran"] != prov["method"]:
        out += f" -> {prov['ran']}"
    if "fold" in prov:
        out += f", fold {prov['fold']} ({prov['fold_reason']})"
    if prov.get("routed_docs"):
        out += f"; routed to {', '.join(prov['routed_docs'])}"
    if prov.get("fallback"):
        out += f"; {prov['fallback']}"
    return out
