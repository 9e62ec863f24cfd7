"""Retrieval for questions the pipeline did not evaluate (``fingap ask``, ``fingap search``).

The same methods as the pipeline's runs, from the indexes and models ``dvc repro`` built:
- ``bm25`` and ``dense``: the chunk indexes (no training);
- the page-then-chunk methods (``page_scorer``, ``page_scorer_hn_page_order``, ...) and the
  other first-stage methods of :mod:`fingap.steps.zoo` whose inputs are indexes and models only;
- ``fingap_best``: the method ``select_best`` chose for the question's fold;
- the routed methods (``*_routed``, ``*_routed_hedged``): each new question is routed at ask
  time by the ``route_docs`` stage's own router, cover records and parameters
  (``fingap.steps.routing.adhoc_ranking``), and a head method's head (page reranker, MaxSim)
  is computed for it, as its ``page_heads`` stage does for the evaluated questions.

A trained page scorer is one model per cross-validation fold. A question the pipeline evaluated
keeps its own fold (whose models never saw its document). Any other question gets, in this
order: the fold that held out its ``doc_name``, else fold 0. The choice is deterministic, and
every result says which fold and why. Methods that need per-question LLM passages (HyDE) or a
trained reranker per fold are not offered here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.io import read_json, read_jsonl
from ..core.params import load_params
from ..core.runs import Run, read_run
from ..ingestion.corpus import Evidence, Question
from ..training.folds import fold_of_question
from .zoo import METHODS, PATHS, Context

CHUNK_METHODS = ("bm25", "dense")
BEST = "fingap_best"
RUNS = Path("data/runs")
BEST_SELECTION = Path("reports/best_selection.json")
# zoo methods that read LLM passages made for the evaluated questions only, a per-fold trained
# chunk reranker's runs, or weights these machines lack
_NOT_AD_HOC = {"hyde", "multi_hyde", "dense_multi_hyde_reranker", "page_scorer_multi_hyde",
               "dense_reranker", "page_scorer_reranker", "bge_m3_all_three"}
COVERS = Path("data/routing/covers.jsonl")
UNTRAINED_INDEX = Path("data/page_index/untrained")
PAGE_METHODS = {
    # Algorithm 1 (the retrieve_pages stage): dense chunks on the page scorer's top-P pages
    "page_scorer": lambda c, cond: c.page_scorer_run(cond, c.k),
    "page_scorer_hn": lambda c, cond: c.page_scorer_run(
        cond, c.k, ranked=c.ranked_pages(cond, variant="hn")),
    # Algorithm 1 over the pages of each question's routed documents (retrieve_pages_routed)
    **{f"page_scorer{v}_routed": (lambda c, cond, v=v: c.page_scorer_run(
        cond, c.k, ranked=c.ranked_pages(cond, variant=v.strip("_") or "trained",
                                         routed=True)))
       for v in ("", "_untrained")},
    # the whole-page scorer (the retrieve_pages_windows stage)
    **{f"page_scorer_hn_windows_{how}": (lambda c, cond, how=how: c.page_scorer_run(
        cond, c.k, ranked=c.ranked_pages(cond, variant=f"hn_windows_{how}")))
       for how in ("maxp", "mean")},
} | {name: fn for name, fn in METHODS.items() if name not in _NOT_AD_HOC}
FOLDED = ("page_", "fingap_best")  # methods whose models are per fold


class AdHocError(ValueError):
    """A method or question that ad-hoc retrieval cannot serve; the message says why."""


@dataclass
class AdHocQuestion:
    id: str
    text: str
    doc: str | None = None                      # restricts retrieval under oracle_doc
    pages: list[tuple[str, int]] = field(default_factory=list)  # gold pages (oracle_page)

    def as_question(self) -> Question:
        return Question(id=self.id, company="", doc=self.doc or "", doc_type="",
                        question_type="", question_reasoning="", question=self.text, answer="",
                        evidence=[Evidence(doc=d, page=p, text="", full_page="")
                                  for d, p in self.pages])


def method_is_built(method: str, runs_dir: Path = RUNS, index_dir: Path = PATHS["indexes"]
                    ) -> bool:
    if method in CHUNK_METHODS:
        return (index_dir / method).is_dir()
    if method == BEST:
        # what serves a new question is what each fold runs (fold_method), not fingap best's
        # own run
        if not BEST_SELECTION.exists():
            return False
        return all((m := fold_method(chosen, runs_dir)) is not None and
                   method_is_built(m, runs_dir)
                   for chosen in read_json(BEST_SELECTION)["folds"].values())
    return method in PAGE_METHODS and (runs_dir / method).is_dir()


def fold_method(chosen: dict, runs_dir: Path = RUNS) -> str | None:
    """The method that runs for a fold of fingap best (``chosen``: its entry in
    best_selection.json): its choice, or, when that choice needs inputs made for the evaluated
    questions only (HyDE passages, a per-fold reranker run), the best candidate on the same
    inner score that is built here; None when there is none."""
    if chosen["method"] in PAGE_METHODS:
        return chosen["method"]
    inner = chosen.get("inner") or {}
    servable = [m for m in inner if m in PAGE_METHODS and method_is_built(m, runs_dir)]
    return max(servable, key=lambda m: (inner[m], m)) if servable else None


def known_methods() -> list[str]:
    return [*CHUNK_METHODS, BEST, *sorted(PAGE_METHODS)]


def built_methods() -> list[str]:
    return [m for m in known_methods() if method_is_built(m)]


def check_method(method: str) -> str:
    if method not in known_methods():
        raise AdHocError(f"unknown method {method!r}; valid methods: "
                         f"{', '.join(known_methods())}")
    if not method_is_built(method):
        built = built_methods()
        hint = ("`dvc repro index@" + method + "`" if method in CHUNK_METHODS
                else f"`dvc repro` (the {method} run and the models it reads)")
        raise AdHocError(f"method {method!r} is not built here; run {hint}"
                         + (f" (built: {', '.join(built)})" if built else ""))
    return method


def choose_fold(qid: str, doc: str | None, folds: dict) -> tuple[int, str]:
    """(fold, why): the model fold that scores a question (see the module docstring)."""
    if "no_gold" in folds:  # a corpus without gold evidence: one fold, nothing trained
        return 0, "the one fold of a corpus without gold evidence"
    own = fold_of_question(folds)
    if qid in own:
        return own[qid], "the question's own cross-validation fold"
    for f in folds["folds"]:
        if doc and doc in f["test_docs"]:
            return f["fold"], f"the fold that held out {doc}"
    first = min(f["fold"] for f in folds["folds"])
    return first, f"fixed fold {first} (no fold held out this question's document)"


class _AdHocContext(Context):
    """The pipeline's method context over other questions, each scored by a chosen fold."""

    def __init__(self, params: dict, questions: list[Question], fold_of: dict[str, int], k: int):
        super().__init__(params)
        self.questions = questions
        self.queries = {q.id: q.question for q in questions}
        self.k = k
        self._fold_of = fold_of

    def fold_of(self) -> dict[str, int]:
        return dict(self._fold_of)

    def _routing_ranking(self) -> dict:
        """These questions routed now, as route_docs routes the evaluated ones."""
        from .routing import adhoc_ranking

        if "routing" not in self._cache:
            self._cache["routing"] = adhoc_ranking(self.queries, self.params["routing"], COVERS)
        return self._cache["routing"]

    def ranked_pages(self, cond: str, top: int | None = None, variant: str = "trained",
                     routed: bool | str = False) -> dict:
        """The pipeline's page rankings, and the untrained scorer's (the base model for every
        question, over its own page index), which the pipeline ranks in its retrieve_pages
        stage rather than here."""
        if variant != "untrained":
            return super().ranked_pages(cond, top, variant, routed)
        from ..retrieval.ann import ann_config
        from ..retrieval.page_ranking import fold_models, rank_pages
        from ..training.page_scorer import TrainConfig

        cfg = TrainConfig.from_params(self.params["page_scorer_train"])
        model_of, paths = fold_models("untrained", self.fold_of(), self.questions, cfg.model,
                                      self.paths["page_models"])
        docs = self.routed_docs() if routed and cond == "standard" else None
        return rank_pages(UNTRAINED_INDEX, self.questions, model_of, paths, cfg.max_seq_length,
                          cfg.precision, cond, top or self._P(), self.paths["cache"], docs,
                          ann=ann_config(self.params.get("retrieve")))

    def headed_pages(self, method: str, cond: str) -> dict:
        """A head method's head computed for these questions (the pipeline reads the one its
        page_heads stage stored for the evaluated questions), then the first stage's pages."""
        from ..retrieval.page_rerank import attach_tail

        n = self.head_candidates(method)
        head = self.page_head(method, cond)
        ranked = self.ranked_pages(cond, max(self._P(), n), "hn", method.endswith("_routed"))
        return {qid: attach_tail(head[qid], pages, n) for qid, pages in ranked.items()}


class AdHocRetriever:
    """Top chunks of one built method for any questions, under a condition."""

    def __init__(self, method: str, params: dict | None = None):
        self.method = check_method(method)
        self.params = params if params is not None else load_params()
        self._chunk_retriever = None
        self._selection = read_json(BEST_SELECTION) if method == BEST else None

    def search(self, questions: list[AdHocQuestion], k: int, condition: str) -> tuple[Run, dict]:
        """(run, provenance): ``provenance[qid]`` names the method and fold actually used."""
        if self.method in CHUNK_METHODS:
            return self._chunk_search(questions, k, condition), {
                q.id: {"method": self.method} for q in questions}
        folds = read_json(PATHS["folds"])
        chosen = {q.id: choose_fold(q.id, q.doc, folds) for q in questions}
        resolved = {q.id: self._resolve(chosen[q.id][0]) for q in questions}
        run: Run = {}
        routed: dict[str, list[str]] = {}
        for method in sorted(set(resolved.values())):
            qs = [q for q in questions if resolved[q.id] == method]
            ctx = _AdHocContext(self.params, [q.as_question() for q in qs],
                                {q.id: chosen[q.id][0] for q in qs}, k)
            run.update(PAGE_METHODS[method](ctx, condition))
            if "_routed" in method and condition == "standard":
                hedged = ctx.hedged_questions() if method.endswith("_hedged") else {}
                routed |= {qid: docs + ([hedged[qid]] if qid in hedged else [])
                           for qid, docs in ctx.routed_docs().items()}
        fallback = self._no_gold_fallback()
        prov = {q.id: {"method": self.method, "ran": resolved[q.id], "fold": chosen[q.id][0],
                       "fold_reason": chosen[q.id][1]} | fallback |
                ({"routed_docs": routed[q.id]} if q.id in routed else {}) for q in questions}
        return run, prov

    def _no_gold_fallback(self) -> dict:
        """What fingap best fell back to on a corpus without gold evidence (select_best's
        report), for the provenance; {} otherwise."""
        no_gold = (self._selection or {}).get("no_gold")
        if not no_gold:
            return {}
        named = {c: m for c, m in no_gold["models"].items() if m}
        models = ", ".join(f"{c}: {m}" for c, m in sorted(named.items())) or "the base models"
        return {"fallback": f"no gold evidence to choose on: best.no_gold = {no_gold['method']} "
                            f"with {models}, untrained here"}

    def _resolve(self, fold: int) -> str:
        """The method that runs for a fold (``fold_method``)."""
        if self._selection is None:
            return self.method
        chosen = self._selection["folds"][str(fold)]
        method = fold_method(chosen)
        if method is None:
            raise AdHocError(f"fingap best chose {chosen['method']} for fold {fold}, which "
                             "cannot score new questions, and no other candidate is built")
        return method

    def _chunk_search(self, questions: list[AdHocQuestion], k: int, condition: str) -> Run:
        from ..core.params import section
        from ..retrieval.conditions import allowed_rows
        from ..retrieval.loading import load_retriever

        if self._chunk_retriever is None:
            r = load_retriever(self.method, section(self.params, self.method),
                               PATHS["indexes"] / self.method, PATHS["cache"],
                               self.params.get("retrieve"))
            chunks = {c["chunk_id"]: c for c in read_jsonl(PATHS["chunks"])}
            self._chunk_retriever = (r, [chunks[i]["doc"] for i in r.ids],
                                     [chunks[i]["page"] for i in r.ids])
        r, docs, pages = self._chunk_retriever
        qs = [q.as_question() for q in questions]
        allowed = allowed_rows(condition, qs, docs, pages)
        return r.search({q.id: q.question for q in qs}, k, allowed)


def replay_evaluated(method: str, condition: str = "standard", k: int | None = None,
                     params: dict | None = None) -> dict:
    """Ask every evaluated question again, ad hoc, with its own fold, and compare the top-k
    chunks with the method's run in ``data/runs``: ``{"n", "same_topk", "differ": [ids],
    "substituted": {id: method}}``. The questions go in as a user would send them (their text
    and id only, no document), so routing and heads are computed at ask time. A question whose
    fold choice cannot score new questions (HyDE passages) is compared with the run of the
    candidate that replaced it (``substituted``) instead."""
    from ..ingestion.corpus import STATUS_EVALUATED, read_questions
    from .zoo import PATHS as ZOO_PATHS

    params = params if params is not None else load_params()
    k = k or int(params["retrieve"]["k"])
    questions = [AdHocQuestion(q.id, q.question, q.doc if condition != "standard" else None,
                               [(e.doc, e.page) for e in q.evidence])
                 for q in read_questions(ZOO_PATHS["corpus"]) if q.status == STATUS_EVALUATED]
    retriever = AdHocRetriever(method, params)
    run, prov = retriever.search(questions, k, condition)
    chosen = {} if retriever._selection is None else {
        f: v["method"] for f, v in retriever._selection["folds"].items()}
    substituted = {q.id: prov[q.id]["ran"] for q in questions
                   if chosen and prov[q.id]["ran"] != chosen[str(prov[q.id]["fold"])]}
    stored, reference = {}, {}
    for m in {method, *substituted.values()}:
        stored[m], reference[m] = _stored_top(m, condition)
    differ = sorted(q.id for q in questions if [c for c, _ in run.get(q.id, [])[:k]] != [
        c for c, _ in stored[substituted.get(q.id, method)].get(q.id, [])[:k]])
    return {"method": method, "condition": condition, "k": k, "n": len(questions),
            "same_topk": len(questions) - len(differ), "differ": differ,
            "substituted": dict(sorted(substituted.items())),
            "reference": dict(sorted(reference.items()))}


PER_QUESTION = Path("reports/per_question")


def _stored_top(method: str, condition: str) -> tuple[dict, str]:
    """The method's stored ranking per question and where it was read: its run in
    ``data/runs`` where the workspace has it, else the chunks its committed per-question record
    lists (``reports/per_question``, written from that run by the evaluate stage)."""
    path = RUNS / method / f"{condition}.json"
    if path.exists():
        return read_run(path), str(path)
    records = PER_QUESTION / f"{method}__{condition}.jsonl"
    if not records.exists():
        raise AdHocError(f"no stored run of {method!r} ({path} or {records}); run `dvc repro`")
    return ({r["question_id"]: [(c[0], c[3]) for c in r["retrieved"]]
             for r in read_jsonl(records)}, str(records))
