"""Late interaction (MaxSim) over the routed hard-negative scorer's top pages, at query time
(the ``page_maxsim*`` rows of ``retrieve_zoo``; #14 part 3's fallback).

Each question's first ``page_maxsim.candidates`` pages are reordered by MaxSim between its
tokens and all of each page's tokens (fingap.retrieval.late_interaction), as seen by the
question's fold's hard-negative scorer, or by its base model for the untrained row. Nothing is
trained: the trained row only reads the fold model's token vectors, and that model never saw the
question's document (asserted from ``fingap_fold.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..core.params import require_int
from ..ingestion.corpus import Question
from ..retrieval.late_interaction import PageTokens, TokenEncoder
from ..retrieval.page_ranking import load_bi_encoder
from ..retrieval.page_rerank import rerank_pages
from ..training.page_scorer import TrainConfig

PageKey = tuple[str, int]
Ranked = Mapping[str, Sequence[tuple[PageKey, float]]]


def maxsim_candidates(params: dict) -> int:
    """``page_maxsim.candidates``: how many of the first stage's pages MaxSim reorders."""
    return require_int(params["page_maxsim"], "page_maxsim", "candidates", minimum=1)


def maxsim_with_folds(ranked: Ranked, questions: Sequence[Question], fold_of: Mapping[str, int],
                      model_of_fold: Callable[[int], str], windows_of, train: TrainConfig,
                      n: int, batch_size: int = 32) -> dict:
    """Each question's first ``n`` pages of ``ranked`` reordered by MaxSim under the encoder
    ``model_of_fold(fold)`` of its fold (one model loaded at a time; its page tokens are
    dropped before the next fold's, which would not share them anyway)."""
    out: dict = {}
    for fold in sorted({fold_of[q.id] for q in questions}):
        qs = [q for q in questions if fold_of[q.id] == fold]
        encoder = TokenEncoder(load_bi_encoder(model_of_fold(fold), train.max_seq_length),
                               train.precision, batch_size)
        pages = PageTokens(encoder, windows_of)
        query_tokens = encoder([q.question for q in qs])
        for q, qt in zip(qs, query_tokens, strict=True):
            top = [k for k, _ in ranked[q.id][:n]]
            out[q.id] = rerank_pages(ranked[q.id], pages.scores(qt, top), n)
    return out
