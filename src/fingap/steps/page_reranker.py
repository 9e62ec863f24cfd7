"""Pipeline steps of the page reranker (#14 part 3): its per-fold training
(``train_page_reranker``) and the reranking of the hard-negative page scorer's top pages at
query time (the ``page_reranker*`` rows of ``retrieve_zoo``).

Both sides see a page the same way: as the window that the question's fold's hard-negative
scorer likes best (fingap.retrieval.page_rerank). Fold isolation: the reranker of fold f trains
on fold f's training documents only, mining with the hard-negative scorer of the same fold, and
scores only questions on fold f's test documents (asserted from ``fingap_fold.json``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ..core.io import read_json, write_json
from ..ingestion.corpus import Question, read_questions
from ..ingestion.extract import read_page_texts
from ..retrieval.page_ranking import encode_pages, encode_queries, load_bi_encoder
from ..retrieval.page_rerank import WindowPicker, rerank_pages
from ..retrieval.page_windows import PageWindowTexts, WindowConfig, best_window
from ..training.folds import (
    FoldLeak,
    check_fold_model,
    fold_metadata,
    fold_training_record,
    fold_training_sets,
    untrained_fold_model,
    untrained_fold_record,
)
from ..training.hard_negatives import mine_negatives, rank_by_scores, split_validation
from ..training.page_reranker import (
    PageRerankerConfig,
    training_examples,
    validation_samples,
)
from ..training.page_scorer import TrainConfig
from .page_scorer_hn import HardNegativeConfig

log = logging.getLogger("fingap")
PageKey = tuple[str, int]


def fold_picker(model_dir: Path, fold: int, train: TrainConfig,
                windows_of: PageWindowTexts) -> WindowPicker:
    """Best windows by the hard-negative scorer of ``fold`` (checked to be that fold's)."""
    meta = read_json(model_dir / "fingap_fold.json")
    if meta["fold"] != fold:
        raise RuntimeError(f"{model_dir} is the model of fold {meta['fold']}, not {fold}")
    model = load_bi_encoder(str(model_dir), train.max_seq_length)
    return WindowPicker(lambda texts: encode_pages(model, texts, train.precision,
                                                   show_progress=False), windows_of)


# ---------------------------------------------------------------- training
def run_train_page_reranker(params: dict, paths: Mapping[str, Path], models_dir: Path,
                            report_path: Path, report_to: tuple[str, ...] = ()) -> dict:
    """One cross-encoder per fold over (question, page window); validated on the hard-negative
    scorer's validation documents of the same fold (the same split, so neither model saw
    them), early-stopped on MRR over the scorer's top ``page_reranker.candidates`` pages."""
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderRerankingEvaluator

    from ..retrieval.reranking import load_cross_encoder
    from ..training.page_reranker import VAL_NAME
    from ..training.reranker import save_cross_encoder, train_cross_encoder

    cfg = PageRerankerConfig.from_params(params["page_reranker"])
    hn = HardNegativeConfig.from_params(params["page_scorer_hn"])
    train = TrainConfig.from_params(params["page_scorer_train"])
    windows = WindowConfig.from_params(params["page_windows"], "page_windows")
    pages = read_page_texts(paths["pages"])
    windows_of = PageWindowTexts(pages, train.model, train.max_seq_length, windows)
    keys = [tuple(k) for k in read_json(paths["page_index_hn"] / "keys.json")]
    report: dict = {"config": asdict(cfg), "windows": asdict(windows), "folds": []}
    folds, questions = read_json(paths["folds"]), read_questions(paths["corpus"])
    for f, train_q in fold_training_sets(folds, questions):
        fold = f["fold"]
        fallback = untrained_fold_model(f, "page_reranker", cfg.model)
        if fallback is not None:  # no gold evidence: the named (or base) model, as it is
            out = models_dir / f"fold_{fold}"
            save_cross_encoder(load_cross_encoder(fallback, cfg.max_length, cfg.seed), out)
            write_json(out / "fingap_fold.json", fold_metadata(f))
            report["folds"].append(untrained_fold_record(f, fallback, cfg.model))
            continue
        fit_q, val_q = split_validation(train_q, hn.val_fraction, hn.seed + fold)
        used = {q.doc for q in fit_q + val_q}
        if used & set(f["test_docs"]):
            raise FoldLeak(f"page reranker fold {fold}: test documents in training "
                           f"{sorted(used & set(f['test_docs']))}")
        model_dir = paths["page_models_hn"] / f"fold_{fold}"
        picker = fold_picker(model_dir, fold, train, windows_of)
        qv = dict(zip([q.id for q in fit_q + val_q], encode_queries(
            str(model_dir), [q.question for q in fit_q + val_q], train.max_seq_length,
            train.precision), strict=True))
        emb = np.load(paths["page_index_hn"] / f"fold_{fold}.npy")
        ranked = rank_by_scores(keys, lambda q, emb=emb, qv=qv: emb @ qv[q.id])
        mined, counts = mine_negatives(fit_q, ranked, pages, cfg.negatives,
                                       hn.false_negative_recall)
        positives = _evidence_windows(fit_q, windows_of)
        negatives = {q.id: list(zip(mined[q.id], picker.best(qv[q.id], mined[q.id]),
                                    strict=True)) for q in fit_q}
        examples = training_examples(fit_q, positives, negatives)
        candidates, gold = {}, {}
        for q in val_q:
            top = ranked(q)[: cfg.candidates]
            candidates[q.id] = list(zip(top, picker.best(qv[q.id], top), strict=True))
            in_pages = [k for k in q.gold_pages if k in pages]
            gold |= {(q.id, k): t for k, t in zip(in_pages, picker.best(qv[q.id], in_pages),
                                                   strict=True)}
        samples = validation_samples(val_q, candidates, gold)
        evaluator = None
        if samples:
            evaluator = CrossEncoderRerankingEvaluator(
                samples, at_k=cfg.candidates, always_rerank_positives=False, name=VAL_NAME,
                write_csv=False, batch_size=32)
        else:  # no gold page text among the validation documents: train all epochs, unchecked
            log.warning("page reranker fold %d: no validation sample; no early stopping", fold)
        model, res = train_cross_encoder(examples, cfg, seed=cfg.seed + fold,
                                         report_to=report_to, run_name=f"fold_{fold}",
                                         evaluator=evaluator,
                                         metric=cfg.metric if evaluator else None,
                                         patience=cfg.patience)
        out = models_dir / f"fold_{fold}"
        save_cross_encoder(model, out)
        val_docs = sorted({q.doc for q in val_q})
        write_json(out / "fingap_fold.json", fold_metadata(f, validation_docs=val_docs))
        report["folds"].append(fold_training_record(
            f, res, n_examples=res.n_examples,
            n_positives=sum(1 for e in examples if e[2] == 1.0),
            n_validation_questions=len(samples), validation_docs=val_docs, mining=counts,
            best_epoch=res.best_epoch, epochs_run=len(res.epoch_loss), val_curve=res.val_curve))
        log.info("page reranker fold %d: best epoch %s of %d", fold, res.best_epoch,
                 len(res.epoch_loss))
    report["learning_curve"] = learning_curve(report["folds"], cfg.metric)
    write_json(report_path, report)
    return report


def _evidence_windows(questions: Sequence[Question], windows_of: PageWindowTexts
                      ) -> dict[tuple[str, PageKey], str]:
    """Each gold page's window sharing most words with that page's gold evidence."""
    out = {}
    for q in questions:
        for key in q.gold_pages:
            if key not in windows_of.pages:
                continue
            evidence = " ".join(e.text for e in q.evidence if (e.doc, e.page) == key)
            ws = windows_of(key)
            out[(q.id, key)] = ws[best_window(ws, evidence)]
    return out


def learning_curve(folds: Sequence[dict], metric: str) -> list[dict]:
    """Per epoch, over the folds that ran it: the reranked validation MRR and the first
    stage's (the same for every epoch: what the reranker must beat)."""
    base = metric.replace("_mrr@", "_base_mrr@")
    folds = [f for f in folds if f.get("trained", True)]
    rows = []
    for e in sorted({r["epoch"] for f in folds for r in f["val_curve"]}):
        at = [r for f in folds for r in f["val_curve"] if r["epoch"] == e]
        rows.append({"epoch": e, "folds": len(at),
                     "reranked": round(float(np.mean([r[metric] for r in at])), 4),
                     "first_stage": round(float(np.mean([r.get(base, 0.0) for r in at])), 4)})
    return rows


# ---------------------------------------------------------------- query time
def rerank_with_folds(ranked: Mapping[str, Sequence[tuple[PageKey, float]]],
                      questions: Sequence[Question], fold_of: Mapping[str, int],
                      pickers: Mapping[int, WindowPicker], query_vectors: Mapping[str, np.ndarray],
                      scorer_of, n: int) -> dict:
    """Each question's first ``n`` pages reranked by ``scorer_of(fold)`` (a
    ``CrossEncoderReranker``) over the windows its fold's scorer picks."""
    out = {}
    for q in questions:
        fold = fold_of[q.id]
        top = [k for k, _ in ranked[q.id][:n]]
        texts = pickers[fold].best(query_vectors[q.id], top)
        scores = scorer_of(fold).score([(q.question, t) for t in texts]) if top else []
        out[q.id] = rerank_pages(ranked[q.id], scores, n)
    return out


def check_reranker_fold(model_dir: Path, fold: int, docs: set[str]) -> None:
    """The fold's reranker never trained on these documents."""
    check_fold_model(model_dir, fold, docs, "page reranker")
