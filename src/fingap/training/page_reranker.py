"""Training data and settings of the page reranker (#14 part 3): a cross-encoder on
(question, page window), per document-grouped fold.

A question's positives are its gold pages, each as the window sharing most words with that
page's gold evidence (as the whole-page scorer is trained). Its negatives are the non-gold pages
of its own document that the fold's hard-negative page scorer ranks highest (likely unlabelled
positives skipped, fingap.training.hard_negatives), each as the window the scorer likes best
for the question: what the reranker will see at query time. Validation reranks the scorer's
top pages of held-out training documents, so early stopping and the learning curve say
whether the cross-encoder beats the bi-encoder order it starts from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.params import ParamError
from ..ingestion.corpus import Question

PageKey = tuple[str, int]
VAL_NAME = "val"


@dataclass
class PageRerankerConfig:
    model: str = "minilm"          # cross-encoder base: MiniLM weights with a fresh head
    candidates: int = 20           # pages reranked per question (and per validation question)
    negatives: int = 6             # mined non-gold pages per training question
    epochs: int = 4                # most epochs; early stopping may end a fold sooner
    patience: int | None = 2       # epochs without validation gain before stopping; null: never
    lr: float = 3e-5
    batch_size: int = 16
    max_length: int = 256
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    precision: str = "bf16"
    seed: int = 13

    @classmethod
    def from_params(cls, p: Mapping) -> PageRerankerConfig:
        unknown = set(p) - set(cls.__dataclass_fields__)
        if unknown:
            raise ParamError(f"page_reranker: unknown keys {sorted(unknown)}")
        cfg = cls(**p)
        for name in ("candidates", "negatives", "epochs", "batch_size", "max_length"):
            v = getattr(cfg, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ParamError(f"page_reranker.{name} must be an integer >= 1, got {v!r}")
        if cfg.patience is not None and (not isinstance(cfg.patience, int) or cfg.patience < 1):
            raise ParamError(f"page_reranker.patience must be null or >= 1, got {cfg.patience!r}")
        if not cfg.lr > 0:
            raise ParamError(f"page_reranker.lr must be > 0, got {cfg.lr!r}")
        if not 0 <= cfg.warmup_ratio < 1 or cfg.weight_decay < 0:
            raise ParamError("page_reranker: need 0 <= warmup_ratio < 1 and weight_decay >= 0")
        if cfg.precision not in ("fp32", "bf16"):
            raise ParamError(f"page_reranker.precision must be fp32 or bf16: {cfg.precision!r}")
        return cfg

    @property
    def metric(self) -> str:
        """The validation metric early stopping reads: MRR over the reranked candidates."""
        return f"{VAL_NAME}_mrr@{self.candidates}"


def training_examples(questions: Sequence[Question],
                      positives: Mapping[tuple[str, PageKey], str],
                      negatives: Mapping[str, Sequence[tuple[PageKey, str]]]
                      ) -> list[tuple[str, str, float]]:
    """(question, window, label): label 1 for each gold page's window in ``positives`` (keyed
    by question id and page), 0 for each (page, window) in ``negatives[question id]``.
    A negative page that is gold for the question is a bug upstream, so it raises."""
    out = []
    for q in questions:
        gold = set(q.gold_pages)
        for key in q.gold_pages:
            if (q.id, key) in positives:
                out.append((q.question, positives[(q.id, key)], 1.0))
        for key, text in negatives.get(q.id, ()):
            if key in gold:
                raise ValueError(f"{q.id}: gold page {key} among its negatives")
            out.append((q.question, text, 0.0))
    return out


def validation_samples(questions: Sequence[Question],
                       candidates: Mapping[str, Sequence[tuple[PageKey, str]]],
                       gold_windows: Mapping[tuple[str, PageKey], str]) -> list[dict]:
    """Samples of sentence-transformers' ``CrossEncoderRerankingEvaluator`` in its ranked
    form: ``documents`` are the question's candidate windows in the first stage's order, and
    ``positive`` its gold pages' windows; with ``always_rerank_positives=False`` a gold page
    the first stage missed counts as missed, and the evaluator reports the first stage's own
    scores beside the reranked ones."""
    out = []
    for q in questions:
        docs = [text for _, text in candidates.get(q.id, ())]
        positive = [gold_windows[(q.id, k)] for k in q.gold_pages if (q.id, k) in gold_windows]
        if docs and positive:
            out.append({"query": q.question, "positive": positive, "documents": docs})
    return out
