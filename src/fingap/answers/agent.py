"""The answer agent: a small state machine over the retrieved pages and the fact store.

States, each recorded in the answer's ``steps``:
``plan`` (parse the question) -> ``retrieve`` (the run's pages) -> ``lookup`` (facts of those
pages) -> ``follow_up`` (at most ``max_follow_ups`` lookups of a missing line item inside the
candidate documents: the documents of the retrieved pages, plus the question's own document
when the caller knows it) -> ``compute`` (calculator) -> ``verify`` (gate) -> ``answer``.

Figure questions take this structured path and answer only when every input is found and the
meaning gate (``fingap.answers.meaning``) passes; with ``gate="flag"`` a failed answer goes out
marked unverified instead. A figure the structured path cannot verify is withheld with the
reason, unless the configured LLM is declared capable of figures (``llm_figures``), whose answer
is then gated too. A question that asks for no figure gets the LLM's text, unverified.

Choosing among candidate facts for one input, best first: in a column ending on a date the
question names (its header's end date, else its month), on a page of the statement the line
item normally lives on (or that the question names), with the period type asked (a quarter, a
full year; balance-sheet items are instants; a column whose header states the period type
before one that does not), by the vocabulary's label preference, by retrieval rank of the page,
then the leftmost column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from ..ingestion.numbers import SCALES
from .calculator import CalcError, evaluate
from .described import name_described_items
from .expression_checks import covered_input
from .fact_store import FactStore
from .formulas import load_library
from .label_match import LabelMatcher
from .labels import Vocabulary, balance_side, normalise_phrase, spends_money
from .meaning import (
    PRIMARY_STATEMENTS,
    GateParams,
    MeaningGate,
    company_keys,
    company_positions,
    qualifiers_asked,
    qualifiers_of,
)
from .question import (
    LABEL_PREFIX,
    NOT_FIGURE_REASONS,
    ParsedQuestion,
    asked_phrase,
    division_as_question,
    every_input_statement,
    instruction_as_question,
    lead_as_subject,
    left_after_as_question,
    named_or_defined_as_question,
    parse_question,
    refers_back,
    spelt_out_after_question,
    times_covered_as_ratio,
    with_stated_maturity,
)
from .resolver import ResolverParams, content_stems, gloss_phrase, resolve_rows

GATE_MODES = ("flag", "abstain")
_COST_WORDS = re.compile(r"\b(?:expenses?|costs?|charges?|expenditures?|outlays?)\b", re.I)
# ("Provision for (benefit from) income taxes" too)
_BOTH_WAYS = re.compile(r"\((?:income|expense|gain|loss|benefit)(?:\s+(?:from|on|of))?\)", re.I)
_STOP_WORDS = {"the", "a", "an", "of", "and", "to", "for", "in", "on", "at", "by", "from"}
# parse failures a described line item can cause: no name found, or a shape left unbuilt
_UNBUILT = ("metric not understood", "asks for a ratio or change the parser could not build",
            "no metric or line item recognised", "no line item recognised")
DEFAULT_DECIMALS = {"usd": 2, "usd_per_share": 2, "ratio": 2, "percent": 2, "days": 2}


@dataclass
class AnswerRecord:
    question_id: str
    path: str                              # structured | llm
    answer: str
    value: float | None
    formula: str = ""
    inputs: list[dict] = field(default_factory=list)
    verified: bool = False
    abstained: bool = False
    reason: str = ""                       # why the structured path did not answer
    gate: dict = field(default_factory=dict)
    steps: list[dict] = field(default_factory=list)
    unit: str = ""
    # in [0, 1]: the lowest label-match score of the inputs of a verified answer; 0 when a
    # gate check failed or nothing could be checked (fingap.answers.meaning)
    confidence: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def company_key(doc: str) -> str:
    """A document's company as letters and digits: JOHNSON_JOHNSON_2022Q4_EARNINGS ->
    "johnsonjohnson" (the name part before the first token with a year)."""
    parts = []
    for token in doc.split("_"):
        if any(ch.isdigit() for ch in token) and len(token) >= 4:
            break
        parts.append(token)
    return "".join(ch for ch in "".join(parts).lower() if ch.isalnum())


def company_named(doc: str, question: str, companies: Mapping[str, str] | None = None) -> bool:
    """The question spells the document's company: as its name does, or as the corpus names it
    (``FactStore.companies``)."""
    compact = "".join(ch for ch in question.lower() if ch.isalnum())
    return any(key in compact for key in company_keys(doc, companies, key=company_key))


def _duration_ok(fact: dict, asked: str, statement: str) -> bool:
    if statement == "balance_sheet":
        return True
    if asked == "12M":
        return fact["duration"] in ("12M", None)
    return fact["duration"] == asked




def rank_facts(facts: list[dict], pq: ParsedQuestion, concept_statement: str,
               page_rank: dict[tuple[str, int], int],
               anchor: tuple[str, int, int] | None = None, magnitude: bool = False,
               phrase: str = "", qualifiers: set[str] | None = None,
               joined: Callable[[dict], bool] | None = None) -> list[dict]:
    """Candidate facts for one input, best first (see the module docstring). ``anchor``
    (doc, page, table): where the same line item of another year was found; the same table
    first, so a change or an average compares like with like. ``qualifiers``: the variant
    the question asks (``meaning.qualifiers_asked``); of two rows of one line item, the one
    whose qualifiers fit it ("attributable to <the company>" unless the question includes the
    noncontrolling interests), the rule the gate's variant check applies. ``joined``: whether
    a row adds another line item to the one asked ("Accounts payable and accrued expenses" for
    what the company owes its suppliers); a row that prints the line item alone comes first."""
    # a line item known only by its printed label may live on any statement: the primary
    # statements first, then other tables
    home = set(PRIMARY_STATEMENTS) if concept_statement == "table" else {concept_statement}
    wanted = home | set(pq.statements)
    usable = [f for f in facts if not f["percent"]
              and _duration_ok(f, pq.duration, concept_statement)
              # a cash-flow row named like a balance ("Inventories") is its change, no balance
              and not (concept_statement == "balance_sheet" and f["statement"] == "cash_flow")]
    months, dates = set(pq.months), set(pq.dates)
    words = set(phrase.split()) - _STOP_WORDS
    # a column whose period end the question names ("as of July 29, 2023") first, by the end
    # date the header prints, else by its month; among equal candidates the leftmost column,
    # where filings print the latest period
    return sorted(usable, key=lambda f: (
        bool(dates) and f.get("end_date") not in dates,
        bool(months) and f["period_end"] not in months,
        joined is not None and joined(f),
        f["statement"] not in wanted, f["statement"] not in home,
        anchor is not None and (f["doc"], f["page"], f["tbl"]) != anchor,
        concept_statement != "balance_sheet" and f["duration"] != pq.duration,
        # an outflow (capex, dividends) is printed in parentheses on the cash-flow statement; a
        # positive row of the same name is a disclosure ("..., accrued but unpaid")
        magnitude and f["statement"] == "cash_flow" and f["value"] > 0,
        qualifiers is not None and len(qualifiers_of(f["label"]) ^ qualifiers),
        # the row the question's own words describe best ("net income attributable to Foo")
        -len(words & set(f["label_norm"].split())),
        f["concept_rank"] if f["concept_rank"] is not None else 99,
        # of rows the glossary read as the line item, the one it reads most surely first
        -(f.get("resolver_score") or 0.0) if f.get("resolver_gloss") else 0.0,
        page_rank.get((f["doc"], f["page"]), 10_000), len(f["label_norm"]), f["col"], f["id"]))


def format_answer(value: float, unit: str, scale: str | None, decimals: int) -> str:
    if unit == "percent":
        return f"{value:.{decimals}f}%"
    if unit == "usd":
        return f"${value:,.{decimals}f}" + (f" {scale[:-1]}" if scale and scale != "units"
                                            else "")
    if unit == "usd_per_share":
        return f"${value:.{decimals}f} per share"
    if unit == "days":
        return f"{value:.{decimals}f} days"
    return f"{value:.{decimals}f}"


class Agent:
    def __init__(self, store: FactStore, page_texts: dict[tuple[str, int], str],
                 vocab: Vocabulary | None = None, gate: str = "abstain", max_follow_ups: int = 3,
                 gate_params: GateParams | None = None, llm_figures: bool = False,
                 resolver: ResolverParams | None = None):
        """``gate``: a figure that fails the gate is withheld (abstain) or given unverified
        (flag). ``llm_figures``: the configured LLM may answer figure questions (a capable,
        served model); off, a figure the structured path cannot verify is withheld."""
        if gate not in GATE_MODES:
            raise ValueError(f"answer.gate must be one of {GATE_MODES}, got {gate!r}")
        self.store, self.page_texts = store, page_texts
        self.vocab = vocab or Vocabulary.load()
        self.gate, self.max_follow_ups = gate, max_follow_ups
        self.llm_figures = llm_figures
        self.resolver = resolver or ResolverParams()
        self._similarity = None
        if self.resolver.matcher:
            matcher = LabelMatcher(self.resolver.matcher)
            self._similarity = lambda phrase, labels: matcher.matrix([phrase], labels)[0] \
                if phrase.strip() else [0.0] * len(labels)
        self.meaning = MeaningGate(store, page_texts, self.vocab, gate_params)
        self.companies = self.meaning.companies
        # how the resolver reads a described phrase ("everything it owned"): the gate's
        # glossary by default; benchmarks/label_matcher.py swaps in one on another embedder
        self.resolver_glossary = self.meaning.glossary

    # ------------------------------------------------------------ structured path
    def structured(self, qid: str, question: str, pages: Sequence[tuple[str, int]],
                   doc_hint: str | None = None, doc_type: str | None = None,
                   enforce_gate: bool = True) -> tuple[AnswerRecord | None, str, list[dict]]:
        """The structured path; ``enforce_gate=False`` returns an answer the gate failed too
        (marked unverified), which the gate-quality benchmark needs."""
        steps: list[dict] = []
        original = question
        words = normalise_phrase(question).split()
        own = {d for d, _ in pages} | ({doc_hint} if doc_hint else set())
        spelt = frozenset(words[i] for i in company_positions(words, own, self.companies))
        pq = parse_question(question, self.vocab, doc_type, spelt)

        def read_as(restated: str, current: tuple[str, ParsedQuestion]
                    ) -> tuple[str, ParsedQuestion]:
            """The question restated, with its parse, when the restatement parses as a figure
            (the step recorded); else the current question and parse."""
            again = parse_question(restated, self.vocab, doc_type, spelt)
            if not again.figure:
                return current
            steps.append({"step": "restate", "question": restated})
            return restated, again

        if restated := left_after_as_question(question):
            # a share of a whole left after a part: the whole less the part, over the whole
            question, pq = read_as(restated, (question, pq))
        # the question sentence refers back to an instruction that names the figure, or asks
        # a ratio with a verb ("how many times did X cover Y")
        for restate in (instruction_as_question, times_covered_as_ratio):
            # (a question sentence that only refers back names no figure of its own, whatever
            # the parser read from the rest of the question; "how many times did X cover Y"
            # asks X / Y, whatever the parser read from "times")
            unbuilt = not pq.figure and pq.reason.startswith(_UNBUILT)
            if not (unbuilt or (restate is instruction_as_question and refers_back(question))
                    or restate is times_covered_as_ratio) \
                    or not (restated := restate(question)):
                continue
            question, pq = read_as(restated, (question, pq))
        if not pq.figure and pq.reason.startswith(_UNBUILT) and self.resolver_glossary:
            # a line item described in the question's own words stopped the parser
            question, pq = self._name_described(question, pq, doc_type, spelt, steps)
        if not pq.figure and pq.reason.startswith(_UNBUILT) and \
                (restated := division_as_question(question)):
            # a figure the parser cannot build that the instruction spells out as a division
            # ("what return did it earn on its assets? Take the profit and divide it by ...")
            question, pq = read_as(restated, (question, pq))
        # the last readings: the line item named before a colon as the pronoun subject after it
        # ("Amazon's top line: how much did it grow ..."), an instruction after the question
        # that spells out arithmetic ("What share did it keep? Compute one minus A over B"),
        # the question's own name or definition of what it asks ("how many days of sales did
        # X represent (DSO)", "..., computed as A divided by B")
        for restate in (lead_as_subject, partial(instruction_as_question, unread=True),
                        named_or_defined_as_question):
            if pq.figure or not pq.reason.startswith(_UNBUILT) or \
                    not (restated := restate(question)):
                continue
            question, pq = read_as(restated, (question, pq))
        if pq.figure:
            pq = with_stated_maturity(pq, self.vocab)
        steps.append({"step": "plan", "figure": pq.figure, "reason": pq.reason,
                      "metric": pq.metric, "formula": pq.expression,
                      "inputs": [f"{c} FY{y}" for c, y in pq.inputs], "duration": pq.duration})
        if not pq.figure:
            return None, pq.reason, steps
        record, reason, steps = self._answer_parsed(qid, question, pq, pages, doc_hint, steps,
                                                    enforce_gate, original)
        if record is None or not record.verified:
            again = self._read_again(qid, question, pq, pages, doc_hint, steps, enforce_gate,
                                     original, own)
            if again is not None:
                return again
        if (record is None or not record.verified) and spelt_out_after_question(question):
            # the question names a library metric and then spells out its arithmetic ("What
            # was its DPO? Use 365 times A, divided by B plus C"): read again with that as the
            # formula (and its operands by meaning); it goes out only if the whole gate passes
            pq2 = parse_question(question, self.vocab, doc_type, spelt, spelt_out=True)
            if pq2.figure and pq2.expression != pq.expression:
                pq2 = with_stated_maturity(pq2, self.vocab)
                steps2 = steps + [{"step": "spelt_out", "formula": pq2.expression}]
                again = self._answer_parsed(qid, question, pq2, pages, doc_hint, steps2,
                                            enforce_gate, original)
                if again[0] is not None and again[0].verified:
                    return again
                again = self._read_again(qid, question, pq2, pages, doc_hint, steps2,
                                         enforce_gate, original, own)
                if again is not None:
                    return again
        return record, reason, steps

    def _read_again(self, qid: str, question: str, pq: ParsedQuestion,
                    pages: Sequence[tuple[str, int]], doc_hint: str | None, steps: list[dict],
                    enforce_gate: bool, original: str, own: set[str]
                    ) -> tuple[AnswerRecord | None, str, list[dict]] | None:
        """An answer the gate (or the lookup) refused, tried once more with its operands read
        by meaning (``_reread``); returned only if the whole gate passes it."""
        reread = self._reread(pq, own)
        if reread is None:
            return None
        pq2, read = reread
        again = self._answer_parsed(qid, question, pq2, pages, doc_hint,
                                    steps + [{"step": "reread", "read": read}], enforce_gate,
                                    original)
        return again if again[0] is not None and again[0].verified else None

    def _reread(self, pq: ParsedQuestion, docs: set[str]
                ) -> tuple[ParsedQuestion, list[dict]] | None:
        """The parse with each operand whose own words the glossary reads, surely
        (``_sure_reading``), as another line item read as that one, and what was read; None
        when no operand reads otherwise. A term can stand inside a longer description of
        something else: "the cash its day-to-day business generated" holds the term "cash"
        but means the cash from operations, "the depreciated carrying amount of its land,
        buildings and other physical assets" holds "assets" but means net PP&E. The parse
        reads the term; the glossary reads the whole phrase. A concept of the same family
        (``_related``) or one the parse already uses is no other reading."""
        glossary = self.meaning.glossary
        if glossary is None:
            return None
        used = {c for c, _ in pq.inputs}
        swap: dict[str, str] = {}
        read = []
        for concept in sorted(used):
            # a vocabulary line item's words, or those of one known only by its label
            phrase = pq.phrases.get(concept) if concept in self.vocab.concepts else \
                pq.described.get(concept) or pq.labels.get(concept)
            if not phrase:
                continue
            got = self._sure_reading(gloss_phrase(self.meaning.own_words(phrase, docs)),
                                     side=balance_side(phrase))
            if got and got[0] != concept and got[0] not in used and \
                    got[0] in self.vocab.concepts and (concept not in self.vocab.concepts or
                                                       not self._related(concept, got[0])):
                swap[concept] = got[0]
                read.append({"words": phrase, "was": concept, "concept": got[0],
                             "score": got[1]})
        if not swap:
            return None
        names = re.compile(r"\b(" + "|".join(map(re.escape, swap)) + r")(?=__fy|\b)")
        # the new concept takes the old one's words (a phrase it had of its own is dropped)
        phrases = {c: p for c, p in pq.phrases.items() if c not in swap.values()}
        pq2 = replace(pq, metric=swap.get(pq.metric, pq.metric),
                      expression=names.sub(lambda m: swap[m.group(1)], pq.expression),
                      inputs=[(swap.get(c, c), y) for c, y in pq.inputs],
                      phrases={swap.get(c, c): p for c, p in phrases.items()} |
                      {swap[c]: p for c, p in pq.labels.items() if c in swap},
                      labels={c: p for c, p in pq.labels.items() if c not in swap},
                      described={c: p for c, p in pq.described.items() if c not in swap})
        return pq2, read

    def _related(self, a: str, b: str) -> bool:
        """Two concepts of one line item's family: a balance and the money spent on it (PP&E
        and capex), or one line item at two maturities."""
        ca, cb = self.vocab.concepts[a], self.vocab.concepts[b]
        return ca.spent_as == b or cb.spent_as == a or any(
            self.vocab.maturity_variant(x, m) == y for x, y in ((a, b), (b, a))
            for m in ("short", "long"))

    def _answer_parsed(self, qid: str, question: str, pq: ParsedQuestion,
                       pages: Sequence[tuple[str, int]], doc_hint: str | None,
                       steps: list[dict], enforce_gate: bool, original: str
                       ) -> tuple[AnswerRecord | None, str, list[dict]]:
        """One parse answered: its inputs looked up on the pages (with follow-ups), computed
        and checked by the gate; ``steps`` is copied, not changed."""
        steps = list(steps)
        pages = list(dict.fromkeys(pages))
        steps.append({"step": "retrieve", "pages": [f"{d} p{p}" for d, p in pages]})
        docs = list(dict.fromkeys([d for d, _ in pages] + ([doc_hint] if doc_hint else [])))
        named = [d for d in docs if company_named(d, question, self.companies)]
        if named and len(named) < len(docs):
            # the question names its company: other companies' pages cannot hold its figures
            docs = named
            pages = [p for p in pages if p[0] in named]
            steps.append({"step": "route", "docs": named})
        retrieved = set(pages)
        chosen: dict[str, dict] = {}
        variant = qualifiers_asked(question)
        # "(both from the cash flow statement)": every input's statement is the one named
        every_from = every_input_statement(question)
        for n_step in range(self.max_follow_ups + 1):
            page_rank = {p: i for i, p in enumerate(pages)}
            chosen, missing, weak = {}, [], []
            anchors: dict[str, tuple[str, int, int]] = {}
            # the latest year of a line item first: the other years follow its table
            for concept, year in sorted(pq.inputs, key=lambda cy: -cy[1]):
                name = f"{concept}__fy{year}"
                facts = self._lookup(pq, concept, year, pages=pages)
                statement = every_from or self._statement(concept, facts)
                ranked = rank_facts(facts, pq, statement, page_rank, anchors.get(concept),
                                    self._magnitude(concept), pq.phrases.get(concept, ""),
                                    variant, self._joined(concept, pq))
                if ranked:
                    key = (ranked[0]["doc"], ranked[0]["page"])
                    chosen[name] = ranked[0] | {
                        "source": "retrieved" if key in retrieved else "follow_up",
                        "wanted": concept}
                    anchors.setdefault(concept, (*key, ranked[0]["tbl"]))
                    # (not when a row of its own statement was passed over for one that
                    # prints the line item alone)
                    if statement != "table" and ranked[0]["statement"] != statement and \
                            all(f["statement"] != statement for f in ranked):
                        weak.append((name, concept, year, statement))
                else:
                    missing.append((name, concept, year, statement))
            steps.append({"step": "lookup", "found": sorted(chosen),
                          "missing": [m[0] for m in missing],
                          "off_statement": [w[0] for w in weak]})
            wanted = missing or weak
            if not wanted or n_step == self.max_follow_ups:
                break
            # follow-up retrieval: the page that best holds the first missing line item, inside
            # the candidate documents, joins the pages (also for an item found only off its own
            # statement, e.g. "Depreciation" in a note when the cash-flow statement has D&A)
            name, concept, year, statement = wanted[0]
            found = None
            for doc in docs:
                facts = self._lookup(pq, concept, year, doc=doc)
                ranked = [f for f in rank_facts(facts, pq, self._statement(concept, facts),
                                                page_rank,
                                                magnitude=self._magnitude(concept),
                                                phrase=pq.phrases.get(concept, ""),
                                                qualifiers=variant,
                                                joined=self._joined(concept, pq))
                          if (f["doc"], f["page"]) not in page_rank]
                if ranked and (missing or ranked[0]["statement"] == statement):
                    found = ranked[0]
                    break
            steps.append({"step": "follow_up", "input": name, "docs": docs,
                          "found": f"{found['doc']} p{found['page']}" if found else None})
            if found is None:
                if missing:
                    return None, f"input {name} not found in the candidate documents", steps
                break
            pages = pages + [(found["doc"], found["page"])]
        if missing:
            return None, f"inputs still missing after {self.max_follow_ups} follow-ups: " + \
                ", ".join(m[0] for m in missing), steps
        return self._compute(qid, question, pq, chosen, steps, enforce_gate, original)

    def _joined(self, concept: str, pq: ParsedQuestion) -> Callable[[dict], bool]:
        """``rank_facts``' test of a row that joins another line item to this operand's."""
        return partial(self._joins_another, concept, pq.phrases.get(concept, ""))

    def _joins_another(self, concept: str, phrase: str, fact: dict) -> bool:
        """Whether a row's label joins another line item to the concept's own name with "and"
        ("Accounts payable and accrued expenses"), one the question's words do not name."""
        label = normalise_phrase(fact["label"])
        own = [t for t in self.vocab.find_terms(label) if t[2] == concept]
        if not own:
            return False
        start, end, _ = own[0]
        # (right beside the name: "..., less allowances of 477 and 466" joins no line item)
        m = re.match(r"\s*and\s+(?P<x>.+)$", label[end:]) or \
            re.fullmatch(r"(?P<x>.+?)\s+and\s*", label[:start])
        extra = content_stems(m["x"]) if m else frozenset()
        return bool(extra) and not extra <= content_stems(normalise_phrase(phrase))

    @staticmethod
    def _period(pq: ParsedQuestion, year: int) -> dict:
        return {"year": year} if pq.year_basis == "calendar" else {"fiscal_year": year}

    def _lookup(self, pq: ParsedQuestion, concept: str, year: int,
                pages: list | None = None, doc: str | None = None) -> list[dict]:
        """Facts for one input: the rows of the period on the given pages (or document), resolved
        against the operand by the line-item resolver (``fingap.answers.resolver``): the
        vocabulary's concept first, else the printed labels that share the operand's words."""
        facts = self.store.query(doc=doc, pages=pages, **self._period(pq, year))
        if not facts and pq.year_basis == "calendar" and year in pq.fiscal_of:
            # columns headed by the fiscal year ("2022" over "At January 1, 2023")
            facts = self.store.query(doc=doc, pages=pages, fiscal_year=pq.fiscal_of[year])
        phrase = self._phrase(pq, concept)
        words = phrase.split()
        docs = {f["doc"] for f in facts}
        skip = {w for i, w in enumerate(words)
                if i in company_positions(words, docs, self.companies)}
        glossary = self.resolver_glossary
        return resolve_rows(phrase, None if concept in pq.labels else concept, facts,
                            self.resolver, skip, self._similarity,
                            glossary.read if glossary else None,
                            self._sure_reading if glossary else None, self._statement(concept),
                            pq.described.get(concept, ""))

    def _sure_reading(self, phrase: str, side: str | None = None) -> tuple[str, float] | None:
        """The resolver's glossary reading of a phrase (``gloss_phrase`` applied) when it is as
        sure as the gate's label check (``answer.label_threshold``): a reading that picks a row
        or rewrites the question is one the gate no longer checks by its words."""
        got = self.resolver_glossary.read(phrase, side=side)
        return got if got and got[1] >= self.meaning.params.label_threshold else None

    def _name_described(self, question: str, pq: ParsedQuestion, doc_type: str | None,
                        spelt: frozenset[str], steps: list[dict]) -> tuple[str, ParsedQuestion]:
        """The question with its described line items named by their vocabulary terms
        (``fingap.answers.described``) and its parse, when that parse builds a figure; else
        the question and parse as they were."""
        asked = asked_phrase(question)
        if asked is None:
            return question, pq
        text, done = name_described_items(
            question, asked, lambda words: self._sure_reading(gloss_phrase(words)), self.vocab,
            load_library(), spelt)
        if not done:
            return question, pq
        again = parse_question(text, self.vocab, doc_type, spelt)
        if not again.figure:
            return question, pq
        steps.append({"step": "name_described", "question": text,
                      "read": [{"words": r.words, "concept": r.concept, "score": r.score}
                               for r in done]})
        return text, again

    def _phrase(self, pq: ParsedQuestion, concept: str) -> str:
        """The operand's words: its printed-label phrase, the question's words for a concept,
        else the concept's first name in the vocabulary."""
        if concept in pq.labels:
            return pq.labels[concept]
        if concept in pq.phrases:
            return pq.phrases[concept]
        c = self.vocab.concepts.get(concept)
        return normalise_phrase(c.terms[0] if c and c.terms else concept.replace("_", " "))

    def _statement(self, concept: str, facts: Sequence[dict] = ()) -> str:
        """The statement the operand's line item lives on: its concept's, or for a line item
        the question describes in its own words, that of the concept the glossary read it as
        (``resolver_gloss``: "what it owed its vendors" is a balance, so no period's duration
        applies to it)."""
        c = self.vocab.concepts.get(concept)
        if c is None:
            read = {f.get("resolver_gloss") for f in facts} - {None}
            c = self.vocab.concepts.get(read.pop()) if len(read) == 1 else None
        return c.statement if c else "table"

    def _magnitude(self, concept: str) -> bool:
        c = self.vocab.concepts.get(concept)
        if c is None and concept.startswith(LABEL_PREFIX):
            # a line item known by its printed label: an expense or cost printed in
            # parentheses ("Interest and debt expense (475)") is an amount, as in the vocabulary,
            # and so is the money the question says was spent ("cash spent buying plant")
            words = concept[len(LABEL_PREFIX):].replace("_", " ")
            return bool(_COST_WORDS.search(words)) or spends_money(words)
        return bool(c and c.magnitude)

    def _read_as_magnitude(self, fact: dict) -> bool:
        """An outflow is read as an amount; a row printed both ways ("Interest expense
        (income), net", "Other (income) expense") keeps the sign it prints."""
        # ... and a line item known by its words is an outflow when the row it was read from
        # is printed as one ("interest charges" read from "Interest expense (72)")
        outflow = self._magnitude(fact["wanted"]) or (
            fact["wanted"].startswith(LABEL_PREFIX) and bool(_COST_WORDS.search(fact["label"])))
        return outflow and not _BOTH_WAYS.search(fact["label"])

    def _variant_rows(self, question: str, chosen: dict[str, dict], inputs: list[dict]
                      ) -> tuple[dict[str, dict], list[dict]]:
        """The chosen rows with each input the gate finds a closer variant of on its page
        ("Total Pfizer Inc. shareholders' equity" beside "Total equity", for the equity that
        belongs to the company's own shareholders) read from that row, and what was swapped;
        no swap where the page's row for the variant has no value in the input's column."""
        swapped, read = dict(chosen), []
        for inp in inputs:
            # (a line item known only by its label has no variants of its own: the gate's
            # variant is another reading of its words, which the retry would not check)
            if inp["concept"] not in self.vocab.concepts or \
                    (label := self.meaning.closer_variant(question, inp)) is None:
                continue
            old = chosen[inp["name"]]
            row = next((f for f in self.meaning.page_rows(inp) if f["label"] == label and
                        f["year"] == old["year"] and f["fiscal_year"] == old["fiscal_year"] and
                        f["duration"] == old["duration"] and f["tbl"] == old["tbl"]), None)
            if row is None:
                continue
            swapped[inp["name"]] = row | {"source": old["source"], "wanted": old["wanted"]}
            read.append({"input": inp["name"], "was": old["label"], "row": label})
        return swapped, read

    def _compute(self, qid: str, question: str, pq: ParsedQuestion, chosen: dict[str, dict],
                 steps: list[dict], enforce_gate: bool = True, original: str = "",
                 variants: bool = True) -> tuple[AnswerRecord | None, str, list[dict]]:
        """``original``: the question as asked, before any restatement (a coverage asked with
        a verb is restated as a plain ratio). ``variants``: a refused answer is tried once more
        with the variants of its rows the gate names (``_variant_rows``), and goes out only if
        the whole gate passes it."""
        scales = {f["scale"] for f in chosen.values()}
        covered = covered_input(original or question, pq.expression)
        values = {}
        for name, f in chosen.items():
            v = f["value"]
            if self._read_as_magnitude(f) or name == covered:
                v = abs(v)
            if pq.unit == "usd" or len(scales) > 1:
                if f["scale"] is None and f["wanted"] != "eps_diluted":
                    return None, f"{name}: the page declares no scale", steps
                v *= SCALES[f["scale"] or "units"]
            values[name] = v
        try:
            result = evaluate(pq.expression, values)
        except CalcError as e:
            steps.append({"step": "compute", "error": str(e)})
            return None, f"calculator: {e}", steps
        out_scale = None
        if pq.unit == "usd":
            out_scale = pq.out_scale or next(iter(sorted(s for s in scales if s)), "units")
            result /= SCALES[out_scale]
        decimals = pq.decimals if pq.decimals is not None else DEFAULT_DECIMALS[pq.unit]
        value = round(result, decimals)
        steps.append({"step": "compute", "result": result, "value": value,
                      "unit": pq.unit, "scale": out_scale})
        inputs = [{"name": name, "concept": f["wanted"], "label": f["label"],
                   "printed": f["printed"], "value": f["value"], "scale": f["scale"],
                   "fiscal_year": f["fiscal_year"], "year": f["year"],
                   "duration": f["duration"], "end_date": f.get("end_date"),
                   "statement": f["statement"], "doc": f["doc"],
                   "page": f["page"], "source": f["source"],
                   "magnitude": self._read_as_magnitude(f) or name == covered}
                  for name, f in sorted(chosen.items())]
        recomputed = evaluate(pq.expression, values)
        if pq.unit == "usd":
            recomputed /= SCALES[out_scale]
        gate = self.meaning.check(question, pq, inputs, round(recomputed, decimals), value)
        steps.append({"step": "verify", "passed": gate.passed, "reasons": gate.reasons,
                      "confidence": gate.confidence})
        record = AnswerRecord(qid, "structured", format_answer(value, pq.unit, out_scale, decimals),
                              value, pq.expression, inputs, gate.passed, False, "", gate.to_dict(),
                              steps, pq.unit, gate.confidence)
        # (one second reading per answer: an operand already read again by meaning is not
        # swapped for a variant too)
        if not gate.passed and variants and not any(st["step"] == "reread" for st in steps):
            swapped, read = self._variant_rows(question, chosen, inputs)
            if read:
                again = self._compute(qid, question, pq, swapped,
                                      steps + [{"step": "variant", "read": read}],
                                      enforce_gate, original, variants=False)
                if again[0] is not None and again[0].verified:
                    return again
        if not gate.passed and enforce_gate:
            return None, "gate: " + "; ".join(gate.reasons), steps
        return record, "", steps

    # ------------------------------------------------------------ the whole agent
    def answer(self, qid: str, question: str, pages: Sequence[tuple[str, int]],
               llm_answer: Callable[[], str] | str | None = None,
               doc_hint: str | None = None, doc_type: str | None = None) -> AnswerRecord:
        """A verified structured answer; else, in ``flag`` mode, the structured answer marked
        unverified; else the LLM's answer, which for a figure question only a capable LLM may
        give (``llm_figures``) and its gate must trace; else the figure is withheld with the
        reason."""
        record, reason, steps = self.structured(qid, question, pages, doc_hint, doc_type,
                                                enforce_gate=self.gate == "abstain")
        if record is not None:
            steps.append({"step": "answer", "path": "structured"})
            return record
        figure = steps[0].get("figure") or steps[0].get("reason") not in NOT_FIGURE_REASONS
        if figure and not self.llm_figures:
            why = f"{reason}; the configured LLM is not declared capable of figures " \
                  "(answer.llm_figures: false)"
            steps.append({"step": "answer", "path": "withheld", "reason": why})
            return AnswerRecord(qid, "withheld", "", None, "", [], False, True, why, {}, steps,
                                "")
        text = llm_answer() if callable(llm_answer) else (llm_answer or "")
        gate = self.meaning.check_llm(text, question, pages) if self.llm_figures else None
        # only a capable LLM's figure can be verified; a figure its gate cannot trace is
        # withheld (or flagged in flag mode); a text answer goes out unverified
        passed = gate is not None and gate.passed and gate.n_claimed > 0
        abstain = figure and not passed and self.gate == "abstain"
        steps.append({"step": "verify", "path": "llm", "passed": passed,
                      "reasons": gate.reasons if gate else [
                          "not verified: the configured LLM is not declared capable of "
                          "figures (answer.llm_figures: false)"]})
        steps.append({"step": "answer", "path": "llm", "abstained": abstain})
        from ..evaluation.strict_accuracy import first_new_number

        return AnswerRecord(qid, "llm", "" if abstain else text,
                            None if abstain else first_new_number(text, question), "", [],
                            passed, abstain, reason, gate.to_dict() if gate else {}, steps, "",
                            0.0)
