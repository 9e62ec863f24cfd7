"""Stage ``evaluate``: score every run of ``evaluate.methods`` (reports/metrics.json, the
retrieval report, per-question records, breakdowns, the figure) and compare runs with
paired bootstrap CIs."""

from __future__ import annotations

import logging
from pathlib import Path

from ..core.io import read_json, read_jsonl, write_json, write_jsonl, write_text
from ..core.params import ParamError, require_int
from ..core.runs import read_run
from ..evaluation.scoring import (
    ChunkLookup,
    aggregate,
    breakdown,
    score_run,
    unscored_records,
)
from ..ingestion import corpus as corpus_mod
from ..ingestion.corpus import Question, read_questions
from ..retrieval.conditions import CONDITIONS

log = logging.getLogger("fingap")


# ---------------------------------------------------------------- evaluate
STATUS_EXTRACTION_FAILED = "extraction_failed"
NOT_SCORED = {corpus_mod.STATUS_NO_GOLD: "no gold evidence: retrieved and answered, not scored"}
NO_GOLD_METRICS = ("no question has gold evidence, so no retrieval metric: every run and answer "
                   "is written, nothing is scored")


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
    from ..evaluation.report import render_retrieval_report
    from ..evaluation.scoring import add_answer_scores, aggregate_answers

    k = require_int(params, "evaluate", "k", minimum=1)
    methods = params.get("methods") or []
    if not methods:
        raise ParamError("evaluate.methods must list at least one method")
    questions = read_questions(corpus_out)
    manifest = read_json(corpus_out / "manifest.json")
    if corpus_params is not None:
        # the questions scored here must be those the manifest hashed: a corpus edited after
        # the corpus stage ran is an error, not silently stale metrics
        corpus_dir = corpus_mod.locate_corpus(corpus_params.get("dir") or None, root,
                                              corpus_mod.CorpusLayout.from_params(corpus_params))
        corpus_mod.verify_inputs(corpus_dir, manifest, corpus_mod.input_names(manifest))
    failed = mark_failed_documents(questions, errors_path)
    write_jsonl(unanswerable_path, (
        {"question_id": q.id, "doc": q.doc, "status": q.status,
         "reason": NOT_SCORED.get(q.status) or failed.get(q.doc, "PDF not in the corpus")}
        for q in questions if q.status != corpus_mod.STATUS_EVALUATED))
    scored = any(q.status == corpus_mod.STATUS_EVALUATED for q in questions)
    chunks = read_jsonl(chunks_path)
    lookup = ChunkLookup.of_chunks(chunks)
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
            run = read_run(path)
            records = score_run(questions, run, lookup, k)
            unscored = unscored_records(questions, run, lookup, k)
            answers_path = None if answers_dir is None else answers_dir / f"{method}__{cond}.jsonl"
            if answers_path is not None and answers_path.exists():
                answers = {r["question_id"]: r for r in read_jsonl(answers_path)}
                add_answer_scores(records, answers, questions)
                for r in unscored:  # the answer, for the answer stage; no gold to score it
                    a = answers[r["question_id"]]
                    r.update({"answer": a["answer"], "answer_error": a.get("error")})
                if records:
                    generation[(method, cond)] = aggregate_answers(records)
            per_question[(method, cond)] = records
            write_jsonl(per_question_dir / f"{method}__{cond}.jsonl", records + unscored)
            metrics.setdefault(method, {})[cond] = aggregate(records, k) if scored else {"n": 0}
            metrics[method][cond].update(generation.get((method, cond), {}))
            by_qtype.setdefault(method, {})[cond] = breakdown(records, "question_type", k)
            by_dtype.setdefault(method, {})[cond] = breakdown(records, "doc_type", k)
    out = dict(metrics)
    out["oracle_gap"] = {
        m: metrics[m]["oracle_doc"][f"PageRec@{k}"] - metrics[m]["standard"][f"PageRec@{k}"]
        for m in methods if scored and {"oracle_doc", "standard"} <= set(metrics[m])
    }
    out["questions"] = {
        "n_total": len(questions),
        "n_evaluated": sum(q.status == corpus_mod.STATUS_EVALUATED for q in questions),
        "n_missing_doc": sum(q.status == corpus_mod.STATUS_MISSING_DOC for q in questions),
        "n_failed_extraction": sum(q.status == STATUS_EXTRACTION_FAILED for q in questions),
        "n_docs_failed": len(failed),
    }
    n_no_gold = sum(q.status == corpus_mod.STATUS_NO_GOLD for q in questions)
    if n_no_gold:  # only then: a corpus without such questions keeps its metrics file
        out["questions"]["n_no_gold"] = n_no_gold
    if not scored:
        out["no_gold"] = NO_GOLD_METRICS
    from .tracking import dataset_digest

    out["dataset_sha256"] = dataset_digest(manifest)
    out["extraction"] = read_json(extract_report)
    out["chunks"] = read_json(chunk_report)
    out["comparisons"] = compare_runs(params, per_question, k) if scored else {}
    breakdowns = {"question_type": by_qtype, "doc_type": by_dtype}
    write_json(metrics_path, out)
    write_json(breakdown_path, breakdowns)
    if not scored:
        write_text(table_path, f"# Retrieval\n\n{NO_GOLD_METRICS}.\n")
        if plots_dir is not None:
            from ..evaluation.figures import plot_nothing_scored, write_rows_csv

            write_rows_csv(plots_dir / "by_question_type.csv", [],
                           ["method", "question_type", f"DocRec@{k}", f"PageRec@{k}", "n"])
            plot_nothing_scored(plots_dir / "by_question_type.png", NO_GOLD_METRICS)
        return out
    write_text(table_path, render_retrieval_report(out, breakdowns, methods, k))
    if plots_dir is not None:
        from ..evaluation.figures import (
            by_question_type_rows,
            plot_by_question_type,
            write_rows_csv,
        )
        from ..evaluation.report import DISPLAY, ablation_p

        main = [m for m in methods if ablation_p(m) is None]
        rows = by_question_type_rows(breakdowns, main, k)
        write_rows_csv(plots_dir / "by_question_type.csv", rows)
        plot_by_question_type(plots_dir / "by_question_type.png", rows, DISPLAY, k)
    return out


def compare_runs(params: dict, per_question: dict, k: int) -> dict:
    """Paired bootstrap CIs of PageRec@k differences (``evaluate.comparisons``: [a, b] pairs),
    as ``{"a_vs_b": {condition: {...}}}``."""
    from ..evaluation.stats import paired_bootstrap

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


def run_headline(params: dict, k: int, metrics_path: Path, answers_path: Path,
                 out_path: Path) -> dict:
    """Stage ``headline``: reports/headline.json, the DVC metrics (fingap.evaluation.headline)."""
    from ..evaluation.headline import headline_metrics

    for key in ("rows", "oracle_doc", "answers"):
        if not isinstance(params.get(key), dict):
            raise ParamError(f"headline.{key} must map short names to runs, got "
                             f"{params.get(key)!r}")
    answers = read_json(answers_path) if answers_path.exists() else None
    out = headline_metrics(read_json(metrics_path), answers, params["rows"],
                           params["oracle_doc"], params["answers"], k)
    write_json(out_path, out)
    return out
