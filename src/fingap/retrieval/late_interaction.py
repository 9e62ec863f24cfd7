"""Late interaction over a bi-encoder's own token vectors (MaxSim, as in ColBERT; #14 part 3's
fallback when a cross-encoder cannot beat the bi-encoder).

A page scores as the mean, over the question's tokens, of each token's best cosine with any
token of the page. The page is read whole: its tokens are those of all its windows
(fingap.retrieval.page_windows), so nothing past the encoder's 256 tokens is lost, and the
windows' shared tokens change no maximum. Special tokens ([CLS], [SEP]) are left out on both
sides: they summarise a whole window rather than match a word. No weight is trained here; the
token vectors are those of whichever bi-encoder is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.precision import autocast
from .page_rerank import PageWindowVectors

PageKey = tuple[str, int]


def maxsim(query: np.ndarray, page: np.ndarray) -> float:
    """Mean over the query's token vectors of the best dot product with a page token vector
    (cosine for L2-normalised rows); 0.0 when either side has no tokens."""
    if len(query) == 0 or len(page) == 0:
        return 0.0
    return float((query.astype(np.float32) @ page.astype(np.float32).T).max(axis=1).mean())


class TokenEncoder:
    """L2-normalised token vectors of texts from a SentenceTransformer, special tokens dropped,
    each text truncated at the model's max_seq_length."""

    def __init__(self, model, precision: str, batch_size: int = 32):
        self.model, self.precision, self.batch_size = model, precision, batch_size

    def __call__(self, texts: Sequence[str]) -> list[np.ndarray]:
        texts = list(texts)
        if not texts:
            return []
        with autocast(self.precision):
            vecs = self.model.encode(texts, output_value="token_embeddings",
                                     batch_size=self.batch_size, show_progress_bar=False)
        special = self.model.tokenizer(texts, truncation=True,
                                       max_length=self.model.max_seq_length,
                                       return_special_tokens_mask=True)["special_tokens_mask"]
        out = []
        for text, v, mask in zip(texts, vecs, special, strict=True):
            v = v.float().cpu().numpy()
            if len(mask) != len(v):
                raise RuntimeError(f"token vectors ({len(v)}) and tokens ({len(mask)}) disagree "
                                   f"for text {text[:40]!r}")
            v = v[~np.asarray(mask, dtype=bool)]
            norms = np.linalg.norm(v, axis=1, keepdims=True)
            out.append((v / np.maximum(norms, 1e-12)).astype(np.float16))
        return out


class PageTokens:
    """Each page's token vectors over all its windows, encoded once and kept (float16)."""

    def __init__(self, encode: Callable[[Sequence[str]], list[np.ndarray]],
                 windows_of: Callable[[PageKey], Sequence[str]]):
        self._tokens = PageWindowVectors(encode, windows_of, _joined)

    def scores(self, query: np.ndarray, keys: Sequence[PageKey]) -> list[float]:
        """MaxSim of the query's token vectors against each page's."""
        return [maxsim(query, page) for page in self._tokens.of(keys)]


def _joined(windows: Sequence[np.ndarray]) -> np.ndarray:
    """A page's tokens: its windows' token vectors one after another."""
    if not len(windows):
        return np.zeros((0, 0), np.float16)
    return np.concatenate(list(windows))
