"""Page-level ranking: an index of page embeddings, and the page ranking's own quality.

Page keys are (doc, page) pairs; pages are 0-based as everywhere in fingap.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import numpy as np

from ..core.compute import LOCAL, Compute, run_batches
from ..core.io import read_json
from ..core.models import ensure_offline, model_fingerprint, resolve_model
from ..core.precision import autocast
from ..core.runs import top_k_indices
from ..ingestion.corpus import Question
from .ann import AnnConfig, VectorSearch

PageKey = tuple[str, int]


def page_key_id(key: PageKey) -> str:
    return f"{key[0]}::p{key[1]:04d}"


class PageIndex:
    """``ann``: approximate search once the page matrix is large (fingap.retrieval.ann); below
    its ``exact_below`` pages, or without it, every page is scored."""

    def __init__(self, keys: Sequence[PageKey], embeddings: np.ndarray,
                 ann: AnnConfig | None = None):
        if len(keys) != len(embeddings):
            raise ValueError(f"{len(keys)} page keys but {len(embeddings)} embeddings")
        self.keys = [tuple(k) for k in keys]
        self.ids = [page_key_id(k) for k in self.keys]
        self._row_of_id = {i: r for r, i in enumerate(self.ids)}
        self.embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        self.ann = (VectorSearch(self.embeddings, ann)
                    if ann is not None and ann.kind_for(len(self.keys)) != "exact" else None)

    def rank(self, query_vec: np.ndarray, top: int,
             allowed: np.ndarray | None = None) -> list[tuple[PageKey, float]]:
        if self.ann is not None:
            scores, rows = self.ann.search(query_vec, top + 8, allowed)  # + ties at the cut
            keep = rows[0] >= 0
            hits = top_k_indices(scores[0][keep], [self.ids[i] for i in rows[0][keep]], top)
            return [(self.keys[self._row_of_id[i]], s) for i, s in hits]
        scores = self.embeddings @ query_vec
        if allowed is None:
            hits = top_k_indices(scores, self.ids, top)
        else:
            hits = top_k_indices(scores[allowed], [self.ids[i] for i in allowed], top)
        return [(self.keys[self._row_of_id[i]], s) for i, s in hits]


def page_recall_at(gold: Sequence[PageKey], ranked: Sequence[PageKey], n: int) -> float:
    g = set(gold)
    return len(g & set(ranked[:n])) / len(g)


def reciprocal_rank(gold: Sequence[PageKey], ranked: Sequence[PageKey]) -> float:
    """1 / rank of the first gold page (0 if none is ranked)."""
    g = set(gold)
    for r, key in enumerate(ranked, start=1):
        if key in g:
            return 1.0 / r
    return 0.0


_WS = re.compile(r"\s+")


def page_text(text: str, max_chars: int = 2000) -> str:
    return _WS.sub(" ", text).strip()[:max_chars]


# names of the attention-probability dropout in transformers' configs (BERT, XLM-R, MPNet; others)
_ATTENTION_DROPOUT_KEYS = ("attention_probs_dropout_prob", "attention_dropout")


def load_bi_encoder(model: str, max_seq_length: int, attention_dropout: float | None = None):
    """``model`` as a SentenceTransformer on CPU. ``attention_dropout`` (for training) replaces
    the base model's dropout on attention probabilities; None keeps the model's own."""
    from sentence_transformers import SentenceTransformer

    ensure_offline()
    m = SentenceTransformer(resolve_model(model), device="cpu")
    if attention_dropout is not None:
        config = m[0].auto_model.config
        key = next((k for k in _ATTENTION_DROPOUT_KEYS if hasattr(config, k)), None)
        if key is None:
            raise ValueError(f"attention_dropout: the config of {model!r} names no attention "
                             f"dropout (looked for {', '.join(_ATTENTION_DROPOUT_KEYS)})")
        if getattr(config, key) != attention_dropout:
            # the dropout modules are built from the config, so the model is loaded again
            m = SentenceTransformer(resolve_model(model), device="cpu",
                                    config_kwargs={key: attention_dropout})
    m.max_seq_length = max_seq_length
    return m


def encode_pages(model, texts: Sequence[str], precision: str, batch_size: int = 64,
                 show_progress: bool = True) -> np.ndarray:
    """L2-normalised page embeddings (inputs truncated at the model's max_seq_length)."""
    with autocast(precision):
        emb = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=show_progress)
    return np.asarray(emb, dtype=np.float32)


class EncodeTask:
    """A compute task (``fingap.core.compute``): texts -> their L2-normalised embeddings (one
    float32 vector each) by ``model`` (a bundled name, path or hub id), loaded once a worker."""

    def __init__(self, model: str, max_seq_length: int, precision: str, batch_size: int = 64):
        self.model = load_bi_encoder(model, max_seq_length)
        self.precision = precision
        self.batch_size = batch_size

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        return list(encode_pages(self.model, texts, self.precision, self.batch_size,
                                 show_progress=False))


def encode_texts(model: str, texts: Sequence[str], max_seq_length: int, precision: str,
                 compute: Compute = LOCAL) -> tuple[np.ndarray, dict]:
    """``EncodeTask`` over ``texts`` where ``compute`` says, as one (n, dim) float32 matrix, and
    the job's stats. Locally every text goes to one encode call (its length-sorted batches);
    on Ray the texts are cut, longest first, into ``compute.batch_texts``-text batches, so a
    batch pads little. The vectors match the local ones within bf16 rounding
    (docs/scale.md)."""
    texts = list(texts)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32), {"engine": compute.engine, "n_batches": 0}
    order = list(range(len(texts)))
    if compute.engine == "ray":
        order.sort(key=lambda i: -len(texts[i]))
    job = run_batches(partial(EncodeTask, model, max_seq_length, precision),
                      [texts[i] for i in order], compute, ray_batch=compute.batch_texts)
    emb = np.empty((len(texts), len(job.results[0])), dtype=np.float32)
    emb[order] = np.stack(job.results)
    return emb, job.stats()


class PageRows:
    """Row numbers of page keys: of each key, and of each document's pages (in key order)."""

    def __init__(self, keys: Sequence[PageKey]):
        self.keys = [tuple(k) for k in keys]
        self.row_of = {k: i for i, k in enumerate(self.keys)}
        by_doc: dict[str, list[int]] = {}
        for i, (d, _) in enumerate(self.keys):
            by_doc.setdefault(d, []).append(i)
        self._by_doc = {d: np.array(rows, dtype=np.int64) for d, rows in by_doc.items()}

    def of_doc(self, doc: str) -> np.ndarray:
        return self._by_doc.get(doc, np.zeros(0, dtype=np.int64))

    def allowed(self, cond: str, q: Question,
                docs: Sequence[str] | None = None) -> np.ndarray | None:
        """The rows a question may retrieve under a condition (None: all of them); under
        ``standard``, ``docs`` (the router's top documents) restricts them to those documents."""
        if cond == "standard":
            if docs is None:
                return None
            return np.array(sorted(int(i) for d in set(docs) for i in self.of_doc(d)),
                            dtype=np.int64)
        if cond == "oracle_doc":
            return np.array(sorted(int(i) for d in q.gold_docs for i in self.of_doc(d)),
                            dtype=np.int64)
        return np.array(sorted(self.row_of[k] for k in q.gold_pages if k in self.row_of),
                        dtype=np.int64)


def encode_queries(model_path: str, texts: Sequence[str], max_seq_length: int, precision: str,
                   cache_path: Path | None = None) -> np.ndarray:
    """Page-scorer query embeddings, from the embedding cache when it holds every text.

    All or nothing: on any miss the whole list is encoded in one call, as without a cache, so a
    cached vector always comes from the same batch as a fresh one would (bf16 results depend on
    the batch's padding) and a stage whose queries are cached never loads the model."""
    cache = key = None
    if cache_path is not None:
        from .embedding import EmbeddingCache

        cache = EmbeddingCache(cache_path)
        settings = f"{model_fingerprint(model_path)}|{max_seq_length}|truncate|{precision}|"
        batch = hashlib.sha1("\x00".join(texts).encode()).hexdigest()
        key = [hashlib.sha1(f"{settings}{batch}|{i}\x00{t}".encode()).hexdigest()
               for i, t in enumerate(texts)]
        found = cache.get_many(key)
        if len(found) == len(key):
            cache.close()
            return np.stack([found[k] for k in key]) if key else np.zeros((0, 0), np.float32)
    model = load_bi_encoder(model_path, max_seq_length)
    vecs = encode_pages(model, texts, precision, show_progress=False)
    if cache is not None:
        cache.put_many(dict(zip(key, vecs, strict=True)))
        cache.close()
    return vecs


def rank_pages(index_dir: Path, questions: Sequence[Question], model_of: Mapping[str, str],
               model_paths: Mapping[str, str], max_seq_length: int, precision: str, cond: str,
               top: int, cache_path: Path | None = None,
               routed: Mapping[str, Sequence[str]] | None = None,
               aggregate: str = "maxp", ann: AnnConfig | None = None) -> dict:
    """Ranked pages per question. ``model_of[qid]`` names the model that scores it and its page
    matrix ``index_dir/<name>.npy`` (``base``, or ``fold_N``: the model of the fold that held
    the question's document out); ``model_paths[name]`` is where that model lives. With
    ``cache_path`` the query embeddings go through the embedding cache (``encode_queries``).
    ``routed[qid]``: the documents the router kept for a question (standard condition only).
    A windowed index (``window_page.npy`` beside the matrices) scores each page from its
    windows, by ``aggregate`` (maxp or mean). ``ann``: approximate search past its size
    (a page matrix; the windowed index stays exact)."""
    from .page_windows import WindowPageIndex

    keys = [tuple(k) for k in read_json(index_dir / "keys.json")]
    windowed = (index_dir / "window_page.npy").exists()
    if windowed:
        window_page = np.load(index_dir / "window_page.npy")
        window_tokens = np.load(index_dir / "window_tokens.npy")
    rows = PageRows(keys)
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(model_of[q.id], []).append(q)
    out = {}
    for name, qs in sorted(groups.items()):
        emb = np.load(index_dir / f"{name}.npy")
        index = (WindowPageIndex(keys, emb, window_page, window_tokens, aggregate) if windowed
                 else PageIndex(keys, emb, ann))
        qv = encode_queries(model_paths[name], [q.question for q in qs], max_seq_length,
                            precision, cache_path)
        for q, v in zip(qs, qv, strict=True):
            docs = None if routed is None else routed[q.id]
            out[q.id] = index.rank(v, top, rows.allowed(cond, q, docs))
    return out


def fold_models(variant: str, fold_of: dict[str, int], questions: list[Question],
                base_model: str, models_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """({qid: model name}, {model name: path}) for ``rank_pages``: the base model for the
    ``untrained`` variant, else each question's held-out fold model under ``models_dir``."""
    if variant == "untrained":
        return {q.id: "base" for q in questions}, {"base": base_model}
    model_of = {q.id: f"fold_{fold_of[q.id]}" for q in questions}
    return model_of, {n: str(models_dir / n) for n in sorted(set(model_of.values()))}
