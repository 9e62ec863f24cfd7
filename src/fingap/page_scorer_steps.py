"""Pipeline steps of the learned page scorer (folds, training, page index, Algorithm 1 runs)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from .corpus import STATUS_EVALUATED, Question
from .folds import assign_folds, check_folds, fold_of_question
from .io import atomic_path, read_json, read_jsonl, write_json
from .page_ranking import PageIndex, page_recall_at, reciprocal_rank
from .page_scorer import (
    TrainConfig,
    encode_pages,
    load_bi_encoder,
    page_text,
    save_model,
    train_bi_encoder,
    training_pairs,
)
from .params import ParamError
from .retrievers.page_then_chunk import page_then_chunk
from .runs import write_run

log = logging.getLogger("fingap")


def _questions(corpus_out: Path) -> list[Question]:
    return [Question.from_dict(d) for d in read_jsonl(corpus_out / "questions.jsonl")]


def _pages(pages_path: Path) -> dict[tuple[str, int], str]:
    return {(r["doc"], r["page"]): r["text"] for r in read_jsonl(pages_path)}


# ---------------------------------------------------------------- folds
def run_folds(params: dict, corpus_out: Path, out_path: Path) -> dict:
    folds = assign_folds(_questions(corpus_out), params.get("n_folds"), int(params.get("seed", 0)))
    write_json(out_path, folds)
    log.info("folds: %s test questions per fold",
             [len(f["test_questions"]) for f in folds["folds"]])
    return folds


# ---------------------------------------------------------------- training
def run_train(params: dict, corpus_out: Path, pages_path: Path, folds_path: Path,
              models_dir: Path, report_path: Path) -> dict:
    cfg = TrainConfig.from_params(params)
    max_chars = cfg.max_chars
    questions = _questions(corpus_out)
    folds = read_json(folds_path)
    check_folds(folds, questions)
    pages = _pages(pages_path)
    by_id = {q.id: q for q in questions}
    report: dict = {"config": vars(cfg), "max_chars": max_chars, "folds": []}
    for f in folds["folds"]:
        train_q = [by_id[q] for q in f["train_questions"]]
        # the guard that matters: nothing of a test document reaches this fold's training
        assert not {q.doc for q in train_q} & set(f["test_docs"]), "fold leak"
        pairs = training_pairs(train_q, pages, max_chars)
        model, res = train_bi_encoder(pairs, cfg, seed=cfg.seed + f["fold"])
        out = models_dir / f"fold_{f['fold']}"
        save_model(model, out)
        write_json(out / "fingap_fold.json", {"fold": f["fold"], "test_docs": f["test_docs"],
                                              "train_docs": f["train_docs"]})
        report["folds"].append({
            "fold": f["fold"], "n_pairs": res.n_pairs, "n_steps": res.n_steps,
            "seconds": round(res.seconds, 1),
            "seconds_per_step": round(res.seconds / max(1, res.n_steps), 3),
            "epoch_loss": [round(x, 5) for x in res.epoch_loss],
            "step_loss": [round(x, 5) for x in res.step_loss],
        })
        log.info("fold %d: %d pairs, %d steps, %.0fs", f["fold"], res.n_pairs, res.n_steps,
                 res.seconds)
    write_json(report_path, report)
    return report


# ---------------------------------------------------------------- page index
def run_page_index(variant: str, train_params: dict, pages_path: Path, models_dir: Path,
                   folds_path: Path, out_dir: Path) -> dict:
    """Embed every page with each fold's model (``trained``) or once with the base model
    (``untrained``: the same pipeline without fine-tuning)."""
    cfg = TrainConfig.from_params(train_params)
    pages = _pages(pages_path)
    keys = sorted(pages)
    texts = [page_text(pages[k], cfg.max_chars) for k in keys]
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "keys.json", [list(k) for k in keys])
    stats: dict = {"variant": variant, "n_pages": len(keys), "encode": []}
    if variant == "untrained":
        models = {"base": load_bi_encoder(cfg.model, cfg.max_seq_length)}
    elif variant == "trained":
        n = read_json(folds_path)["n_folds"]
        models = {f"fold_{i}": load_bi_encoder(str(models_dir / f"fold_{i}"), cfg.max_seq_length)
                  for i in range(n)}
    else:
        raise ParamError(f"unknown page index variant {variant!r}")
    for name, model in models.items():
        t0 = time.perf_counter()
        emb = encode_pages(model, texts, cfg.precision)
        dt = time.perf_counter() - t0
        with atomic_path(out_dir / f"{name}.npy") as tmp, open(tmp, "wb") as fh:
            np.save(fh, emb)
        stats["encode"].append({"model": name, "seconds": round(dt, 1),
                                "pages_per_s": round(len(texts) / dt, 2)})
        log.info("page index %s/%s: %d pages in %.0fs", variant, name, len(texts), dt)
    write_json(out_dir / "stats.json", stats)
    return stats


# ---------------------------------------------------------------- retrieval (Algorithm 1)
def _page_allowed(cond: str, q: Question, keys: list[tuple[str, int]],
                  rows_by_doc: dict[str, list[int]], row_of: dict) -> np.ndarray | None:
    if cond == "standard":
        return None
    if cond == "oracle_doc":
        return np.array(sorted(i for d in q.gold_docs for i in rows_by_doc.get(d, [])),
                        dtype=np.int64)
    return np.array(sorted(row_of[k] for k in q.gold_pages if k in row_of), dtype=np.int64)


def rank_pages(variant: str, index_dir: Path, folds: dict, questions: list[Question],
               train_params: dict, models_dir: Path, cond: str, top: int) -> dict:
    """Ranked pages per question, each question scored by the model of its held-out fold."""
    cfg = TrainConfig.from_params(train_params)
    keys = [tuple(k) for k in read_json(index_dir / "keys.json")]
    row_of = {k: i for i, k in enumerate(keys)}
    rows_by_doc: dict[str, list[int]] = {}
    for i, (d, _) in enumerate(keys):
        rows_by_doc.setdefault(d, []).append(i)
    fold_of = fold_of_question(folds)
    out = {}
    groups: dict[str, list[Question]] = {}
    for q in questions:
        name = "base" if variant == "untrained" else f"fold_{fold_of[q.id]}"
        groups.setdefault(name, []).append(q)
    for name, qs in sorted(groups.items()):
        model_path = cfg.model if name == "base" else str(models_dir / name)
        model = load_bi_encoder(model_path, cfg.max_seq_length)
        index = PageIndex(keys, np.load(index_dir / f"{name}.npy"))
        qv = encode_pages(model, [q.question for q in qs], cfg.precision, show_progress=False)
        for q, v in zip(qs, qv, strict=True):
            allowed = _page_allowed(cond, q, keys, rows_by_doc, row_of)
            out[q.id] = index.rank(v, top, allowed)
    return out


def run_page_retrieve(method: str, variant: str, P: int, params: dict, train_params: dict,
                      retrieve_params: dict, dense_params: dict, corpus_out: Path,
                      chunks_path: Path, folds_path: Path, models_dir: Path, index_dir: Path,
                      dense_index: Path, out_dir: Path, report_path: Path) -> dict:
    """Algorithm 1 runs of one method (a page index variant and a P) under every condition."""
    from .conditions import allowed_rows
    from .pipeline import load_retriever, validate_retrieve

    if not isinstance(P, int) or P <= 0:
        raise ParamError(f"page_scorer.P must be a positive integer, got {P!r}")
    k, conditions = validate_retrieve(retrieve_params)
    chunk_method = params.get("chunk_retriever", "dense")
    all_questions = _questions(corpus_out)
    questions = [q for q in all_questions if q.status == STATUS_EVALUATED]
    folds = read_json(folds_path)
    check_folds(folds, all_questions)
    chunks = read_jsonl(chunks_path)
    chunk_keys = [(c["doc"], c["page"]) for c in chunks]
    retriever = load_retriever(chunk_method, dense_params, dense_index)
    if retriever.ids != [c["chunk_id"] for c in chunks]:
        raise RuntimeError(f"{dense_index} does not match {chunks_path}; rerun its index stage")
    queries = {q.id: q.question for q in questions}
    fold_of = fold_of_question(folds)
    report: dict = {"method": method, "variant": variant, "P": P, "chunk_retriever": chunk_method,
                    "conditions": {}}
    for cond in conditions:
        ranked = rank_pages(variant, index_dir, folds, questions, train_params, models_dir, cond,
                            max(P, 20))
        allowed = allowed_rows(cond, questions, [d for d, _ in chunk_keys],
                               [p for _, p in chunk_keys])
        run = page_then_chunk(ranked, P, retriever, queries, k, chunk_keys, allowed)
        write_run(out_dir / f"{cond}.json", run)
        report["conditions"][cond] = page_ranking_quality(questions, ranked, fold_of,
                                                          sorted({5, 10, 20, P}))
    write_json(report_path, report)
    return report


def page_ranking_quality(questions: list[Question], ranked: dict, fold_of: dict[str, int],
                         cutoffs: list[int]) -> dict:
    """PageRec@n of the page ranking and MRR of the first gold page (0 beyond the largest
    cutoff), overall and per fold."""
    def summarise(qs):
        row = {f"PageRec@{n}": float(np.mean([page_recall_at(q.gold_pages,
                                                             [k for k, _ in ranked[q.id]], n)
                                              for q in qs])) for n in cutoffs}
        row[f"MRR@{max(cutoffs)}"] = float(np.mean([
            reciprocal_rank(q.gold_pages, [k for k, _ in ranked[q.id]][:max(cutoffs)])
            for q in qs]))
        row["n"] = len(qs)
        return row

    out = {"overall": summarise(questions)}
    for f in sorted(set(fold_of.values())):
        out[f"fold_{f}"] = summarise([q for q in questions if fold_of[q.id] == f])
    return out

