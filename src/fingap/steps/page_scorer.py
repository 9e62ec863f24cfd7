"""Pipeline steps of the learned page scorer (folds, training, page index, Algorithm 1 runs)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..core.compute import LOCAL, Compute
from ..core.io import atomic_path, read_json, read_jsonl, write_json
from ..core.params import ParamError
from ..core.runs import write_run
from ..ingestion.corpus import STATUS_EVALUATED, Question, read_questions, served
from ..ingestion.extract import read_page_texts
from ..retrieval.page_ranking import (
    encode_texts,
    fold_models,
    load_bi_encoder,
    page_recall_at,
    page_text,
    rank_pages,
    reciprocal_rank,
)
from ..retrieval.page_then_chunk import page_then_chunk
from ..retrieval.page_windows import WindowConfig, windowed_pages
from ..training.folds import (
    assign_folds,
    check_folds,
    fold_metadata,
    fold_of_question,
    fold_training_record,
    fold_training_sets,
    is_no_gold,
    untrained_fold_model,
    untrained_fold_record,
)
from ..training.page_scorer import TrainConfig, save_model, train_bi_encoder, training_pairs

log = logging.getLogger("fingap")


# ---------------------------------------------------------------- folds
def run_folds(params: dict, corpus_out: Path, out_path: Path) -> dict:
    folds = assign_folds(read_questions(corpus_out), params.get("n_folds"),
                         int(params.get("seed", 0)), params.get("no_gold_models"))
    write_json(out_path, folds)
    if is_no_gold(folds):
        log.warning("folds: %s; one fold serves the %d questions with the models of "
                    "folds.no_gold_models (the base model where empty)", folds["no_gold"],
                    len(folds["folds"][0]["serve_questions"]))
    log.info("folds: %s test questions per fold",
             [len(f["test_questions"]) for f in folds["folds"]])
    return folds


# ---------------------------------------------------------------- training
def run_train(params: dict, corpus_out: Path, pages_path: Path, folds_path: Path,
              models_dir: Path, report_path: Path, report_to: tuple[str, ...] = ()) -> dict:
    """The paper's page scorer: per fold, in-batch MNR on the fold's training documents.
    ``report_to``: the trainer's integrations (``("mlflow",)``: a nested run per fold)."""
    cfg = TrainConfig.from_params(params)
    pages = read_page_texts(pages_path)
    report: dict = {"config": vars(cfg), "max_chars": cfg.max_chars, "folds": []}
    for f, train_q in fold_training_sets(read_json(folds_path), read_questions(corpus_out)):
        out = models_dir / f"fold_{f['fold']}"
        fallback = untrained_fold_model(f, "page_scorer", cfg.model)
        if fallback is not None:  # no gold evidence: the named (or base) model, as it is
            save_model(load_bi_encoder(fallback, cfg.max_seq_length), out)
            write_json(out / "fingap_fold.json", fold_metadata(f))
            report["folds"].append(untrained_fold_record(f, fallback, cfg.model))
            log.warning("fold %d: no training (no gold evidence); model %s", f["fold"], fallback)
            continue
        pairs = training_pairs(train_q, pages, cfg.max_chars)
        model, res = train_bi_encoder(pairs, cfg, seed=cfg.seed + f["fold"], report_to=report_to,
                                      run_name=f"fold_{f['fold']}")
        save_model(model, out)
        write_json(out / "fingap_fold.json", fold_metadata(f))
        report["folds"].append(fold_training_record(f, res, n_pairs=res.n_pairs))
        log.info("fold %d: %d pairs, %d steps, %.0fs", f["fold"], res.n_pairs, res.n_steps,
                 res.seconds)
    write_json(report_path, report)
    return report


# ---------------------------------------------------------------- page index
def run_page_index(variant: str, train_params: dict, pages_path: Path, models_dir: Path,
                   folds_path: Path, out_dir: Path, windows: WindowConfig | None = None,
                   compute: Compute = LOCAL) -> dict:
    """Embed every page with each fold's model (``trained``) or once with the base model
    (``untrained``: the same pipeline without fine-tuning). With ``windows``, every window of
    every page (``window_page.npy`` and ``window_tokens.npy`` map the rows to pages).
    ``compute``: where the encoding runs."""
    cfg = TrainConfig.from_params(train_params)
    pages = read_page_texts(pages_path)
    keys = sorted(pages)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "keys.json", [list(k) for k in keys])
    stats: dict = {"variant": variant, "n_pages": len(keys), "encode": []}
    if variant == "untrained":
        models = {"base": cfg.model}
    elif variant == "trained":
        n = read_json(folds_path)["n_folds"]
        models = {f"fold_{i}": str(models_dir / f"fold_{i}") for i in range(n)}
    else:
        raise ParamError(f"unknown page index variant {variant!r}")
    if windows is None:
        texts = [page_text(pages[k], cfg.max_chars) for k in keys]
    else:
        # every fold model keeps the base model's tokenizer, so the windows are the same
        tokenizer = load_bi_encoder(next(iter(models.values())), cfg.max_seq_length).tokenizer
        texts, window_page, window_tokens = windowed_pages(
            pages, keys, tokenizer, cfg.max_seq_length, windows)
        for name, arr in (("window_page", window_page), ("window_tokens", window_tokens)):
            with atomic_path(out_dir / f"{name}.npy") as tmp, open(tmp, "wb") as fh:
                np.save(fh, arr)
        stats["windows"] = {"n_windows": len(texts), "overlap": windows.overlap,
                            "normalise": windows.normalise,
                            "windows_per_page": round(len(texts) / max(len(keys), 1), 2)}
    for name, model in models.items():
        t0 = time.perf_counter()
        emb, job = encode_texts(model, texts, cfg.max_seq_length, cfg.precision, compute)
        dt = time.perf_counter() - t0
        with atomic_path(out_dir / f"{name}.npy") as tmp, open(tmp, "wb") as fh:
            np.save(fh, emb)
        stats["encode"].append({"model": name, "seconds": round(dt, 1),
                                "pages_per_s": round(len(keys) / dt, 2)})
        if windows is not None:
            stats["encode"][-1]["windows_per_s"] = round(len(texts) / dt, 2)
        log.info("page index %s/%s: %d pages (%d texts) in %.0fs on %s", variant, name,
                 len(keys), len(texts), dt, job["engine"])
    # the encoders' speeds are wall times: returned (the stage records them in its timing
    # record) but not written, so the index is the same bytes on every run
    write_json(out_dir / "stats.json",
               dict(stats, encode=[{"model": e["model"]} for e in stats["encode"]]))
    return stats


def run_page_retrieve(method: str, variant: str, P: int, params: dict, train_params: dict,
                      retrieve_params: dict, dense_params: dict, corpus_out: Path,
                      chunks_path: Path, folds_path: Path, models_dir: Path, index_dir: Path,
                      dense_index: Path, out_dir: Path, report_path: Path,
                      cache_path: Path | None = None, routing_path: Path | None = None,
                      top_docs: int | None = None, aggregate: str = "maxp") -> dict:
    """Algorithm 1 runs of one method (a page index variant and a P) under every condition;
    query embeddings go through the embedding cache at ``cache_path``. With ``routing_path``
    (the route_docs stage's ranking) the standard condition ranks only the pages of each
    question's ``top_docs`` routed documents; the oracle conditions already name theirs.
    ``aggregate``: how a windowed page index scores a page (maxp or mean)."""
    from ..retrieval.ann import ann_config
    from ..retrieval.conditions import allowed_rows
    from ..retrieval.loading import load_retriever
    from .retrieve import validate_retrieve

    if not isinstance(P, int) or P <= 0:
        raise ParamError(f"page_scorer.P must be a positive integer, got {P!r}")
    k, conditions = validate_retrieve(retrieve_params)
    chunk_method = params.get("chunk_retriever", "dense")
    all_questions = read_questions(corpus_out)
    questions = served(all_questions)
    folds = read_json(folds_path)
    check_folds(folds, all_questions)
    chunks = read_jsonl(chunks_path)
    chunk_keys = [(c["doc"], c["page"]) for c in chunks]
    retriever = load_retriever(chunk_method, dense_params, dense_index, cache_path,
                               retrieve_params)
    if retriever.ids != [c["chunk_id"] for c in chunks]:
        raise RuntimeError(f"{dense_index} does not match {chunks_path}; rerun its index stage")
    queries = {q.id: q.question for q in questions}
    fold_of = fold_of_question(folds)
    report: dict = {"method": method, "variant": variant, "P": P, "chunk_retriever": chunk_method,
                    "conditions": {}}
    cfg = TrainConfig.from_params(train_params)
    model_of, model_paths = fold_models(variant, fold_of, questions, cfg.model, models_dir)
    routed = None
    if routing_path is not None:
        if not isinstance(top_docs, int) or top_docs < 1:
            raise ParamError(f"routing.top_docs must be a positive integer, got {top_docs!r}")
        from ..retrieval.doc_routing import routed_documents

        routed = routed_documents(read_json(routing_path), [q.id for q in questions], top_docs)
        report["routing"] = {"top_docs": top_docs}
    for cond in conditions:
        ranked = rank_pages(index_dir, questions, model_of, model_paths, cfg.max_seq_length,
                            cfg.precision, cond, max(P, 20), cache_path,
                            routed if cond == "standard" else None, aggregate,
                            ann_config(retrieve_params))
        allowed = allowed_rows(cond, questions, [d for d, _ in chunk_keys],
                               [p for _, p in chunk_keys])
        run = page_then_chunk(ranked, P, retriever, queries, k, chunk_keys, allowed)
        write_run(out_dir / f"{cond}.json", run)
        report["conditions"][cond] = page_ranking_quality(
            [q for q in questions if q.status == STATUS_EVALUATED], ranked, fold_of,
            sorted({5, 10, 20, P}))
    write_json(report_path, report)
    return report


def page_ranking_quality(questions: list[Question], ranked: dict, fold_of: dict[str, int],
                         cutoffs: list[int]) -> dict:
    """PageRec@n of the page ranking and MRR of the first gold page (0 beyond the largest
    cutoff), overall and per fold, over the questions with gold evidence."""
    def summarise(qs):
        if not qs:  # no gold evidence: nothing to score
            return {"n": 0}
        row = {f"PageRec@{n}": float(np.mean([page_recall_at(q.gold_pages,
                                                             [k for k, _ in ranked[q.id]], n)
                                              for q in qs])) for n in cutoffs}
        row[f"MRR@{max(cutoffs)}"] = float(np.mean([
            reciprocal_rank(q.gold_pages, [k for k, _ in ranked[q.id]][:max(cutoffs)])
            for q in qs]))
        row["n"] = len(qs)
        return row

    out = {"overall": summarise(questions)}
    for f in sorted({fold_of[q.id] for q in questions}):
        out[f"fold_{f}"] = summarise([q for q in questions if fold_of[q.id] == f])
    return out

