"""The learned page scorer of Kobeissi & Langlais: a bi-encoder fine-tuned with Multiple
Negatives Ranking loss on (question, gold page text) pairs, one model per document-grouped fold,
trained with sentence-transformers' ``SentenceTransformerTrainer``.

Page text N(d, p): whitespace collapsed, truncated to ``max_chars`` (M = 2000) characters.

What the ecosystem's parts do here, and the two things fingap adds inside the trainer:
- ``MultipleNegativesRankingLoss`` (cosine x ``scale``, cross-entropy over the batch's pages) and
  ``BatchSamplers.NO_DUPLICATES`` (no question or page twice in a batch: a second copy would be
  a false in-batch negative);
- the hard-negative variant: ``NegativeDraw`` gives each pair ``negatives_per_pair`` pages of its
  pool, drawn afresh each epoch (a dataset transform that reads the epoch a callback sets), and
  ``GoldMaskedMNRLoss`` keeps a page that is gold for a row's question (another of its gold pages,
  shown as someone else's positive or hard negative) from counting as that row's negative;
- validation: ``InformationRetrievalEvaluator`` over the pages of held-out training documents
  after each epoch, ``EarlyStoppingCallback`` on its MRR@20, the best epoch's weights kept.
"""

from __future__ import annotations

import logging
import random
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.params import ParamError
from ..ingestion.corpus import Question
from ..retrieval.page_ranking import load_bi_encoder, page_text
from .trainer_common import common_arguments, integration_callbacks, loss_curves

log = logging.getLogger("fingap.training.page_scorer")

PageKey = tuple[str, int]
Pair = tuple[str, str, str, PageKey]   # (question id, question, page text, page key)
# validation metric names of fingap -> InformationRetrievalEvaluator's keys (evaluator "val")
VAL_METRICS = {"MRR@20": "val_cosine_mrr@20", "PageRec@5": "val_cosine_recall@5",
               "PageRec@20": "val_cosine_recall@20"}


@dataclass
class TrainConfig:
    model: str = "minilm"
    lr: float = 2e-5
    batch_size: int = 16
    epochs: int = 15
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    scale: float = 20.0  # MNR: cosine similarities times this before the softmax
    max_seq_length: int = 256
    precision: str = "bf16"
    seed: int = 13
    max_chars: int = 2000  # M: page text truncation (characters)
    # dropout on attention probabilities while training; None: the base model's (0.1 for
    # MiniLM). Any dropout there sends CPU attention to its unfused path: each step ~2x slower
    attention_dropout: float | None = None

    @classmethod
    def from_params(cls, p: dict) -> TrainConfig:
        cfg = cls(**{k: p[k] for k in cls.__dataclass_fields__ if k in p})
        if (cfg.lr <= 0 or cfg.batch_size < 2 or cfg.epochs < 1 or cfg.max_seq_length < 8
                or cfg.max_chars < 1):
            raise ParamError("page_scorer_train: need lr > 0, batch_size >= 2, epochs >= 1, "
                             f"max_seq_length >= 8, max_chars >= 1; got {cfg}")
        if cfg.precision not in ("fp32", "bf16"):
            raise ParamError(f"page_scorer_train.precision must be fp32 or bf16: {cfg.precision!r}")
        check_attention_dropout(cfg.attention_dropout, "page_scorer_train")
        return cfg


def check_attention_dropout(value, section: str) -> None:
    """``section.attention_dropout`` must be null or a number in [0, 1)."""
    if value is not None and (not isinstance(value, int | float) or not 0 <= value < 1):
        raise ParamError(f"{section}.attention_dropout must be in [0, 1) or null: {value!r}")


@dataclass
class TrainResult:
    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    n_pairs: int = 0
    n_steps: int = 0
    # with validation: one row per validated epoch (metrics, cumulative training seconds)
    val_curve: list[dict] = field(default_factory=list)
    best_epoch: int | None = None
    val_seconds: float = 0.0


@dataclass
class Validation:
    """What the page scorer is validated on: questions of held-out training documents, ranked
    over every page of those documents."""

    queries: dict[str, str]
    corpus: dict[str, str]
    relevant: dict[str, set[str]]
    metric: str = "MRR@20"
    patience: int | None = 3          # validations without gain before stopping; None: never

    @classmethod
    def of(cls, questions: Sequence[Question], pages: dict[PageKey, str], max_chars: int,
           metric: str = "MRR@20", patience: int | None = 3,
           candidates: Mapping[str, Sequence[PageKey]] | None = None) -> Validation:
        """``candidates[qid]``: rank only these pages of each question's document (with its
        gold pages) instead of every page of the validation documents: each epoch then
        encodes a few hundred pages, not a thousand or more."""
        if metric not in VAL_METRICS:
            raise ParamError(f"validation metric must be one of {sorted(VAL_METRICS)}: {metric!r}")
        docs = {q.doc for q in questions}
        if candidates is None:
            keys = sorted(k for k in pages if k[0] in docs)
        else:
            keys = sorted({tuple(k) for q in questions for k in candidates[q.id]} |
                          {k for q in questions for k in q.gold_pages if k in pages})
        return cls({q.id: q.question for q in questions},
                   {_key_id(k): page_text(pages[k], max_chars) for k in keys},
                   {q.id: {_key_id(k) for k in q.gold_pages} for q in questions},
                   metric, patience)

    @classmethod
    def of_windows(cls, questions: Sequence[Question], windows: Mapping[PageKey, Sequence[str]],
                   metric: str = "MRR@20", patience: int | None = 3) -> Validation:
        """The same, over every window of those documents' pages (``windows[key]``: a page's
        window texts); a window is relevant when its page is gold, so the metric is MaxP's."""
        if metric not in VAL_METRICS:
            raise ParamError(f"validation metric must be one of {sorted(VAL_METRICS)}: {metric!r}")
        docs = {q.doc for q in questions}
        keys = sorted(k for k in windows if k[0] in docs)
        return cls({q.id: q.question for q in questions},
                   {f"{_key_id(k)}#w{i}": t for k in keys for i, t in enumerate(windows[k])},
                   {q.id: {f"{_key_id(k)}#w{i}" for k in q.gold_pages
                           for i in range(len(windows.get(k, ())))} for q in questions},
                   metric, patience)

    def evaluator(self, batch_size: int):
        from sentence_transformers.sentence_transformer.evaluation import (
            InformationRetrievalEvaluator,
        )

        return InformationRetrievalEvaluator(
            # (the evaluator needs every list non-empty; fingap reads MRR@20 and recall@5/20)
            self.queries, self.corpus, self.relevant, mrr_at_k=[20], ndcg_at_k=[20],
            accuracy_at_k=[1], precision_recall_at_k=[5, 20], map_at_k=[20], name="val",
            batch_size=batch_size, show_progress_bar=False, write_csv=False)


def _key_id(key: PageKey) -> str:
    return f"{key[0]}#{key[1]}"


def training_pairs(questions: Sequence[Question], page_texts: dict[PageKey, str],
                   max_chars: int) -> list[Pair]:
    """(question id, question, page text, page key): one pair per distinct gold page."""
    pairs = []
    for q in questions:
        for key in q.gold_pages:
            if key in page_texts:
                pairs.append((q.id, q.question, page_text(page_texts[key], max_chars), key))
    return pairs


class NegativeDraw:
    """Each pair's hard negatives for the current epoch: ``n`` pages of its pool, drawn afresh
    (and reproducibly: from the seed, the epoch and the pair) every epoch. A pool shorter than
    ``n`` is padded with the pair's own positive, which the loss masks out, so every row has
    the same number of columns."""

    def __init__(self, pairs: Sequence[Pair], pools: Sequence[Sequence[tuple[str, PageKey]]],
                 n: int, seed: int):
        if len(pools) != len(pairs):
            raise ValueError(f"{len(pools)} negative pools for {len(pairs)} pairs")
        self.pairs, self.pools, self.n, self.seed = pairs, pools, n, seed
        self.epoch = 0
        # a row asked for without its label column (the batch sampler reads the text columns
        # only) is known by its (question, page text): unique per pair
        self._row_of = {(q, text): i for i, (_, q, text, _) in enumerate(pairs)}

    def pick(self, i: int) -> list[tuple[str, PageKey]]:
        pool = list(self.pools[i])
        rng = random.Random(f"{self.seed}:{self.epoch}:{i}")
        picked = rng.sample(pool, min(self.n, len(pool)))
        _, _, text, key = self.pairs[i]
        return picked + [(text, key)] * (self.n - len(picked))

    def transform(self, batch: dict) -> dict:
        """The dataset transform: fills the ``negative_j`` columns of the rows asked for."""
        rows = batch["label"] if "label" in batch else [
            self._row_of[(a, p)] for a, p in zip(batch["anchor"], batch["positive"], strict=True)]
        picks = [self.pick(int(i)) for i in rows]
        for j in range(self.n):
            batch[f"negative_{j}"] = [p[j][0] for p in picks]
        return batch


def _gold_masked_mnr_loss(model, scale: float, pairs: Sequence[Pair],
                          gold: dict[str, set[PageKey]], draw: NegativeDraw | None):
    """``MultipleNegativesRankingLoss`` whose similarity matrix hides, for each row, the
    columns that are gold pages of the row's question (other than its own positive). The rows'
    pair indices come in as the loss's ``labels`` (the dataset's ``label`` column)."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    class GoldMaskedMNRLoss(MultipleNegativesRankingLoss):
        def __init__(self):
            super().__init__(model, scale=scale)
            self._mask = None
            cosine = self.similarity_fct

            def masked(a, b):
                s = cosine(a, b)
                if self._mask is not None and s.shape == self._mask.shape:
                    s = s.masked_fill(self._mask, float("-inf"))
                return s

            self.similarity_fct = masked

        def exclusion(self, rows: list[int]):
            keys = [pairs[i][3] for i in rows]
            if draw is not None:
                for j in range(draw.n):
                    keys += [draw.pick(i)[j][1] for i in rows]
            return torch.tensor([[c != r and keys[c] in gold[pairs[i][0]]
                                  for c in range(len(keys))] for r, i in enumerate(rows)],
                                dtype=torch.bool)

        def forward(self, sentence_features, labels):
            self._mask = self.exclusion([int(i) for i in labels])
            try:
                return super().forward(sentence_features, labels)
            finally:
                self._mask = None

        def get_config_dict(self):
            return {"scale": self.scale, "similarity_fct": "cos_sim", "masked": "other gold pages"}

    return GoldMaskedMNRLoss()


def _epoch_callback(draw: NegativeDraw | None, eval_epochs: Sequence[int] | None,
                    timing: dict):
    """Sets the epoch the negatives are drawn for, validates only after ``eval_epochs`` (the
    epochs study; None: every epoch) and records training and validation wall time."""
    from transformers import TrainerCallback

    class EpochCallback(TrainerCallback):
        def on_train_begin(self, args, state, control, **kw):
            timing.update(start=time.perf_counter(), val=0.0, train_at_epoch={}, epoch=0)

        def on_epoch_begin(self, args, state, control, **kw):
            if draw is not None:
                draw.epoch = timing["epoch"]

        def on_epoch_end(self, args, state, control, **kw):
            # the trainer validates right after this: training time so far excludes it
            timing["epoch"] += 1
            now = time.perf_counter()
            timing["train_at_epoch"][timing["epoch"]] = now - timing["start"] - timing["val"]
            timing["eval_start"] = now
            if eval_epochs is not None and timing["epoch"] not in eval_epochs:
                control.should_evaluate = False
                control.should_save = False
            return control

        def on_evaluate(self, args, state, control, **kw):
            timing["val"] += time.perf_counter() - timing.get("eval_start", time.perf_counter())

    return EpochCallback()


def train_bi_encoder(pairs: Sequence[Pair], cfg: TrainConfig, seed: int,
                     max_steps: int | None = None, *,
                     negatives: Sequence[Sequence[tuple[str, PageKey]]] | None = None,
                     negatives_per_pair: int = 1, gold: dict[str, set] | None = None,
                     validation: Validation | None = None,
                     eval_epochs: Sequence[int] | None = None,
                     report_to: Sequence[str] = (), run_name: str | None = None):
    """Fine-tune a fresh copy of ``cfg.model`` with ``SentenceTransformerTrainer``; returns
    (model, TrainResult).

    In-batch negatives only by default (the paper). ``negatives[i]`` is the pool of (text, page)
    hard negatives of pair i, ``negatives_per_pair`` of them drawn afresh each epoch; ``gold``
    (question id -> gold page keys) masks pages that are gold for a row's question.
    ``validation`` evaluates after each epoch (or only after the 1-based ``eval_epochs``),
    stops after ``validation.patience`` epochs without gain and keeps the best epoch.
    ``report_to`` takes the trainer's integrations (``["mlflow"]``: a run per call, nested under
    the caller's active run when ``MLFLOW_NESTED_RUN`` is set).
    """
    import torch
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.training_args import (
        BatchSamplers,
        SentenceTransformerTrainingArguments,
    )
    from transformers import EarlyStoppingCallback
    from transformers.trainer_callback import PrinterCallback

    torch.manual_seed(seed)
    model = load_bi_encoder(cfg.model, cfg.max_seq_length, cfg.attention_dropout)
    columns: dict[str, list] = {"anchor": [p[1] for p in pairs], "positive": [p[2] for p in pairs]}
    draw = None
    if negatives is not None and negatives_per_pair > 0:
        draw = NegativeDraw(pairs, negatives, negatives_per_pair, seed)
        columns |= {f"negative_{j}": [p[2] for p in pairs] for j in range(negatives_per_pair)}
    columns["label"] = list(range(len(pairs)))   # the pair index: the loss's mask reads it
    dataset = Dataset.from_dict(columns)
    if draw is not None:
        dataset = dataset.with_transform(draw.transform)
    if gold is None and draw is None:
        from sentence_transformers.sentence_transformer.losses import (
            MultipleNegativesRankingLoss,
        )

        loss = MultipleNegativesRankingLoss(model, scale=cfg.scale)
    else:
        loss = _gold_masked_mnr_loss(model, cfg.scale, pairs, gold or {}, draw)
    timing: dict = {}
    # the integrations first, where the trainer itself puts those it builds from report_to
    callbacks = [*integration_callbacks(report_to), _epoch_callback(draw, eval_epochs, timing)]
    with tempfile.TemporaryDirectory(prefix="fingap-train-") as out:
        args = SentenceTransformerTrainingArguments(
            **common_arguments(cfg, seed, max_steps, report_to, run_name, out),
            batch_sampler=BatchSamplers.NO_DUPLICATES, dataloader_drop_last=False,
            eval_strategy="epoch" if validation else "no",
            save_strategy="epoch" if validation else "no", save_only_model=True,
            save_total_limit=2 if validation else None,
            load_best_model_at_end=validation is not None,
            metric_for_best_model=(f"eval_{VAL_METRICS[validation.metric]}" if validation
                                   else None), greater_is_better=True)
        if validation and validation.patience is not None:
            callbacks.append(EarlyStoppingCallback(early_stopping_patience=validation.patience))
        trainer = SentenceTransformerTrainer(
            model=model, args=args, train_dataset=dataset, loss=loss,
            evaluator=validation.evaluator(64) if validation else None, callbacks=callbacks)
        trainer.remove_callback(PrinterCallback)
        t0 = time.perf_counter()
        trainer.train()
        seconds = time.perf_counter() - t0
        model = trainer.model
    model.eval()
    return model, _result(trainer.state.log_history, len(pairs), seconds, timing, validation)


def _result(history: list[dict], n_pairs: int, seconds: float, timing: dict,
            validation: Validation | None) -> TrainResult:
    """The trainer's log history as fingap's training record."""
    res = TrainResult(n_pairs=n_pairs, seconds=seconds, val_seconds=timing.get("val", 0.0))
    res.step_loss, res.epoch_loss = loss_curves(history)
    for row in history:
        if validation is not None and f"eval_{VAL_METRICS['MRR@20']}" in row:
            epoch = round(float(row["epoch"]))
            res.val_curve.append({"epoch": epoch,
                                  **{m: round(float(row[f"eval_{k}"]), 5)
                                     for m, k in VAL_METRICS.items()},
                                  "n": len(validation.queries),
                                  "train_seconds": round(timing["train_at_epoch"].get(epoch, 0.0),
                                                         1)})
    res.n_steps = len(res.step_loss)
    if res.val_curve:
        best = max(res.val_curve, key=lambda r: (r[validation.metric], -r["epoch"]))
        res.best_epoch = best["epoch"]
    return res


def save_model(model, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    model.save(str(directory), create_model_card=False, safe_serialization=True)
    if not (directory / "model.safetensors").exists():
        raise RuntimeError(f"{directory}: model was not saved as safetensors")
