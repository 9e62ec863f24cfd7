"""The learned page scorer of Kobeissi & Langlais: a bi-encoder fine-tuned with Multiple
Negatives Ranking loss on (question, gold page text) pairs, one model per document-grouped fold.

Page text N(d, p): whitespace collapsed, truncated to ``max_chars`` (M = 2000) characters.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.params import ParamError
from ..core.precision import autocast
from ..ingestion.corpus import Question
from ..retrieval.page_ranking import load_bi_encoder, page_text
from .sampling import NoDuplicatesBatchSampler

log = logging.getLogger("fingap.training.page_scorer")


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

    @classmethod
    def from_params(cls, p: dict) -> TrainConfig:
        cfg = cls(**{k: p[k] for k in cls.__dataclass_fields__ if k in p})
        if (cfg.lr <= 0 or cfg.batch_size < 2 or cfg.epochs < 1 or cfg.max_seq_length < 8
                or cfg.max_chars < 1):
            raise ParamError("page_scorer_train: need lr > 0, batch_size >= 2, epochs >= 1, "
                             f"max_seq_length >= 8, max_chars >= 1; got {cfg}")
        if cfg.precision not in ("fp32", "bf16"):
            raise ParamError(f"page_scorer_train.precision must be fp32 or bf16: {cfg.precision!r}")
        return cfg


@dataclass
class TrainResult:
    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    n_pairs: int = 0
    n_steps: int = 0
    # with a validator: one row per epoch (validation metrics, cumulative training seconds)
    val_curve: list[dict] = field(default_factory=list)
    best_epoch: int | None = None
    val_seconds: float = 0.0


class EarlyStopping:
    """Keeps the weights of the best validation epoch; says stop after ``patience`` epochs
    without improvement (None: never stop early, still keep the best epoch)."""

    def __init__(self, metric: str, patience: int | None):
        self.metric, self.patience = metric, patience
        self.best: float | None = None
        self.best_epoch: int | None = None
        self._state: dict | None = None
        self._bad = 0

    def update(self, epoch: int, metrics: dict, model) -> bool:
        value = metrics[self.metric]
        if self.best is None or value > self.best:
            self.best, self.best_epoch, self._bad = value, epoch, 0
            self._state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            self._bad += 1
        return self.patience is not None and self._bad >= self.patience

    def restore(self, model) -> None:
        if self._state is not None:
            model.load_state_dict(self._state)


def training_pairs(questions: Sequence[Question], page_texts: dict[tuple[str, int], str],
                   max_chars: int) -> list[tuple[str, str, str, tuple[str, int]]]:
    """(question id, question, page text, page key): one pair per distinct gold page."""
    pairs = []
    for q in questions:
        for key in q.gold_pages:
            if key in page_texts:
                pairs.append((q.id, q.question, page_text(page_texts[key], max_chars), key))
    return pairs


def mnr_loss(q_emb, p_emb, scale: float, exclude=None):
    """Multiple Negatives Ranking: question i's own page (column i) against every other page
    column: the batch's other positives, then any hard negatives appended after them.
    ``exclude`` (bool, questions x pages) masks columns that must not count as negatives
    (another gold page of the same question)."""
    import torch
    import torch.nn.functional as F

    sims = F.normalize(q_emb, dim=-1) @ F.normalize(p_emb, dim=-1).T * scale
    sims = sims.float()
    if exclude is not None:
        sims = sims.masked_fill(exclude, float("-inf"))
    return F.cross_entropy(sims, torch.arange(len(q_emb)))


PageKey = tuple[str, int]


def _batch_pages(pairs, batch: list[int], negatives, n_neg: int, rng: random.Random,
                 gold: dict[str, set] | None):
    """Page texts of a batch (positives first, then each pair's sampled hard negatives) and
    the mask of columns that are gold for a row's question without being its own column."""
    texts = [pairs[i][2] for i in batch]
    keys = [pairs[i][3] for i in batch]
    if negatives is not None:
        for i in batch:
            pool = negatives[i]
            for text, key in rng.sample(list(pool), min(n_neg, len(pool))):
                texts.append(text)
                keys.append(key)
    if gold is None:
        return texts, None
    import torch

    exclude = torch.tensor([[c != r and keys[c] in gold[pairs[i][0]] for c in range(len(keys))]
                            for r, i in enumerate(batch)], dtype=torch.bool)
    return texts, exclude


def train_bi_encoder(pairs: Sequence[tuple[str, str, str, tuple[str, int]]], cfg: TrainConfig,
                     seed: int, max_steps: int | None = None, *,
                     negatives: Sequence[Sequence[tuple[str, PageKey]]] | None = None,
                     negatives_per_pair: int = 1, gold: dict[str, set] | None = None,
                     validate: Callable[[object], dict] | None = None,
                     stopping: EarlyStopping | None = None,
                     eval_epochs: Sequence[int] | None = None):
    """Fine-tune a fresh copy of ``cfg.model``; returns (model, TrainResult).

    In-batch negatives only by default (the paper). ``negatives[i]`` is the pool of (text, page)
    hard negatives of pair i, ``negatives_per_pair`` of them drawn afresh each epoch; ``gold``
    (question id -> gold page keys) masks columns that are gold for the row's question.
    ``validate(model)`` runs after each epoch (or only after the 1-based ``eval_epochs``);
    ``stopping`` keeps the best validated epoch's weights and may end training early.
    """
    import torch

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    model = load_bi_encoder(cfg.model, cfg.max_seq_length)
    model.train()
    sampler = NoDuplicatesBatchSampler([{("q", qid), ("p", key)} for qid, _, _, key in pairs],
                                       cfg.batch_size, seed=seed, drop_last=False)
    steps_per_epoch = len(sampler)
    total = steps_per_epoch * cfg.epochs if max_steps is None else max_steps
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    warmup = int(math.ceil(cfg.warmup_ratio * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / max(1, warmup) if s < warmup
        else max(0.0, (total - s) / max(1, total - warmup)))
    result = TrainResult(n_pairs=len(pairs))
    t0 = time.perf_counter()
    step = 0
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        rng = random.Random(seed * 1000 + epoch)  # hard negatives drawn per epoch, reproducibly
        losses = []
        for batch in sampler:
            texts, exclude = _batch_pages(pairs, batch, negatives, negatives_per_pair, rng, gold)
            if len(texts) < 2:
                continue  # a lone pair without hard negatives has nothing to rank against
            qs = model.tokenize([pairs[i][1] for i in batch])
            ps = model.tokenize(texts)
            with autocast(cfg.precision):
                q_emb = model(qs)["sentence_embedding"]
                p_emb = model(ps)["sentence_embedding"]
                loss = mnr_loss(q_emb, p_emb, cfg.scale, exclude)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            value = float(loss.detach())
            losses.append(value)
            result.step_loss.append(value)
            step += 1
            if max_steps is not None and step >= max_steps:
                break
        result.epoch_loss.append(float(np.mean(losses)) if losses else float("nan"))
        log.info("epoch %d/%d: loss %.4f (%d steps, %.0fs)", epoch + 1, cfg.epochs,
                 result.epoch_loss[-1], len(losses), time.perf_counter() - t0)
        stop = max_steps is not None and step >= max_steps
        if validate is not None and (eval_epochs is None or epoch + 1 in eval_epochs):
            train_seconds = time.perf_counter() - t0 - result.val_seconds
            model.eval()
            tv = time.perf_counter()
            metrics = validate(model)
            result.val_seconds += time.perf_counter() - tv
            model.train()
            result.val_curve.append({"epoch": epoch + 1, **metrics,
                                     "train_seconds": round(train_seconds, 1)})
            log.info("epoch %d validation: %s", epoch + 1, metrics)
            if stopping is not None and stopping.update(epoch + 1, metrics, model):
                stop = True
        if stop:
            break
    model.eval()
    if stopping is not None:
        stopping.restore(model)
        result.best_epoch = stopping.best_epoch
    result.seconds = time.perf_counter() - t0
    result.n_steps = step
    return model, result


def save_model(model, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    model.save(str(directory), create_model_card=False, safe_serialization=True)
    if not (directory / "model.safetensors").exists():
        raise RuntimeError(f"{directory}: model was not saved as safetensors")
