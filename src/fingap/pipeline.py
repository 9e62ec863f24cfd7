"""The pipeline's steps as plain functions of (params section, input paths, output paths).

``stages/*.py`` (what DVC runs) and the ``fingap`` CLI both call these; they know nothing of DVC.
Every output is written atomically; every parameter is validated before work starts.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from . import corpus as corpus_mod
from .alignment import check_alignment
from .chunking import Chunk, PageChunker, validate_window
from .conditions import CONDITIONS, allowed_rows
from .corpus import Question
from .evaluation import ChunkLookup, aggregate, breakdown, score_run
from .extract import extract_pdf
from .io import read_json, read_jsonl, write_json, write_jsonl, write_text
from .params import ParamError, require_choice, require_int
from .runs import read_run, write_run

log = logging.getLogger("fingap")


# ---------------------------------------------------------------- corpus
def run_corpus(params: dict, out_dir: Path, root: Path = Path(".")) -> dict:
    corpus_dir = corpus_mod.locate_corpus(params.get("dir") or None, root)
    manifest, questions = corpus_mod.build_manifest(corpus_dir)
    write_jsonl(out_dir / "questions.jsonl", (q.to_dict() for q in questions))
    write_json(out_dir / "manifest.json", manifest)
    log.info("corpus %s: %d questions (%d evaluated, %d missing doc), %d PDFs", corpus_dir,
             manifest["questions"]["n_total"], manifest["questions"]["n_evaluated"],
             manifest["questions"]["n_missing_doc"], len(manifest["docs"]["present"]))
    return manifest


def load_questions(corpus_out: Path) -> list[Question]:
    return [Question.from_dict(d) for d in read_jsonl(corpus_out / "questions.jsonl")]


# ---------------------------------------------------------------- extract
def run_extract(params: dict, corpus_params: dict, corpus_out: Path, out_dir: Path,
                report_path: Path, root: Path = Path(".")) -> dict:
    window = require_int(params, "extract", "alignment_window", minimum=0)
    max_chars = require_int(params, "extract", "max_page_chars", minimum=1)
    manifest = read_json(corpus_out / "manifest.json")
    corpus_dir = corpus_mod.locate_corpus(corpus_params.get("dir") or None, root)
    names = [n for n in manifest["files"] if n.startswith(corpus_mod.PDF_DIR + "/")]
    corpus_mod.verify_inputs(corpus_dir, manifest, names)
    pages, errors = [], []
    t0 = time.perf_counter()
    for name in tqdm(names, desc="extract", unit="pdf"):
        p, e = extract_pdf(corpus_dir / name, max_page_chars=max_chars)
        pages.extend(p)
        errors.extend(e)
    seconds = time.perf_counter() - t0
    pages.sort(key=lambda r: (r.doc, r.page))
    write_jsonl(out_dir / "pages.jsonl", (vars(p) for p in pages))
    write_jsonl(out_dir / "errors.jsonl", (vars(e) for e in errors))
    texts = {(p.doc, p.page): p.text for p in pages}
    counts = Counter(p.doc for p in pages)
    records = check_alignment(load_questions(corpus_out), texts, counts, window=window)
    write_jsonl(out_dir / "alignment.jsonl", records)
    failed_docs = sorted({e.doc for e in errors if e.page is None and e.severity == "error"})
    report = {
        "n_pdfs": len(names),
        "n_docs_extracted": len(counts),
        "n_docs_failed": len(failed_docs),
        "failed_docs": failed_docs,
        "n_pages": len(pages),
        "n_empty_pages": sum(1 for p in pages if not p.text.strip()),
        "n_warnings": sum(1 for e in errors if e.severity == "warning"),
        "gold_alignment": {
            "n_evidence": len(records),
            "n_aligned": sum(r["aligned"] for r in records),
            "rate": (sum(r["aligned"] for r in records) / len(records)) if records else None,
        },
    }
    write_json(report_path, report)
    log.info("extracted %d pages from %d PDFs in %.1fs (%.0f pages/s); gold alignment %s",
             len(pages), len(counts), seconds, len(pages) / max(seconds, 1e-9),
             report["gold_alignment"]["rate"])
    return report


# ---------------------------------------------------------------- chunk
def load_tokenizer(model: str):
    from transformers import AutoTokenizer

    from .models import ensure_offline, resolve_model

    ensure_offline()
    return AutoTokenizer.from_pretrained(resolve_model(model))


def run_chunk(params: dict, dense_params: dict, pages_path: Path, out_path: Path,
              report_path: Path) -> dict:
    size, overlap = params.get("size"), params.get("overlap")
    validate_window(size, overlap)
    tokenizer = load_tokenizer(dense_params["model"])
    chunker = PageChunker(tokenizer, size, overlap)
    pages = [(r["doc"], r["page"], r["text"]) for r in read_jsonl(pages_path)]
    chunks = list(chunker.chunk_pages(tqdm(pages, desc="chunk", unit="page")))
    write_jsonl(out_path, (chunk_to_row(c) for c in chunks))
    max_len = int(dense_params.get("max_seq_length") or 0) or _model_max_len(dense_params["model"])
    n_tok = [c.n_tokens for c in chunks]
    report = {
        "size": size, "overlap": overlap, "n_chunks": len(chunks),
        "n_pages_with_chunks": len({(c.doc, c.page) for c in chunks}),
        "mean_tokens": sum(n_tok) / len(n_tok) if n_tok else 0,
        "embedder_max_seq_length": max_len,
        "n_chunks_over_embedder_max": sum(1 for n in n_tok if n > max_len - 2),
    }
    write_json(report_path, report)
    return report


def _model_max_len(model: str) -> int:
    import json

    from .models import resolve_model

    cfg = Path(resolve_model(model)) / "sentence_bert_config.json"
    return int(json.loads(cfg.read_text()).get("max_seq_length", 512)) if cfg.exists() else 512


def chunk_to_row(c: Chunk) -> dict:
    d = vars(c).copy()
    d["n_tokens"] = c.n_tokens
    return d


def load_chunks(path: Path) -> list[dict]:
    return read_jsonl(path)


# ---------------------------------------------------------------- indexes
def make_encoder(dense_params: dict, cache_path: Path | None, show_progress: bool = True):
    from .embedding import TextEncoder

    return TextEncoder(
        dense_params["model"],
        max_seq_length=dense_params.get("max_seq_length") or None,
        long_text=dense_params.get("long_text", "mean_pool"),
        precision=dense_params.get("precision", "bf16"),
        batch_size=int(dense_params.get("batch_size", 32)),
        cache_path=cache_path,
        show_progress=show_progress,
    )


def run_index(method: str, params: dict, chunks_path: Path, out_dir: Path,
              cache_path: Path | None = None) -> dict:
    chunks = load_chunks(chunks_path)
    ids, texts = [c["chunk_id"] for c in chunks], [c["text"] for c in chunks]
    t0 = time.perf_counter()
    if method == "bm25":
        from .retrievers.bm25 import BACKENDS, BM25Retriever

        backend = require_choice(params, "bm25", "backend", BACKENDS)
        retriever = BM25Retriever.from_texts(ids, texts, backend=backend,
                                             k1=float(params["k1"]), b=float(params["b"]))
        retriever.save(out_dir)
        stats = {}
    elif method == "dense":
        from .retrievers.dense import DenseRetriever

        encoder = make_encoder(params, cache_path)
        retriever = DenseRetriever(ids, encoder.encode(texts, desc="chunks"), encoder)
        retriever.save(out_dir)
        stats = dict(encoder.stats)
    elif method == "splade":
        from .zoo_steps import run_splade_index

        stats = run_splade_index(params, chunks_path, out_dir)
    else:
        raise ParamError(f"unknown index method {method!r}; expected bm25, dense or splade")
    stats.update(method=method, n_chunks=len(ids), seconds=round(time.perf_counter() - t0, 2))
    log.info("index %s: %s", method, stats)
    return stats


def load_retriever(method: str, method_params: dict, index_dir: Path,
                   cache_path: Path | None = None):
    if method == "bm25":
        from .retrievers.bm25 import BM25Retriever

        return BM25Retriever.load(index_dir, backend=method_params.get("backend"))
    if method == "dense":
        from .retrievers.dense import DenseRetriever

        return DenseRetriever.load(index_dir, make_encoder(method_params, cache_path, False))
    raise ParamError(f"unknown retrieval method {method!r}; expected bm25 or dense")


# ---------------------------------------------------------------- retrieve
def validate_retrieve(params: dict) -> tuple[int, list[str]]:
    k = require_int(params, "retrieve", "k", minimum=1)
    conditions = params.get("conditions", list(CONDITIONS))
    bad = [c for c in conditions if c not in CONDITIONS]
    if bad:
        raise ParamError(f"retrieve.conditions: unknown {bad}; expected some of {CONDITIONS}")
    return k, list(conditions)


def run_retrieve(method: str, params: dict, method_params: dict, corpus_out: Path,
                 chunks_path: Path, index_dir: Path, out_dir: Path,
                 cache_path: Path | None = None) -> None:
    k, conditions = validate_retrieve(params)
    questions = [q for q in load_questions(corpus_out) if q.status == corpus_mod.STATUS_EVALUATED]
    chunks = load_chunks(chunks_path)
    retriever = load_retriever(method, method_params, index_dir, cache_path)
    if retriever.ids != [c["chunk_id"] for c in chunks]:
        raise RuntimeError(f"index {index_dir} does not match {chunks_path}; rerun the index stage")
    queries = {q.id: q.question for q in questions}
    docs, pages = [c["doc"] for c in chunks], [c["page"] for c in chunks]
    for cond in conditions:
        allowed = allowed_rows(cond, questions, docs, pages)
        write_run(out_dir / f"{cond}.json", retriever.search(queries, k, allowed))


# ---------------------------------------------------------------- evaluate
STATUS_EXTRACTION_FAILED = "extraction_failed"


def mark_failed_documents(questions: list[Question], errors_path: Path) -> dict[str, str]:
    """Questions on a document whose extraction failed become unanswerable (not scored);
    returns {doc: reason} of the failed documents."""
    failed = {e["doc"]: e["reason"] for e in read_jsonl(errors_path)
              if e.get("page") is None and e.get("severity", "error") == "error"}
    for q in questions:
        if q.status == corpus_mod.STATUS_EVALUATED and any(d in failed for d in q.gold_docs):
            q.status = STATUS_EXTRACTION_FAILED
    return failed


def run_evaluate(params: dict, corpus_out: Path, chunks_path: Path, runs_dir: Path,
                 errors_path: Path, unanswerable_path: Path,
                 extract_report: Path, chunk_report: Path, metrics_path: Path,
                 breakdown_path: Path, per_question_dir: Path, table_path: Path,
                 plots_dir: Path | None = None, corpus_params: dict | None = None,
                 root: Path = Path("."), answers_dir: Path | None = None) -> dict:
    from .evaluation import add_answer_scores, aggregate_answers
    from .report import render_retrieval_report

    k = require_int(params, "evaluate", "k", minimum=1)
    methods = params.get("methods") or []
    if not methods:
        raise ParamError("evaluate.methods must list at least one method")
    questions = load_questions(corpus_out)
    manifest = read_json(corpus_out / "manifest.json")
    if corpus_params is not None:
        # the questions scored here must be those the manifest hashed: a corpus edited after
        # the corpus stage ran is an error, not silently stale metrics
        corpus_dir = corpus_mod.locate_corpus(corpus_params.get("dir") or None, root)
        corpus_mod.verify_inputs(corpus_dir, manifest,
                                 [corpus_mod.QUESTIONS_FILE, corpus_mod.DOCINFO_FILE])
    failed = mark_failed_documents(questions, errors_path)
    write_jsonl(unanswerable_path, (
        {"question_id": q.id, "doc": q.doc, "status": q.status,
         "reason": failed.get(q.doc, "PDF not in the corpus")}
        for q in questions if q.status != corpus_mod.STATUS_EVALUATED))
    chunks = load_chunks(chunks_path)
    lookup = ChunkLookup([c["chunk_id"] for c in chunks], [c["doc"] for c in chunks],
                         [c["page"] for c in chunks], [c["text"] for c in chunks])
    metrics: dict = {}
    per_question: dict[tuple[str, str], list[dict]] = {}
    by_qtype: dict = {}
    by_dtype: dict = {}
    generation: dict = {}
    for method in methods:
        for cond in params.get("conditions", list(CONDITIONS)):
            path = runs_dir / method / f"{cond}.json"
            if not path.exists():
                raise FileNotFoundError(f"{path}: no run for method {method!r}, condition {cond!r}")
            records = score_run(questions, read_run(path), lookup, k)
            answers_path = None if answers_dir is None else answers_dir / f"{method}__{cond}.jsonl"
            if answers_path is not None and answers_path.exists():
                answers = {r["question_id"]: r for r in read_jsonl(answers_path)}
                add_answer_scores(records, answers, questions)
                generation[(method, cond)] = aggregate_answers(records)
            per_question[(method, cond)] = records
            write_jsonl(per_question_dir / f"{method}__{cond}.jsonl", records)
            metrics.setdefault(method, {})[cond] = aggregate(records, k)
            metrics[method][cond].update(generation.get((method, cond), {}))
            by_qtype.setdefault(method, {})[cond] = breakdown(records, "question_type", k)
            by_dtype.setdefault(method, {})[cond] = breakdown(records, "doc_type", k)
    out = dict(metrics)
    out["oracle_gap"] = {
        m: metrics[m]["oracle_doc"][f"PageRec@{k}"] - metrics[m]["standard"][f"PageRec@{k}"]
        for m in methods if {"oracle_doc", "standard"} <= set(metrics[m])
    }
    out["questions"] = {
        "n_total": len(questions),
        "n_evaluated": sum(q.status == corpus_mod.STATUS_EVALUATED for q in questions),
        "n_missing_doc": sum(q.status == corpus_mod.STATUS_MISSING_DOC for q in questions),
        "n_failed_extraction": sum(q.status == STATUS_EXTRACTION_FAILED for q in questions),
        "n_docs_failed": len(failed),
    }
    from .tracking import dataset_digest

    out["dataset_sha256"] = dataset_digest(manifest)
    out["extraction"] = read_json(extract_report)
    out["chunks"] = read_json(chunk_report)
    out["comparisons"] = compare_runs(params, per_question, k)
    breakdowns = {"question_type": by_qtype, "doc_type": by_dtype}
    write_json(metrics_path, out)
    write_json(breakdown_path, breakdowns)
    write_text(table_path, render_retrieval_report(out, breakdowns, methods, k))
    if plots_dir is not None:
        from .figures import by_question_type_rows, plot_by_question_type, write_rows_csv
        from .report import DISPLAY, ablation_p

        main = [m for m in methods if ablation_p(m) is None]
        rows = by_question_type_rows(breakdowns, main, k)
        write_rows_csv(plots_dir / "by_question_type.csv", rows)
        plot_by_question_type(plots_dir / "by_question_type.png", rows, DISPLAY, k)
    return out


def compare_runs(params: dict, per_question: dict, k: int) -> dict:
    """Paired bootstrap CIs of PageRec@k differences (``evaluate.comparisons``: [a, b] pairs),
    as ``{"a_vs_b": {condition: {...}}}``."""
    from .stats import paired_bootstrap

    out: dict = {}
    for pair in params.get("comparisons", []):
        a, b = pair
        for cond in ("standard", "oracle_doc"):
            if (a, cond) not in per_question or (b, cond) not in per_question:
                continue
            ra = {r["question_id"]: r["PageRec"] for r in per_question[(a, cond)]}
            rb = {r["question_id"]: r["PageRec"] for r in per_question[(b, cond)]}
            qids = sorted(ra)
            ci = paired_bootstrap([ra[q] for q in qids], [rb[q] for q in qids],
                                  n_resamples=int(params.get("bootstrap_resamples", 10000)),
                                  seed=int(params.get("bootstrap_seed", 0)))
            out.setdefault(f"{a}_vs_{b}", {})[cond] = {"metric": f"PageRec@{k}", **ci}
    return out
