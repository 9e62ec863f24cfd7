"""Pipeline step of the hard-negative page scorer (beyond the paper).

Per document-grouped fold, on the fold's training documents only:
1. carve a validation split of whole documents out of them;
2. mine hard negatives for the remaining (fit) questions: non-gold pages of the same document
   ranked high by the fold's in-batch page scorer (``mine_with: scorer``) or by BM25 over pages;
3. train a fresh base model with MNR over in-batch positives plus those negatives, validating
   after every epoch on the validation documents, keeping the best epoch and stopping after
   ``patience`` epochs without improvement.
The per-epoch validation curves and their cost are the epochs study (reports/page_scorer_hn*).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..answers.fact_store import FactStore
from ..core.io import read_json, read_jsonl, write_json, write_jsonl, write_text
from ..core.params import ParamError, section
from ..evaluation.epochs_report import render_epochs_report
from ..ingestion.corpus import Evidence, Question, read_questions
from ..ingestion.extract import read_page_texts
from ..retrieval.page_ranking import encode_pages, load_bi_encoder, page_text
from ..retrieval.page_windows import PageWindowTexts, WindowConfig, best_window
from ..training.folds import (
    FoldLeak,
    fold_metadata,
    fold_training_record,
    fold_training_sets,
    untrained_fold_model,
    untrained_fold_record,
)
from ..training.hard_negatives import (
    MINERS,
    mine_negatives,
    rank_by_scores,
    split_validation,
)
from ..training.page_scorer import (
    VAL_METRICS,
    TrainConfig,
    Validation,
    check_attention_dropout,
    save_model,
    train_bi_encoder,
    training_pairs,
)
from ..training.synthetic_questions import qualifies, template_questions
from .tracked_training import run_tracked_training

log = logging.getLogger("fingap")


@dataclass
class HardNegativeConfig:
    epochs: int = 8                 # most epochs; early stopping may end a fold sooner
    patience: int | None = 3        # epochs without validation gain before stopping; null: never
    metric: str = "MRR@20"          # validation metric that picks the epoch
    val_fraction: float = 0.15      # share of a fold's training documents held out
    mine_with: str = "scorer"       # scorer (the fold's in-batch page scorer) | bm25 (k1 1.5,
                                    # b 0.75: fixed, so a bm25 sweep never retrains this)
    mine_top: int = 10              # negatives drawn from this many top non-gold pages
    negatives_per_pair: int = 1
    false_negative_recall: float = 0.8  # see fingap.training.hard_negatives
    seed: int = 13
    synthetic_per_doc: int = 0      # fact-store questions added per training document (0: none)
    val_candidates: int | None = None  # validate on each question's top-N pages by the miner
                                       # (and its gold pages); None: every validation page
    attention_dropout: float | None = None  # this scorer's training only; None:
                                            # page_scorer_train.attention_dropout's

    @classmethod
    def from_params(cls, p: dict) -> HardNegativeConfig:
        unknown = set(p) - set(cls.__dataclass_fields__)
        if unknown:
            raise ParamError(f"page_scorer_hn: unknown keys {sorted(unknown)}")
        cfg = cls(**p)
        if not isinstance(cfg.epochs, int) or cfg.epochs < 1:
            raise ParamError(f"page_scorer_hn.epochs must be an integer >= 1, got {cfg.epochs!r}")
        if cfg.patience is not None and (not isinstance(cfg.patience, int) or cfg.patience < 1):
            raise ParamError(f"page_scorer_hn.patience must be null or >= 1: {cfg.patience!r}")
        if cfg.metric not in VAL_METRICS:
            raise ParamError(f"page_scorer_hn.metric must be one of {sorted(VAL_METRICS)}: "
                             f"{cfg.metric!r}")
        if cfg.mine_with not in MINERS:
            raise ParamError(f"page_scorer_hn.mine_with must be one of {MINERS}: "
                             f"{cfg.mine_with!r}")
        if cfg.mine_top < 1 or cfg.negatives_per_pair < 0:
            raise ParamError("page_scorer_hn: need mine_top >= 1 and negatives_per_pair >= 0")
        if not 0 < cfg.false_negative_recall <= 1:
            raise ParamError("page_scorer_hn.false_negative_recall must be in (0, 1]")
        if not isinstance(cfg.synthetic_per_doc, int) or cfg.synthetic_per_doc < 0:
            raise ParamError("page_scorer_hn.synthetic_per_doc must be an integer >= 0, got "
                             f"{cfg.synthetic_per_doc!r}")
        if cfg.val_candidates is not None and (not isinstance(cfg.val_candidates, int)
                                               or cfg.val_candidates < 1):
            raise ParamError("page_scorer_hn.val_candidates must be null or an integer >= 1, "
                             f"got {cfg.val_candidates!r}")
        if not 0 < cfg.val_fraction < 1:
            raise ParamError(f"page_scorer_hn.val_fraction must be in (0, 1): {cfg.val_fraction}")
        check_attention_dropout(cfg.attention_dropout, "page_scorer_hn")
        return cfg

    def train_config(self, train_params: dict) -> TrainConfig:
        """page_scorer_train's config with this scorer's epochs and, where set, its attention
        dropout (the paper's scorer keeps its own)."""
        own = {"epochs": self.epochs}
        if self.attention_dropout is not None:
            own["attention_dropout"] = self.attention_dropout
        return TrainConfig.from_params({**train_params, **own})


class _Miner:
    """Ranks a question's document pages for mining, fold by fold."""

    def __init__(self, cfg: HardNegativeConfig, train: TrainConfig, pages: dict,
                 mining_models: Path, mining_index: Path):
        self.cfg, self.train, self.pages = cfg, train, pages
        self.models, self.index = mining_models, mining_index
        self._bm25 = None

    def ranker(self, fold: int, questions: list):
        if self.cfg.mine_with == "bm25":
            return self._bm25_ranker(questions)
        keys = [tuple(k) for k in read_json(self.index / "keys.json")]
        meta = read_json(self.models / f"fold_{fold}" / "fingap_fold.json")
        if meta["fold"] != fold:
            raise RuntimeError(f"{self.models}/fold_{fold} is the model of fold {meta['fold']}")
        model = load_bi_encoder(str(self.models / f"fold_{fold}"), self.train.max_seq_length)
        emb = np.load(self.index / f"fold_{fold}.npy")
        qv = encode_pages(model, [q.question for q in questions], self.train.precision,
                          show_progress=False)
        by_id = {q.id: v for q, v in zip(questions, qv, strict=True)}
        return rank_by_scores(keys, lambda q: emb @ by_id[q.id])

    def _bm25_ranker(self, questions: list):
        from ..retrieval.bm25 import BM25Retriever

        keys = sorted(self.pages)
        if self._bm25 is None:
            self._bm25 = BM25Retriever.from_texts([f"{d}#{p}" for d, p in keys],
                                                  [self.pages[k] for k in keys])
        scores = dict(zip([q.id for q in questions],
                          self._bm25.score([q.question for q in questions]), strict=True))
        return rank_by_scores(keys, lambda q: scores[q.id])


class _WholePages:
    """The scorer's view of whole pages: each page's windows (computed once), a pair's
    positive as its gold page's window sharing most words with that page's gold evidence, and
    every window of a mined page in the pair's negative pool."""

    def __init__(self, pages: dict, train: TrainConfig, windows: WindowConfig):
        self.pages = pages
        self.windows = PageWindowTexts(pages, train.model, train.max_seq_length, windows)

    def positives(self, pairs: list, questions: list) -> list:
        by_id = {q.id: q for q in questions}
        out = []
        for qid, question, _, key in pairs:
            evidence = " ".join(e.text for e in by_id[qid].evidence if (e.doc, e.page) == key)
            ws = self.windows(key)
            best = best_window(ws, evidence)
            out.append((qid, question, ws[best], key))
        return out

    def pool(self, keys) -> list[tuple[str, tuple]]:
        return [(t, k) for k in keys for t in self.windows(k)]

    def validation(self, questions: list, metric: str, patience: int | None) -> Validation:
        docs = {q.doc for q in questions}
        return Validation.of_windows(
            questions, {k: self.windows(k) for k in self.pages if k[0] in docs}, metric, patience)


# the fact-store columns synthetic questions are templated from
SYNTHETIC_FACT_FIELDS = ("doc", "page", "tbl", "label", "concept", "concept_rank", "percent",
                         "fiscal_year")


def run_synthetic_facts(hn_params: dict, facts_db: Path, out_path: Path) -> int:
    """The fact-store facts synthetic questions may be templated from (a recognised line item,
    an amount, a fiscal year), or none when ``page_scorer_hn.synthetic_per_doc`` is 0: the hard-
    negative stages read this file, not the store, so a fact-store change retrains them only
    when synthetic questions are on."""
    cfg = HardNegativeConfig.from_params(hn_params)
    rows: list[dict] = []
    if cfg.synthetic_per_doc:
        with FactStore(facts_db) as store:
            rows = [{k: f.get(k) for k in SYNTHETIC_FACT_FIELDS} for f in store.iter_all()
                    if qualifies(f)]
    return write_jsonl(out_path, rows)


def synthetic_pairs_questions(facts: list[dict], company_of: dict[str, str], fold: dict,
                              val_docs: set[str], per_doc: int, seed: int) -> list[Question]:
    """Fact-store questions (fingap.training.synthetic_questions) for the fold's training
    documents that are not held out for validation, as questions whose gold page is the
    statement page; the evidence text is the line item, so on whole pages the positive is the
    window that prints it. The fold's test and validation documents are refused (FoldLeak)."""
    train_docs = sorted(set(fold["train_docs"]) - val_docs)
    held_out = sorted(set(fold["test_docs"]) | val_docs)
    return [Question(s.id, company_of[s.doc], s.doc, "", "synthetic", "", s.question, "",
                     [Evidence(s.doc, s.page, f"{s.item} {s.fiscal_year}", "")])
            for s in template_questions(facts, company_of, train_docs, held_out, per_doc,
                                        seed)]


def doc2query_pairs_questions(rows: list[dict], company_of: dict[str, str], fold: dict,
                              val_docs: set[str]) -> list[Question]:
    """The doc2query stage's questions for this fold (fingap.training.doc2query), each with its
    page as the gold page and the question as the evidence text (on whole pages the positive is
    the window closest to the question). A question on a document outside the fold's training
    documents that are not held out for validation raises FoldLeak."""
    mine = [r for r in rows if r["fold"] == fold["fold"]]
    allowed = set(fold["train_docs"]) - val_docs
    leak = sorted({r["doc"] for r in mine} - allowed)
    if leak:
        raise FoldLeak(f"fold {fold['fold']}: doc2query questions on held-out documents {leak}")
    return [Question(r["id"], company_of[r["doc"]], r["doc"], "", "doc2query", "",
                     r["question"], "", [Evidence(r["doc"], r["page"], r["question"], "")])
            for r in mine]


def run_train_hn(train_params: dict, hn_params: dict, corpus_out: Path, pages_path: Path,
                 folds_path: Path, mining_models: Path, mining_index: Path, models_dir: Path,
                 report_path: Path, eval_epochs: list[int] | None = None,
                 report_to: tuple[str, ...] = (), windows: WindowConfig | None = None,
                 facts_path: Path | None = None, doc2query_path: Path | None = None) -> dict:
    """``eval_epochs``: validate only after these epochs (the epochs study of
    studies/study_hard_negatives.py); default every epoch. ``report_to``: the trainer's
    integrations (``("mlflow",)``: a nested run per fold). ``windows``: train on whole pages
    (fingap.retrieval.page_windows) instead of each page's first max_chars characters; mining
    is the same. ``facts_path``: the synthetic_facts stage's facts, read when
    ``synthetic_per_doc`` > 0. ``doc2query_path``: the doc2query stage's questions (empty
    while ``doc2query.per_doc`` is 0), added to each fold's training questions."""
    cfg = HardNegativeConfig.from_params(hn_params)
    train = cfg.train_config(train_params)
    pages = read_page_texts(pages_path)
    miner = _Miner(cfg, train, pages, mining_models, mining_index)
    whole = _WholePages(pages, train, windows) if windows is not None else None
    report: dict = {"config": asdict(cfg), "train_config": vars(train), "folds": []}
    if windows is not None:
        report["windows"] = asdict(windows)
    questions = read_questions(corpus_out)
    facts: list[dict] = []
    if cfg.synthetic_per_doc:
        if facts_path is None:
            raise ParamError("page_scorer_hn.synthetic_per_doc > 0 needs the synthetic_facts "
                             "stage's facts")
        facts = read_jsonl(facts_path)
    company_of = {q.doc: q.company for q in questions}
    llm_questions = read_jsonl(doc2query_path) if doc2query_path is not None else []
    for f, train_q in fold_training_sets(read_json(folds_path), questions):
        fold = f["fold"]
        fallback = untrained_fold_model(f, "page_scorer_hn", train.model)
        if fallback is not None:  # no gold evidence: the named (or base) model, as it is
            out = models_dir / f"fold_{fold}"
            save_model(load_bi_encoder(fallback, train.max_seq_length), out)
            write_json(out / "fingap_fold.json", fold_metadata(f, validation_docs=[]))
            report["folds"].append(untrained_fold_record(f, fallback, train.model))
            log.warning("fold %d: no training (no gold evidence); model %s", fold, fallback)
            continue
        fit_q, val_q = split_validation(train_q, cfg.val_fraction, cfg.seed + fold)
        synthetic = synthetic_pairs_questions(
            facts, company_of, f, {q.doc for q in val_q}, cfg.synthetic_per_doc,
            cfg.seed + fold) if cfg.synthetic_per_doc else []
        written = doc2query_pairs_questions(llm_questions, company_of, f,
                                            {q.doc for q in val_q})
        fit_q = fit_q + synthetic + written
        negatives, counts = mine_negatives(fit_q, miner.ranker(fold, fit_q), pages, cfg.mine_top,
                                           cfg.false_negative_recall)
        pairs = training_pairs(fit_q, pages, train.max_chars)
        if whole is None:
            pools = [[(page_text(pages[k], train.max_chars), k) for k in negatives[qid]]
                     for qid, _, _, _ in pairs]
            candidates = None
            if cfg.val_candidates:
                ranked = miner.ranker(fold, val_q)
                candidates = {q.id: ranked(q)[:cfg.val_candidates] for q in val_q}
            validation = Validation.of(val_q, pages, train.max_chars, cfg.metric, cfg.patience,
                                       candidates)
        else:
            pairs = whole.positives(pairs, fit_q)
            pools = [whole.pool(negatives[qid]) for qid, _, _, _ in pairs]
            validation = whole.validation(val_q, cfg.metric, cfg.patience)
        model, res = train_bi_encoder(
            pairs, train, seed=train.seed + fold, negatives=pools,
            negatives_per_pair=cfg.negatives_per_pair,
            gold={q.id: set(q.gold_pages) for q in fit_q}, validation=validation,
            eval_epochs=eval_epochs, report_to=report_to, run_name=f"fold_{fold}")
        out = models_dir / f"fold_{fold}"
        save_model(model, out)
        val_docs = sorted({q.doc for q in val_q})
        write_json(out / "fingap_fold.json", fold_metadata(f, validation_docs=val_docs))
        report["folds"].append(fold_training_record(
            f, res, n_pairs=res.n_pairs, n_validation_questions=len(val_q),
            n_validation_pages=len(validation.corpus), validation_docs=val_docs, mining=counts,
            n_synthetic_questions=len(synthetic),
            # only when doc2query is on, so a report without it keeps its old form
            **({"n_doc2query_questions": len(written)} if llm_questions else {}),
            best_epoch=res.best_epoch, epochs_run=len(res.epoch_loss),
            validation_seconds=round(res.val_seconds, 1), val_curve=res.val_curve))
        log.info("fold %d: best epoch %s of %d", fold, res.best_epoch, len(res.epoch_loss))
    report["epochs_study"] = epochs_study(report["folds"], cfg.metric)
    write_json(report_path, report)
    return report


def run_train_hn_stage(params: dict, whole_pages: bool, name: str, corpus_out: Path,
                       pages_path: Path, folds_path: Path, mining_models: Path,
                       mining_index: Path, facts_path: Path, doc2query_path: Path,
                       models_dir: Path, report_path: Path, markdown_path: Path) -> dict:
    """The train_page_scorer_hn[_windows] stages: ``whole_pages`` trains on every page's token
    windows (``page_windows``, with its own ``epochs``) instead of each page's first
    ``max_chars`` characters. The hard-negative and window parameters are checked before the
    tracking store is touched; the report is also written as Markdown (the epochs study)."""
    hn = section(params, "page_scorer_hn")
    windows, extra = None, {}
    if whole_pages:
        extra = section(params, "page_windows")
        windows = WindowConfig.from_params(extra, "page_windows")
        # the whole-page study sets its own epochs and attention dropout (null: the base
        # model's, as its committed rows were measured)
        hn = {**hn, "epochs": extra.get("epochs", hn.get("epochs")),
              "attention_dropout": extra.get("attention_dropout")}
    HardNegativeConfig.from_params(hn)
    train = section(params, "page_scorer_train")
    report = run_tracked_training(
        Path("."), section(params, "track")["experiment"], name, {**train, **hn, **extra},
        models_dir, report_path,
        lambda report_to: run_train_hn(
            train, hn, corpus_out, pages_path, folds_path, mining_models, mining_index,
            models_dir, report_path, report_to=report_to, windows=windows,
            facts_path=facts_path, doc2query_path=doc2query_path))
    write_text(markdown_path, render_epochs_report(
        report, "Hard-negative page scorer" + (", whole pages (windows)" if whole_pages else "")))
    return report


def epochs_study(folds: list[dict], metric: str) -> dict:
    """Validation quality and training cost per epoch, averaged over the folds that ran it
    (a fold that trained nothing, for want of gold evidence, has no curve)."""
    folds = [f for f in folds if f.get("trained", True)]
    rows = []
    for e in sorted({r["epoch"] for f in folds for r in f["val_curve"]}):
        at = [r for f in folds for r in f["val_curve"] if r["epoch"] == e]
        rows.append({"epoch": e, "folds": len(at),
                     **{m: round(float(np.mean([r[m] for r in at])), 4) for m in VAL_METRICS},
                     "train_minutes_per_fold": round(float(np.mean([r["train_seconds"]
                                                                   for r in at])) / 60, 2)})
    return {"metric": metric, "per_epoch": rows,
            "best_epoch_per_fold": [f["best_epoch"] for f in folds]}
