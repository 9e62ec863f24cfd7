"""Pipeline steps of the paper's other methods (Table 1) and their combinations.

Every method writes the same run files (``data/runs/<method>/<condition>.json``) as the others.
Composite methods (fusion, reranking) build their own deeper first-stage lists (``zoo.depth`` for
fusion, ``reranker.candidates`` for reranking) rather than reading the top-k run files, because
fusing or reranking five chunks would say little.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .chunking import PageChunker, validate_window
from .conditions import allowed_rows
from .corpus import STATUS_EVALUATED, Question
from .folds import check_folds, fold_of_question
from .fusion import rrf
from .io import read_json, read_jsonl, write_json, write_jsonl
from .params import ParamError, require_int
from .query_expansion import expand
from .runs import Run, write_run

log = logging.getLogger("fingap")

PATHS = {
    "corpus": Path("data/corpus"),
    "pages": Path("data/pages/pages.jsonl"),
    "chunks": Path("data/chunks/chunks.jsonl"),
    "children": Path("data/chunks/children.jsonl"),
    "folds": Path("data/folds.json"),
    "indexes": Path("data/indexes"),
    "page_models": Path("models/page_scorer"),
    "page_index": Path("data/page_index/trained"),
    "page_models_hn": Path("models/page_scorer_hn"),
    "page_index_hn": Path("data/page_index/hn"),
    "reranker_models": Path("models/reranker"),
    "cache": Path("data/cache/embeddings.sqlite"),
    "hyde": Path("data/hyde"),
}


def _questions(paths: dict) -> tuple[list[Question], list[Question]]:
    allq = [Question.from_dict(d) for d in read_jsonl(paths["corpus"] / "questions.jsonl")]
    return allq, [q for q in allq if q.status == STATUS_EVALUATED]


# ---------------------------------------------------------------- SPLADE index
def run_splade_index(params: dict, chunks_path: Path, out_dir: Path) -> dict:
    from .retrievers.splade import SpladeEncoder, SpladeRetriever

    top_terms = require_int(params, "splade", "top_terms", minimum=1)
    chunks = read_jsonl(chunks_path)
    enc = SpladeEncoder(params["model"], max_length=require_int(params, "splade", "max_length", 8),
                        batch_size=int(params.get("batch_size", 32)),
                        precision=params.get("precision", "fp32"))
    t0 = time.perf_counter()
    docs = enc.encode([c["text"] for c in chunks], top_terms=top_terms, show_progress=True)
    seconds = time.perf_counter() - t0
    SpladeRetriever([c["chunk_id"] for c in chunks], docs, None).save(out_dir)
    stats = {"n_chunks": len(chunks), "seconds": round(seconds, 1),
             "texts_per_s": round(len(chunks) / seconds, 2), "nnz": int(docs.nnz),
             "index_bytes": int(docs.data.nbytes + docs.indices.nbytes + docs.indptr.nbytes)}
    write_json(out_dir / "stats.json", stats)
    return stats


# ---------------------------------------------------------------- parent-child
def run_children(params: dict, dense_params: dict, pages_path: Path, chunks_path: Path,
                 out_path: Path) -> dict:
    from .pipeline import chunk_to_row, load_tokenizer
    from .retrievers.parent_child import assign_parents

    size, overlap = params.get("size"), params.get("overlap")
    validate_window(size, overlap, name="children")
    chunker = PageChunker(load_tokenizer(dense_params["model"]), size, overlap)
    pages = [(r["doc"], r["page"], r["text"]) for r in read_jsonl(pages_path)]
    children = [chunk_to_row(c) for c in chunker.chunk_pages(pages)]
    parents = read_jsonl(chunks_path)
    for c in children:  # child ids must not collide with parent chunk ids
        c["chunk_id"] = c["chunk_id"].replace("::c", "::k")
    for c, p in zip(children, assign_parents(children, parents), strict=True):
        c["parent_id"] = parents[p]["chunk_id"]
    write_jsonl(out_path, children)
    return {"n_children": len(children), "n_parents": len(parents)}


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
        from .pipeline import load_retriever

        if name in self._cache:
            return self._cache[name]
        idx = self.paths["indexes"]
        if name in ("bm25", "dense"):
            r = load_retriever(name, self.params[name], idx / name, self.paths["cache"])
        elif name == "splade":
            from .retrievers.splade import SpladeEncoder, SpladeRetriever

            sp = self.params["splade"]
            r = SpladeRetriever.load(idx / "splade", SpladeEncoder(
                sp["model"], max_length=int(sp["max_length"]), batch_size=int(sp["batch_size"]),
                precision=sp.get("precision", "fp32")))
        elif name == "parent_child":
            from .retrievers.dense import DenseRetriever
            from .retrievers.parent_child import ParentChildRetriever

            child = DenseRetriever.load(idx / "dense_children",
                                        self.retriever("dense").encoder)
            children = read_jsonl(self.paths["children"])
            if child.ids != [c["chunk_id"] for c in children]:
                raise RuntimeError("children index does not match children.jsonl; rerun it")
            row = {cid: i for i, cid in enumerate(self.chunk_ids)}
            r = ParentChildRetriever(child, self.chunk_ids, [row[c["parent_id"]] for c in children])
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

    def ranked_pages(self, cond: str, top: int | None = None, variant: str = "trained") -> dict:
        """Fine-tuned page ranking per question (each by its held-out fold's model);
        ``variant`` ``hn`` is the hard-negative page scorer."""
        from .page_scorer_steps import rank_pages

        if variant not in ("trained", "hn"):
            raise ParamError(f"unknown fine-tuned page scorer {variant!r}")
        suffix = "_hn" if variant == "hn" else ""
        top = top or self._P()
        key = ("ranked", cond, top, variant)
        if key not in self._cache:
            folds = read_json(self.paths["folds"])
            check_folds(folds, self.all_questions)
            self._cache[key] = rank_pages("trained", self.paths["page_index" + suffix], folds,
                                          self.questions, self.params["page_scorer_train"],
                                          self.paths["page_models" + suffix], cond, top)
        return self._cache[key]

    def method_pages(self, method: str, cond: str) -> dict:
        """The page ranking a page-then-chunk method drew its candidates from."""
        variant = "hn" if "_hn" in method else "trained"
        if method.startswith("page_hybrid"):
            return self.hybrid_pages(cond, variant)
        if method.startswith("page_ensemble"):
            return self.ensemble_pages(cond)
        return self.ranked_pages(cond, variant=variant)

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
        from .page_scorer_steps import _page_allowed

        depth = _depth(self)
        bm, keys = self._page_bm25()
        row_of = {k: i for i, k in enumerate(keys)}
        rows_by_doc: dict[str, list[int]] = {}
        for i, (d, _) in enumerate(keys):
            rows_by_doc.setdefault(d, []).append(i)
        allowed = None
        if cond != "standard":
            allowed = {q.id: _page_allowed(cond, q, keys, rows_by_doc, row_of)
                       for q in self.questions}
        lexical = bm.search(self.queries, depth, allowed)
        learned = _page_ids(self.ranked_pages(cond, depth, variant))
        return _page_keys(rrf([learned, lexical], depth,
                              k_rrf=int(self.params["zoo"].get("k_rrf", 60))))

    def _page_bm25(self):
        if "page_bm25" not in self._cache:
            from .retrievers.bm25 import BM25Retriever

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
        from .retrievers.page_then_chunk import chunk_rows_by_page, rows_on_pages

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
        strategy that lets the fine-tuned page score take part (fingap.final_step)."""
        from .final_step import order

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
        from .hyde_steps import (
            VectorQueries,
            hyde_vectors,
            mean_vectors,
            multi_hyde_vectors,
            validate_hyde,
        )

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

    def _reranker(self, model: str, seed: int = 0):
        from .bge import FlagRerankerAdapter, is_bge_reranker
        from .reranker import CrossEncoderReranker

        rp = self.params["reranker"]
        if is_bge_reranker(model):  # e.g. BAAI/bge-reranker-v2-m3, through FlagEmbedding
            return FlagRerankerAdapter(model, max_length=int(rp.get("max_length", 512)),
                                       batch_size=int(rp.get("batch_size", 32)))
        return CrossEncoderReranker(model, max_length=int(rp.get("max_length", 256)),
                                    batch_size=int(rp.get("batch_size", 32)),
                                    precision=rp.get("precision", "bf16"), seed=seed)


def _page_ids(ranked: dict) -> Run:
    """Page rankings as runs (page id ``doc#page``), so that fingap.fusion can fuse them."""
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
    from .bge import BGEM3AllThree

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
    "page_hybrid_hn": lambda c, cond: c.page_scorer_run(cond, c.k,
                                                        ranked=c.hybrid_pages(cond, "hn")),
    "page_hybrid_hn_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.hybrid_pages(cond, "hn")),
    # both fine-tuned page scorers, fused (RRF)
    "page_ensemble": lambda c, cond: c.page_scorer_run(cond, c.k, ranked=c.ensemble_pages(cond)),
    "page_ensemble_page_order": lambda c, cond: c.page_scorer_final(
        cond, "page_score", ranked=c.ensemble_pages(cond)),
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
        run = METHODS[method](ctx, cond)
        timing[cond] = round(time.perf_counter() - t0, 2)
        missing = set(ctx.queries) - set(run)
        if missing:
            raise RuntimeError(f"{method}/{cond}: no result for {len(missing)} questions")
        write_run(out_dir / f"{cond}.json", run)
    log.info("%s: %s", method, timing)
    return timing


def run_train_reranker(params: dict, paths: dict, models_dir: Path, report_path: Path) -> dict:
    """One cross-encoder per fold, trained on the fold's training documents only."""
    from .reranker import (
        RerankerTrainConfig,
        save_cross_encoder,
        train_cross_encoder,
        training_examples,
    )

    cfg = RerankerTrainConfig.from_params(params)
    all_q, _ = _questions(paths)
    folds = read_json(paths["folds"])
    check_folds(folds, all_q)
    by_id = {q.id: q for q in all_q}
    pages = {(r["doc"], r["page"]): r["text"] for r in read_jsonl(paths["pages"])}
    report: dict = {"config": vars(cfg), "folds": []}
    for f in folds["folds"]:
        train_q = [by_id[q] for q in f["train_questions"]]
        assert not {q.doc for q in train_q} & set(f["test_docs"]), "fold leak"
        examples = training_examples(train_q, pages, cfg)
        tok, model, res = train_cross_encoder(examples, cfg, seed=cfg.seed + f["fold"])
        out = models_dir / f"fold_{f['fold']}"
        save_cross_encoder(tok, model, out)
        write_json(out / "fingap_fold.json", {"fold": f["fold"], "test_docs": f["test_docs"],
                                              "train_docs": f["train_docs"]})
        report["folds"].append({
            "fold": f["fold"], "n_examples": res.n_examples, "n_steps": res.n_steps,
            "seconds": round(res.seconds, 1),
            "seconds_per_step": round(res.seconds / max(1, res.n_steps), 3),
            "epoch_loss": [round(x, 5) for x in res.epoch_loss],
            "step_loss": [round(x, 5) for x in res.step_loss]})
    write_json(report_path, report)
    return report


def run_gap(method: str, params: dict, runs_dir: Path, out_json: Path, out_md: Path,
            paths: dict = PATHS) -> dict:
    """Gap report for a page-then-chunk method's standard-condition run."""
    from .gap import gap_records, render, summarise
    from .io import write_text
    from .runs import read_run

    ctx = Context(params, paths)
    P = ctx._P()
    ranked = ctx.method_pages(method, "standard")
    run = read_run(runs_dir / method / "standard.json")
    where = {c["chunk_id"]: (c["doc"], c["page"]) for c in ctx.chunks}
    final = {q: {where[c] for c, _ in hits[:ctx.k]} for q, hits in run.items()}
    records = gap_records(ctx.questions, final, {q: [k for k, _ in r] for q, r in ranked.items()})
    summary = summarise(records)
    write_jsonl(out_json.with_suffix(".jsonl"), records)
    write_json(out_json, {"method": method, "P": P, **summary})
    write_text(out_md, render(summary, method, P))
    return summary


def query_latency(retriever, queries: list[str], k: int) -> dict:
    """p50/p95 latency (ms) of single-query searches."""
    times = []
    for q in queries:
        t0 = time.perf_counter()
        retriever.search({"q": q}, k)
        times.append(1000 * (time.perf_counter() - t0))
    return {"p50_ms": round(float(np.percentile(times, 50)), 3),
            "p95_ms": round(float(np.percentile(times, 95)), 3), "n": len(times)}
