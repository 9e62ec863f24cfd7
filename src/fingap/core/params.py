"""Reading and validating params.yaml, one section per stage.

Validation happens before any work starts, and every error names the parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class ParamError(ValueError):
    """An invalid value in params.yaml; the message names the parameter."""


# the studies pipeline's own params file, beside params.yaml (fingap.core.pipelines)
STUDIES_PARAMS = Path("studies/params.yaml")


def _read_mapping(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        params = yaml.safe_load(f) or {}
    if not isinstance(params, dict):
        raise ParamError(f"{path}: expected a mapping at the top level")
    return params


def load_params(path: str | Path = "params.yaml") -> dict[str, Any]:
    """params.yaml, with the sections of studies/params.yaml beside it where that file exists:
    every stage and command sees one set of sections, whichever pipeline defines them, so a
    study's stage reads its params the same way once it moves into the product."""
    params = _read_mapping(path)
    studies = Path(path).parent / STUDIES_PARAMS
    if studies.exists():
        extra = _read_mapping(studies)
        both = sorted(set(params) & set(extra))
        if both:
            raise ParamError(f"{studies}: sections {both} are also in {path}; keep each in one")
        params = {**params, **extra}
    check_numeric_domains(params)
    return params


def section(params: dict[str, Any], name: str) -> dict[str, Any]:
    if name not in params or not isinstance(params[name], dict):
        raise ParamError(f"params.yaml: missing section '{name}'")
    return params[name]


def require_int(sec: dict, name: str, key: str, minimum: int | None = None) -> int:
    value = sec.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParamError(f"{name}.{key} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ParamError(f"{name}.{key} must be >= {minimum}, got {value}")
    return value


def require_choice(sec: dict, name: str, key: str, choices: tuple[str, ...]) -> str:
    value = sec.get(key)
    if value not in choices:
        raise ParamError(f"{name}.{key} must be one of {', '.join(choices)}; got {value!r}")
    return value


# ---------------------------------------------------------------- numeric domains
@dataclass(frozen=True)
class Domain:
    """Allowed values of a numeric parameter: an integer or a real number between ``low`` and
    ``high`` (None: unbounded), each end inclusive unless marked open; ``null`` where allowed."""

    kind: type = int
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    nullable: bool = False

    def describe(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        lo = "" if self.low is None else f"{'>' if self.low_open else '>='} {self.low}"
        hi = "" if self.high is None else f"{'<' if self.high_open else '<='} {self.high}"
        bounds = " and ".join(b for b in (lo, hi) if b)
        return what + (f" {bounds}" if bounds else "") + (" or null" if self.nullable else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.nullable
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.kind is int and not isinstance(value, int):
            return False
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            return False
        return True


_COUNT, _POSITIVE = Domain(int, 1), Domain(float, 0, low_open=True)
_SEED, _SHARE = Domain(int, 0), Domain(float, 0, 1)
# Every numeric parameter of params.yaml (tests/core/test_params.py fails on one missing here);
# checked whenever params.yaml is loaded, so a stage fails before it does any work
NUMERIC_DOMAINS: dict[str, Domain] = {
    "extract.alignment_window": Domain(int, 0), "extract.max_page_chars": _COUNT,
    "chunk.size": Domain(int, 8), "chunk.overlap": Domain(int, 0),
    "bm25.k1": _POSITIVE, "bm25.b": _SHARE,
    "dense.max_seq_length": Domain(int, 8, nullable=True), "dense.batch_size": _COUNT,
    "splade.max_length": Domain(int, 8), "splade.top_terms": _COUNT,
    "splade.batch_size": _COUNT,
    "zoo.depth": _COUNT, "zoo.k_rrf": Domain(float, 0),
    "reranker_train.max_length": Domain(int, 8), "reranker_train.lr": _POSITIVE,
    "reranker_train.batch_size": Domain(int, 2), "reranker_train.epochs": _COUNT,
    "reranker_train.negatives_per_positive": Domain(int, 0),
    "reranker_train.warmup_ratio": Domain(float, 0, 1, high_open=True),
    "reranker_train.weight_decay": Domain(float, 0), "reranker_train.max_chars": _COUNT,
    "reranker_train.seed": _SEED,
    "reranker.candidates": _COUNT, "reranker.max_length": Domain(int, 8),
    "reranker.batch_size": _COUNT, "reranker.seed": _SEED,
    "bge_m3.max_length": Domain(int, 8), "bge_m3.batch_size": _COUNT,
    "final_step.linear_weight": _SHARE, "final_step.k_rrf": Domain(float, 0),
    "folds.n_folds": Domain(int, 2), "folds.seed": _SEED,
    "page_scorer_train.max_chars": _COUNT, "page_scorer_train.max_seq_length": Domain(int, 8),
    "page_scorer_train.lr": _POSITIVE, "page_scorer_train.batch_size": Domain(int, 2),
    "page_scorer_train.epochs": _COUNT,
    "page_scorer_train.warmup_ratio": Domain(float, 0, 1, high_open=True),
    "page_scorer_train.weight_decay": Domain(float, 0), "page_scorer_train.scale": _POSITIVE,
    "page_scorer_train.seed": _SEED,
    "page_scorer_train.attention_dropout": Domain(float, 0, 1, high_open=True, nullable=True),
    "compute.workers": Domain(int, 1, nullable=True), "compute.batch_docs": _COUNT,
    "compute.batch_texts": _COUNT,
    "page_scorer_hn.epochs": _COUNT, "page_scorer_hn.patience": Domain(int, 1, nullable=True),
    "page_scorer_hn.val_fraction": Domain(float, 0, 1, low_open=True, high_open=True),
    "page_scorer_hn.mine_top": _COUNT, "page_scorer_hn.negatives_per_pair": Domain(int, 0),
    "page_scorer_hn.false_negative_recall": Domain(float, 0, 1, low_open=True),
    "page_scorer_hn.seed": _SEED, "page_scorer_hn.synthetic_per_doc": Domain(int, 0),
    "page_scorer_hn.val_candidates": Domain(int, 1, nullable=True),
    "doc2query.per_doc": Domain(int, 0), "doc2query.seed": _SEED,
    "doc2query.min_chars": Domain(int, 0), "doc2query.max_chars": Domain(int, 100),
    "doc2query.max_new_tokens": Domain(int, 8),
    "page_windows.overlap": Domain(int, 0), "page_windows.epochs": _COUNT,
    "page_maxsim.candidates": _COUNT,
    "page_reranker.candidates": _COUNT, "page_reranker.negatives": _COUNT,
    "page_reranker.epochs": _COUNT, "page_reranker.patience": Domain(int, 1, nullable=True),
    "page_reranker.lr": _POSITIVE, "page_reranker.batch_size": Domain(int, 2),
    "page_reranker.max_length": Domain(int, 8),
    "page_reranker.warmup_ratio": Domain(float, 0, 1, high_open=True),
    "page_reranker.weight_decay": Domain(float, 0), "page_reranker.seed": _SEED,
    "page_scorer.P": _COUNT, "retrieve.k": _COUNT,
    "retrieve.ann.exact_below": Domain(int, 0), "retrieve.ann.nprobe": _COUNT,
    "retrieve.ann.nlist": Domain(int, 1, nullable=True), "retrieve.ann.pq_m": _COUNT,
    "retrieve.ann.refine": _COUNT, "retrieve.ann.hnsw_m": Domain(int, 2),
    "retrieve.ann.ef_search": _COUNT, "retrieve.ann.exact_subset": Domain(int, 0),
    "retrieve.ann.seed": _SEED,
    "routing.cover_pages": _COUNT, "routing.keep": _COUNT, "routing.top_docs": _COUNT,
    "routing.hedge_margin": Domain(float, 0),
    **{f"routing.weights.{w}": Domain(float, 0)
       for w in ("company", "period", "form", "quarter", "date", "bm25")},
    "llm.batch_size": _COUNT, "llm.batch_tokens": _COUNT, "llm.timeout": _POSITIVE,
    "llm.concurrency": _COUNT, "llm.max_retries": Domain(int, 0),
    "hyde.temperature": Domain(float, 0), "hyde.max_new_tokens": _COUNT, "hyde.seed": _SEED,
    "hyde.n_subqueries": _COUNT, "hyde.subquery_max_new_tokens": _COUNT,
    "generate.k": _COUNT, "generate.max_new_tokens": _COUNT,
    "generate.context_words_per_chunk": Domain(int, 1, nullable=True),
    "evaluate.k": _COUNT, "evaluate.bootstrap_resamples": Domain(int, 100),
    "evaluate.bootstrap_seed": _SEED,
    "answer.k": _COUNT, "answer.max_follow_ups": Domain(int, 0),
    "answer.label_threshold": _SHARE, "answer.label_margin": _SHARE, "answer.min_overlap": _SHARE,
    "answer.min_similarity": _SHARE, "answer.gloss_threshold": _SHARE,
    "answer.gloss_margin": _SHARE, "answer.gloss_fixed_threshold": _SHARE,
    "answer.gloss_explains": _SHARE,
    "studies_evaluate.k": _COUNT, "studies_evaluate.bootstrap_resamples": Domain(int, 100),
    "studies_evaluate.bootstrap_seed": _SEED,
}


def check_numeric_domains(params: dict[str, Any]) -> None:
    """Every numeric parameter present in ``params`` lies in its domain; the first that does
    not raises ``ParamError`` naming it. Run by every stage before it does any work."""
    for dotted, domain in NUMERIC_DOMAINS.items():
        *path, key = dotted.split(".")
        sec = params
        for part in path:  # nested sections (routing.weights.company)
            sec = sec.get(part) if isinstance(sec, dict) else None
        if not isinstance(sec, dict) or key not in sec:
            continue
        value = sec[key]
        if not domain.accepts(value):
            raise ParamError(f"{dotted} must be {domain.describe()}, got {value!r}")


def section_dataclass(cls, p: dict[str, Any], name: str):
    """``cls(**p)`` for the params section ``name``: its unknown keys and numeric domains are
    checked first, so a typo or a bad value fails with the parameter's name."""
    unknown = set(p) - set(cls.__dataclass_fields__)
    if unknown:
        raise ParamError(f"{name}: unknown keys {sorted(unknown)}")
    check_numeric_domains({name: dict(p)})
    return cls(**p)
