"""Pipeline steps of the paper's other methods (Table 1) and their combinations.

Every method writes the same run files (``data/runs/<method>/<condition>.json``) as the others.
Composite methods (fusion, reranking) build their own deeper first-stage lists (``zoo.depth`` for
fusion, ``reranker.candidates`` for reranking) rather than reading the top-k run files, because
fusing or reranking five chunks would say little.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.io import read_json, read_jsonl, write_json
from ..core.params import ParamError, require_int
from ..core.runs import Run, write_run
from ..ingestion.corpus import Question, read_questions, served
from ..retrieval.conditions import allowed_rows
from ..retrieval.fusion import rrf
from ..retrieval.query_expansion import expand
from ..training.folds import check_folds, fold_of_question

log = logging.getLogger("fingap")

PATHS = {
    "corpus": Path("data/corpus"),
    "pages": Path("data/pages/pages.jsonl"),
    "chunks": Path("data/chunks/chunks.jsonl"),
    "folds": Path("data/folds.json"),
    "indexes": Path("data/indexes"),
    "page_models": Path("models/page_scorer"),
    "page_index": Path("data/page_index/trained"),
    "page_models_hn": Path("models/page_scorer_hn"),
    "page_index_hn": Path("data/page_index/hn"),
    "reranker_models": Path("models/reranker"),
    "page_reranker_models": Path("models/page_reranker"),
    "cache": Path("data/cache/embeddings.sqlite"),
    "score_cache": Path("data/cache/cross_scores.sqlite"),  # cross-encoder scores
    "hyde": Path("data/hyde"),
    "routing": Path("data/routing/ranking.json"),
    "page_heads": Path("data/page_heads"),
}
# methods that reorder the routed hard-negative scorer's first pages (a stored "head")
HEAD_METHODS = ("page_reranker", "page_maxsim")


def _questions(paths: dict) -> tuple[list[Question], list[Question]]:
    allq = read_questions(paths["corpus"])
    return allq, served(allq)


# ---------------------------------------------------------------- first-stage retrievers
class Context:
    """Everything a method needs, loaded lazily and once."""

    def __init__(self, params: dict, paths: dict = PATHS):
        self.params, self.paths = params, paths
        self.all_questions, self.questions = _questions(paths)
        self.queries = {q.id: q.question for q in self.questions}
        self.chunks = read_jsonl(paths["chunks"])
        self.chunk_ids = [c["chunk_id"] for c in self.chunks]
        self.texts = {c["chunk_id"]: c["text"] for c in self.chunks}
        self.k = require_int(params["retrieve"], "retrieve", "k", minimum=1)
        self.conditions = params["retrieve"].get("conditions")
        self._cache: dict = {}

    def allowed(self, cond: str):
        key = ("allowed", cond)
        if key not in self._cache:
            self._cache[key] = allowed_rows(cond, self.questions,
                                            [c["doc"] for c in self.chunks],
                                            [c["page"] for c in self.chunks])
        return self._cache[key]

    def retriever(self, name: str):
        from ..retrieval.loading import load_retriever

        if name in self._cache:
            return self._cache[name]
        idx = self.paths["indexes"]
        if name in ("bm25", "dense"):
            r = load_retriever(name, self.params[name], idx / name, self.paths["cache"],
                               self.params.get("retrieve"))
        elif name == "splade":
            from ..retrieval.splade import SpladeEncoder, SpladeRetriever

            sp = self.params["splade"]
            r = SpladeRetriever.load(idx / "splade", SpladeEncoder(
                sp["model"], max_length=int(sp["max_length"]), batch_size=int(sp["batch_size"]),
                precision=sp.get("precision", "fp32")))
        elif name == "parent_child":
            from ..retrieval.ann import ann_config
            from ..retrieval.dense import DenseRetriever
            from ..retrieval.parent_child import ParentChildRetriever, parent_rows

            windows = idx / "dense" / "windows"
            if not (windows / "ids.json").exists():
                raise ParamError(f"parent_child reads the dense index's windows ({windows}), "
                                 "written only with dense.long_text: mean_pool")
            child = DenseRetriever.load(windows, self.retriever("dense").encoder,
                                        ann_config(self.params.get("retrieve")))
            r = ParentChildRetriever(child, self.chunk_ids,
                                     parent_rows(child.ids, self.chunk_ids))
        else:
            raise ParamError(f"unknown first-stage retriever {name!r}")
        if r.ids != self.chunk_ids and name != "parent_child":
            raise RuntimeError(f"index of {name} does not match the chunk table; rerun it")
        self._cache[name] = r
        return r

    def first_stage(self, name: str, cond: str, depth: int, expanded: bool = False) -> Run:
        queries = {q: expand(t) for q, t in self.queries.items()} if expanded else self.queries
        return self.retriever(name).search(queries, depth, self.allowed(cond))

    # ------------------------------------------------------------ page-then-chunk
    def _P(self) -> int:
        return require_int(self.params["page_scorer"], "page_scorer", "P", minimum=1)

    def fold_of(self) -> dict[str, int]:
        """Each question's cross-validation fold (whose models never saw its document)."""
        folds = read_json(self.paths["folds"])
        check_folds(folds, self.all_questions)
        return fold_of_question(folds)

    def routed_docs(self) -> dict[str, list[str]]:
        """The route_docs stage's top ``routing.top_docs`` documents of each question."""
        if "routed" not in self._cache:
            top = require_int(self.params["routing"], "routing", "top_docs", minimum=1)
            from ..retrieval.doc_routing import routed_documents

            self._cache["routed"] = routed_documents(self._routing_ranking(),
                                                     list(self.queries), top)
        return self._cache["routed"]

    def _routing_ranking(self) -> dict:
        if "routing" not in self._cache:
            self._cache["routing"] = read_json(self.paths["routing"])
        return self._cache["routing"]

    def hedged_questions(self, margin: float | None = None) -> dict[str, str]:
        """The questions whose router margin is below ``margin`` (default
        ``routing.hedge_margin``), with the next document after their routed ones
        (fingap.retrieval.doc_routing.hedge_documents)."""
        from ..retrieval.doc_routing import hedge_documents

        top = require_int(self.params["routing"], "routing", "top_docs", minimum=1)
        if margin is None:
            margin = float(self.params["routing"].get("hedge_margin", 0.0))  # domain-checked
        return hedge_documents(self._routing_ranking(), sorted(self.queries), top, margin)

    def next_docs(self) -> dict[str, list[str]]:
        """Each question's first document after its routed ones (its last routed one where the
        ranking has no other), whether or not it is hedged."""
        nxt = self.hedged_questions(math.inf)
        return {q: [nxt[q]] if q in nxt else docs[-1:] for q, docs in self.routed_docs().items()}

    def hedged_routed_run(self, cond: str, variant: str = "hn") -> Run:
        """The routed page-order run, where an unsure router's question gives its last slot to
        the next document's best chunk (by the same page scorer, page order)."""
        from ..retrieval.doc_routing import hedge_run

        primary = self.page_scorer_final(cond, "page_score",
                                         ranked=self.ranked_pages(cond, variant=variant,
                                                                  routed=True))
        if cond != "standard":  # an oracle condition already names its pages
            return primary
        secondary = self.page_scorer_final(cond, "page_score",
                                           ranked=self.ranked_pages(cond, variant=variant,
                                                                    routed="next"))
        return hedge_run(primary, secondary, self.hedged_questions(), self.k)

    def ranked_pages(self, cond: str, top: int | None = None, variant: str = "trained",
                     routed: bool | str = False) -> dict:
        """Fine-tuned page ranking per question (each by its held-out fold's model);
        ``variant`` ``hn`` is the hard-negative page scorer; ``routed``: under the standard
        condition, only the pages of the question's routed documents (``"next"``: of the
        document after them, see ``next_docs``)."""
        from ..retrieval.ann import ann_config
        from ..retrieval.page_ranking import fold_models, rank_pages
        from ..training.page_scorer import TrainConfig
        from .page_variants import page_variant

        if variant in ("trained", "hn"):
            suffix = "_hn" if variant == "hn" else ""
            models, index, aggregate = (self.paths["page_models" + suffix],
                                        self.paths["page_index" + suffix], "maxp")
        else:  # the whole-page variants (hn_windows_maxp, ...)
            v = page_variant(variant)
            if v.mode != "trained" or not v.windows:
                raise ParamError(f"unknown fine-tuned page scorer {variant!r}")
            models, index, aggregate = v.models, v.index, v.aggregate
        top = top or self._P()
        if cond != "standard":  # an oracle condition already names its pages
            routed = False
        key = ("ranked", cond, top, variant, routed)
        if key not in self._cache:
            cfg = TrainConfig.from_params(self.params["page_scorer_train"])
            model_of, paths = fold_models("trained", self.fold_of(), self.questions, cfg.model,
                                          models)
            docs = (self.next_docs() if routed == "next" else self.routed_docs() if routed
                    else None)
            self._cache[key] = rank_pages(index, self.questions, model_of, paths,
                                          cfg.max_seq_length, cfg.precision, cond, top,
                                          self.paths["cache"], docs, aggregate,
                                          ann=ann_config(self.params.get("retrieve")))
        return self._cache[key]

    def method_pages(self, method: str, cond: str) -> dict:
        """The page ranking a page-then-chunk method drew its candidates from."""
        if method.startswith(HEAD_METHODS):
            return self.headed_pages(method, cond)
        if method.startswith("page_scorer_hn_windows_"):
            routed = method.endswith("_routed")
            return self.ranked_pages(cond, variant=method.removeprefix("page_scorer_")
                                     .removesuffix("_routed"), routed=routed)
        variant = "hn" if "_hn" in method else "trained"
        if method.startswith("page_hybrid"):
            return self.hybrid_pages(cond, variant)
        if method.startswith("page_ensemble"):
            return self.ensemble_pages(cond)
        # a hedged row's page ranking is its routed one (the hedge acts on the final hits)
        return self.ranked_pages(cond, variant=variant,
                                 routed=method.removesuffix("_hedged").endswith("_routed"))

    def head_candidates(self, method: str) -> int:
        """How many of the first stage's pages a head method reorders."""
        if method.startswith("page_maxsim"):
            from .page_maxsim import maxsim_candidates

            return maxsim_candidates(self.params)
        from ..training.page_reranker import PageRerankerConfig

        return PageRerankerConfig.from_params(self.params["page_reranker"]).candidates

    def page_head(self, method: str, cond: str) -> dict:
        """The reordered first pages of a head method (``page_reranker*``, ``page_maxsim*``)
        over the routed hard-negative scorer's ranking: the expensive, P-free part, which the
        ``page_heads_*`` stages store."""
        trained, routed = "_untrained" not in method, method.endswith("_routed")
        if method.startswith("page_maxsim"):
            return self._maxsim_head(cond, trained, routed)
        if method.startswith("page_reranker"):
            return self._reranked_head(cond, trained, routed)
        raise ParamError(f"{method!r} is not a page-head method ({', '.join(HEAD_METHODS)})")

    def headed_pages(self, method: str, cond: str) -> dict:
        """A head method's stored head (``data/page_heads/METHOD.json``, from its
        ``page_heads_*`` stage), then the first stage's pages after it down to page_scorer.P."""
        from ..retrieval.page_rerank import attach_tail

        path = self.paths["page_heads"] / f"{method}.json"
        if not path.exists():
            raise FileNotFoundError(f"{path} not found; run its page_heads stage first")
        stored = read_json(path)
        n = self.head_candidates(method)
        if stored["candidates"] != n or cond not in stored["conditions"]:
            raise RuntimeError(f"{path} holds {stored['candidates']} pages under "
                               f"{sorted(stored['conditions'])}; rerun its page_heads stage "
                               f"for {n} under {cond}")
        heads = stored["conditions"][cond]
        ranked = self.ranked_pages(cond, max(self._P(), n), "hn", method.endswith("_routed"))
        return {qid: attach_tail([((d, p), s) for d, p, s in heads[qid]], pages, n)
                for qid, pages in ranked.items()}

    def _reranked_head(self, cond: str, trained: bool, routed: bool) -> dict:
        """The hard-negative scorer's first ``page_reranker.candidates`` pages reranked by a
        cross-encoder over each page's best window (fingap.steps.page_reranker): each
        question's fold reranker, or (``trained`` false) the base model with a fresh seeded
        head, the untrained row."""
        from ..retrieval.page_ranking import encode_queries
        from ..training.page_reranker import PageRerankerConfig
        from ..training.page_scorer import TrainConfig
        from .page_reranker import (
            check_reranker_fold,
            fold_picker,
            rerank_with_folds,
        )

        cfg = PageRerankerConfig.from_params(self.params["page_reranker"])
        ranked = self.ranked_pages(cond, cfg.candidates, "hn", routed)
        train = TrainConfig.from_params(self.params["page_scorer_train"])
        fold_of = self.fold_of()
        if "page_rerank" not in self._cache:  # shared by conditions and both rows
            windows_of = self.window_texts()
            pickers, vectors = {}, {}
            for f in sorted(set(fold_of[q.id] for q in self.questions)):
                mdir = self.paths["page_models_hn"] / f"fold_{f}"
                pickers[f] = fold_picker(mdir, f, train, windows_of)
                qs = [q for q in self.questions if fold_of[q.id] == f]
                vectors |= dict(zip([q.id for q in qs], encode_queries(
                    str(mdir), [q.question for q in qs], train.max_seq_length, train.precision,
                    self.paths["cache"]), strict=True))
            self._cache["page_rerank"] = (pickers, vectors)
        pickers, vectors = self._cache["page_rerank"]

        def scorer_of(fold: int):
            if not trained:
                return self._reranker(cfg.model, seed=cfg.seed, precision=cfg.precision,
                                      max_length=cfg.max_length)
            mdir = self.paths["page_reranker_models"] / f"fold_{fold}"
            check_reranker_fold(mdir, fold, {q.doc for q in self.questions
                                             if fold_of[q.id] == fold})
            return self._reranker(str(mdir), precision=cfg.precision, max_length=cfg.max_length)

        return rerank_with_folds(ranked, self.questions, fold_of, pickers, vectors, scorer_of,
                                 cfg.candidates)

    def window_texts(self):
        """Every page's windows as the page scorer's encoder cuts them (``page_windows``)."""
        if "window_texts" not in self._cache:
            from ..ingestion.extract import read_page_texts
            from ..retrieval.page_windows import PageWindowTexts, WindowConfig
            from ..training.page_scorer import TrainConfig

            train = TrainConfig.from_params(self.params["page_scorer_train"])
            self._cache["window_texts"] = PageWindowTexts(
                read_page_texts(self.paths["pages"]), train.model, train.max_seq_length,
                WindowConfig.from_params(self.params["page_windows"], "page_windows"))
        return self._cache["window_texts"]

    def _maxsim_head(self, cond: str, trained: bool, routed: bool) -> dict:
        """The hard-negative scorer's first ``page_maxsim.candidates`` pages reordered by late
        interaction (MaxSim) over all of each page's tokens, with the token vectors of each
        question's fold scorer, or (``trained`` false) of its base model."""
        from ..training.folds import check_fold_model
        from ..training.page_scorer import TrainConfig
        from .page_maxsim import maxsim_candidates, maxsim_with_folds

        n = maxsim_candidates(self.params)
        ranked = self.ranked_pages(cond, n, "hn", routed)
        train = TrainConfig.from_params(self.params["page_scorer_train"])
        fold_of = self.fold_of()

        def model_of_fold(fold: int) -> str:
            if not trained:
                return train.model
            mdir = self.paths["page_models_hn"] / f"fold_{fold}"
            check_fold_model(mdir, fold, {q.doc for q in self.questions
                                          if fold_of[q.id] == fold}, "hard-negative page scorer")
            return str(mdir)

        return maxsim_with_folds(ranked, self.questions, fold_of, model_of_fold,
                                 self.window_texts(), train, n)

    def ensemble_pages(self, cond: str) -> dict:
        """RRF of the in-batch and the hard-negative page scorers' rankings, uniform weights and
        k_rrf = zoo.k_rrf fixed in advance. Both models of a question's fold held its document
        out, so the ensemble is as fold-safe as each of them."""
        depth = _depth(self)
        runs = [_page_ids(self.ranked_pages(cond, depth, v)) for v in ("trained", "hn")]
        return _page_keys(rrf(runs, depth, k_rrf=int(self.params["zoo"].get("k_rrf", 60))))

    def hybrid_pages(self, cond: str, variant: str = "trained") -> dict:
        """Page-level hybrid (beyond the paper): RRF of the page scorer's and BM25's page
        rankings, uniform weights and k_rrf = zoo.k_rrf fixed in advance (nothing tuned)."""
        from ..retrieval.page_ranking import PageRows

        depth = _depth(self)
        bm, keys = self._page_bm25()
        rows = PageRows(keys)
        allowed = None
        if cond != "standard":
            allowed = {q.id: rows.allowed(cond, q) for q in self.questions}
        lexical = bm.search(self.queries, depth, allowed)
        learned = _page_ids(self.ranked_pages(cond, depth, variant))
        return _page_keys(rrf([learned, lexical], depth,
                              k_rrf=int(self.params["zoo"].get("k_rrf", 60))))

    def _page_bm25(self):
        if "page_bm25" not in self._cache:
            from ..retrieval.bm25 import BM25Retriever

            bp = self.params["bm25"]
            pages = read_jsonl(self.paths["pages"])
            keys = [(r["doc"], r["page"]) for r in pages]
            bm = BM25Retriever.from_texts([f"{d}#{p}" for d, p in keys],
                                          [r["text"] for r in pages],
                                          backend=bp.get("backend", "bm25s"),
                                          k1=float(bp.get("k1", 1.5)), b=float(bp.get("b", 0.75)))
            self._cache["page_bm25"] = (bm, keys)
        return self._cache["page_bm25"]

    def page_candidates(self, ranked: dict, cond: str) -> dict[str, np.ndarray]:
        """Chunk rows on each question's top-P pages (Algorithm 1's candidates)."""
        from ..retrieval.page_then_chunk import chunk_rows_by_page, rows_on_pages

        P, allowed = self._P(), self.allowed(cond)
        by_page = chunk_rows_by_page([(c["doc"], c["page"]) for c in self.chunks])
        return {q: rows_on_pages([key for key, _ in ranked[q][:P]], by_page,
                                 None if allowed is None else allowed[q]) for q in self.queries}

    def page_scorer_run(self, cond: str, depth: int, ranked: dict | None = None) -> Run:
        """Algorithm 1: dense chunk retrieval restricted to the top-P pages."""
        ranked = ranked or self.ranked_pages(cond)
        return self.retriever("dense").search(self.queries, depth,
                                              self.page_candidates(ranked, cond))

    def page_scorer_final(self, cond: str, strategy: str, ranked: dict | None = None) -> Run:
        """Algorithm 1's candidates (chunks on the top-P pages), ordered by a final-step
        strategy that lets the fine-tuned page score take part (fingap.retrieval.final_step)."""
        from ..retrieval.final_step import order

        ranked = ranked or self.ranked_pages(cond)
        P = self._P()
        candidates = self.page_candidates(ranked, cond)
        keys = [(c["doc"], c["page"]) for c in self.chunks]
        qids = sorted(self.queries)
        chunk_scores = self.retriever("dense").score([self.queries[q] for q in qids])
        fs = self.params.get("final_step", {})
        run: Run = {}
        for qi, qid in enumerate(qids):
            page_score = dict(ranked[qid][:P])
            rows = candidates[qid]
            run[qid] = order([self.chunk_ids[r] for r in rows],
                             np.array([page_score[keys[r]] for r in rows]),
                             chunk_scores[qi, rows], strategy, self.k,
                             weight=float(fs.get("linear_weight", 0.5)),
                             k_rrf=int(fs.get("k_rrf", 60)))
        return run

    # ------------------------------------------------------------ HyDE / Multi-HyDE
    def hyde_retrievers(self, kind: str) -> list:
        """Dense retrievers queried by HyDE vectors: one for ``hyde`` and for ``multi_hyde`` in
        mean mode, N (one per passage, fused later) for ``multi_hyde`` in fuse mode."""
        from ..retrieval.dense import VectorQueries
        from .hyde import hyde_vectors, mean_vectors, multi_hyde_vectors, validate_hyde

        key = ("hyde", kind)
        if key not in self._cache:
            dense, qids, d = self.retriever("dense"), sorted(self.queries), self.paths["hyde"]
            if kind == "hyde":
                slots = [hyde_vectors(d, dense.encoder, qids)]
            else:
                slots = multi_hyde_vectors(d, dense.encoder, qids)
                if validate_hyde(self.params["hyde"])["multi_hyde_mode"] == "mean":
                    slots = [mean_vectors(slots)]
            self._cache[key] = [VectorQueries(dense, s) for s in slots]
        return self._cache[key]

    def hyde_run(self, kind: str, depth: int, allowed) -> Run:
        retrievers = self.hyde_retrievers(kind)
        by_id = {q: q for q in self.queries}  # VectorQueries looks vectors up by question id
        if len(retrievers) == 1:
            return retrievers[0].search(by_id, depth, allowed)
        runs = [r.search(by_id, max(depth, _depth(self)), allowed) for r in retrievers]
        return rrf(runs, depth, k_rrf=int(self.params["zoo"].get("k_rrf", 60)))

    def rerank(self, run: Run, trained: bool) -> Run:
        rp = self.params["reranker"]
        n = require_int(rp, "reranker", "candidates", minimum=1)
        if n < self.k:
            raise ParamError(f"reranker.candidates ({n}) must be >= retrieve.k ({self.k})")
        if not trained:
            model = self._reranker(rp["base_model"], seed=int(rp.get("seed", 0)))
            return model.rerank(run, self.queries, self.texts, self.k, n)
        folds = read_json(self.paths["folds"])
        check_folds(folds, self.all_questions)
        fold_of = fold_of_question(folds)
        out: Run = {}
        for f in sorted(set(fold_of.values())):
            mdir = self.paths["reranker_models"] / f"fold_{f}"
            meta = read_json(mdir / "fingap_fold.json")
            qids = [q for q in run if fold_of[q] == f]
            # fold isolation: the model must never have trained on these questions' documents
            docs = {q.doc for q in self.questions if q.id in set(qids)}
            leak = docs & set(meta["train_docs"])
            if leak:
                raise AssertionError(f"reranker fold {f} was trained on {sorted(leak)}")
            model = self._reranker(str(mdir))
            out.update(model.rerank({q: run[q] for q in qids}, self.queries, self.texts, self.k, n))
        return out

    def _reranker(self, model: str, seed: int = 0, precision: str | None = None,
                  max_length: int | None = None):
        """A reranker, loaded once per stage (not once per condition); ``precision`` and
        ``max_length`` override the ``reranker`` section's (the page reranker has its own)."""
        from ..retrieval.bge import FlagRerankerAdapter, is_bge_reranker
        from ..retrieval.reranking import CrossEncoderReranker

        key = ("reranker", model, seed, precision, max_length)
        if key in self._cache:
            return self._cache[key]
        rp = self.params["reranker"]
        if is_bge_reranker(model):  # e.g. BAAI/bge-reranker-v2-m3, through FlagEmbedding
            reranker = FlagRerankerAdapter(model, max_length=int(rp.get("max_length", 512)),
                                           batch_size=int(rp.get("batch_size", 32)))
        else:
            reranker = CrossEncoderReranker(
                model, max_length=max_length or int(rp.get("max_length", 256)),
                batch_size=int(rp.get("batch_size", 32)),
                precision=precision or rp.get("precision", "bf16"), seed=seed,
                cache_path=self.paths.get("score_cache"))
        self._cache[key] = reranker
        return reranker


def _page_ids(ranked: dict) -> Run:
    """Page rankings as runs (page id ``doc#page``), so that ``fingap.retrieval.fusion`` can fuse
    them."""
    return {q: [(f"{d}#{p}", s) for (d, p), s in hits] for q, hits in ranked.items()}


def _page_keys(run: Run) -> dict:
    return {q: [((pid.rsplit("#", 1)[0], int(pid.rsplit("#", 1)[1])), s) for pid, s in hits]
            for q, hits in run.items()}


def _fuse(ctx: Context, runs: list[Run]) -> Run:
    zp = ctx.params["zoo"]
    return rrf(runs, ctx.k, k_rrf=int(zp.get("k_rrf", 60)), weights=zp.get("hybrid_weights"))


def _depth(ctx: Context) -> int:
    return require_int(ctx.params["zoo"], "zoo", "depth", minimum=1)


def _candidates(ctx: Context) -> int:
    return require_int(ctx.params["reranker"], "reranker", "candidates", minimum=1)


def _bge_m3_all_three(ctx: Context, cond: str) -> Run:
    """Dense candidates rescored by BGE-M3's dense + sparse + ColBERT scores (needs BGE-M3)."""
    from ..retrieval.bge import BGEM3AllThree

    bp = ctx.params.get("bge_m3", {})
    key = ("bge_m3", bp.get("model"))
    if key not in ctx._cache:
        ctx._cache[key] = BGEM3AllThree(bp.get("model", "BAAI/bge-m3"),
                                        max_length=int(bp.get("max_length", 1024)),
                                        batch_size=int(bp.get("batch_size", 8)))
    return ctx._cache[key].rerank(ctx.first_stage("dense", cond, _candidates(ctx)), ctx.queries,
                                  ctx.texts, ctx.k, _candidates(ctx))


# method name -> function(context, condition) -> run
METHODS: dict[str, Callable[[Context, str], Run]] = {
    "splade": lambda c, cond: c.first_stage("splade", cond, c.k),
    "parent_child": lambda c, cond: c.first_stage("parent_child", cond, c.k),
    "query_expansion": lambda c, cond: c.first_stage(
        c.params["zoo"].get("expansion_retriever", "dense"), cond, c.k, expanded=True),
    "hybrid": lambda c, cond: _fuse(c, [c.first_stage(m, cond, _depth(c))
                                        for m in c.params["zoo"]["hybrid"]]),
    "dense_reranker": lambda c, cond: c.rerank(c.first_stage("dense", cond, _candidates(c)),
                                               trained=True),
    "dense_reranker_untrained": lambda c, cond: c.rerank(
        c.first_stage("dense", cond, _candidates(c)), trained=False),
    "page_scorer_reranker": lambda c, cond: c.rerank(c.page_scorer_run(cond, _candidates(c)),
                                                     trained=True),
    "page_scorer_page_order": lambda c, cond: c.page_scorer_final(cond, "page_score"),
    "page_scorer_linear": lambda c, cond: c.page_scorer_final(cond, "linear"),
    "page_scorer_rrf": lambda c, cond: c.page_scorer_final(cond, "rrf"),
    "page_scorer_bm25_hybrid": lambda c, cond: _fuse(
        c, [c.page_scorer_run(cond, _depth(c)), c.first_stage("bm25", cond, _depth(c))]),
    "page_hybrid": lambda c, cond: c.page_scorer_run(cond, c.k, ranked=c.hybrid_pages(cond)),
    "page_hybrid_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.hybrid_pages(cond)),
    # the hard-negative page scorer (Algorithm 1 itself is retrieve_pages@page_scorer_hn)
    "page_scorer_hn_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.ranked_pages(cond, variant="hn")),
    "page_scorer_hn_page_order_routed": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.ranked_pages(cond, variant="hn", routed=True)),
    # ... where an unsure router (margin below routing.hedge_margin) gives the last slot to
    # the next document's best chunk
    "page_scorer_hn_page_order_routed_hedged": lambda c, cond: c.hedged_routed_run(cond),
    "page_hybrid_hn": lambda c, cond: c.page_scorer_run(cond, c.k,
                                                        ranked=c.hybrid_pages(cond, "hn")),
    "page_hybrid_hn_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.hybrid_pages(cond, "hn")),
    # both fine-tuned page scorers, fused (RRF)
    "page_ensemble": lambda c, cond: c.page_scorer_run(cond, c.k, ranked=c.ensemble_pages(cond)),
    "page_ensemble_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.ensemble_pages(cond)),
    # the page reranker (#14 part 3) over the routed hard-negative scorer, page order
    "page_reranker_routed": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.headed_pages("page_reranker_routed", cond)),
    "page_reranker_untrained_routed": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.headed_pages("page_reranker_untrained_routed", cond)),
    # late interaction over the hard-negative scorer's own token vectors (#14 part 3's
    # fallback), over the routed pages, page order
    "page_maxsim_routed": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.headed_pages("page_maxsim_routed", cond)),
    "page_maxsim_untrained_routed": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.headed_pages("page_maxsim_untrained_routed", cond)),
    "bge_m3_all_three": lambda c, cond: _bge_m3_all_three(c, cond),
    "hyde": lambda c, cond: c.hyde_run("hyde", c.k, c.allowed(cond)),
    "multi_hyde": lambda c, cond: c.hyde_run("multi_hyde", c.k, c.allowed(cond)),
    "dense_multi_hyde_reranker": lambda c, cond: c.rerank(
        c.hyde_run("multi_hyde", _candidates(c), c.allowed(cond)), trained=True),
    "page_scorer_multi_hyde": lambda c, cond: c.hyde_run(
        "multi_hyde", c.k, c.page_candidates(c.ranked_pages(cond), cond)),
}


def run_method(method: str, params: dict, out_dir: Path, paths: dict = PATHS) -> dict:
    if method not in METHODS:
        raise ParamError(f"unknown method {method!r}; known: {', '.join(sorted(METHODS))}")
    ctx = Context(params, paths)
    timing = {}
    for cond in ctx.conditions:
        t0 = time.perf_counter()
        # a corpus without questions: an empty run, no model or passage read
        run = METHODS[method](ctx, cond) if ctx.queries else {}
        timing[cond] = round(time.perf_counter() - t0, 2)
        missing = set(ctx.queries) - set(run)
        if missing:
            raise RuntimeError(f"{method}/{cond}: no result for {len(missing)} questions")
        write_run(out_dir / f"{cond}.json", run)
    log.info("%s: %s", method, timing)
    return timing


def run_page_heads(method: str, params: dict, out_path: Path, paths: dict = PATHS) -> dict:
    """A head method's reordered first pages per condition and question, the part that does
    not depend on page_scorer.P (``data/page_heads/METHOD.json``); retrieve_zoo@METHOD then
    adds the first stage's later pages and the final step, so a P sweep reruns only that."""
    if not method.startswith(HEAD_METHODS) or method not in METHODS:
        raise ParamError(f"{method!r} is not a page-head method ({', '.join(HEAD_METHODS)})")
    ctx = Context(params, paths)
    out = {"method": method, "candidates": ctx.head_candidates(method), "conditions": {}}
    for cond in ctx.conditions:
        head = ctx.page_head(method, cond) if ctx.queries else {}
        missing = set(ctx.queries) - set(head)
        if missing:
            raise RuntimeError(f"{method}/{cond}: no head for {len(missing)} questions")
        out["conditions"][cond] = {qid: [[d, p, s] for (d, p), s in head[qid]]
                                   for qid in sorted(head)}
    write_json(out_path, out)
    return out
