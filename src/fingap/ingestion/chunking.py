"""Token-window chunking within a page.

Invariants (tested): a chunk never crosses a page; windows of ``size`` tokens start every
``size - overlap`` tokens; the last window ends at the page's last token; together the windows
cover every token of the page. Tokens are counted with the dense embedder's own tokenizer, and a
chunk's text is the exact span of the page text its tokens came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.params import ParamError


@dataclass
class Chunk:
    chunk_id: str
    doc: str
    page: int
    index: int
    token_start: int
    token_end: int
    char_start: int
    char_end: int
    text: str

    @property
    def n_tokens(self) -> int:
        return self.token_end - self.token_start


def validate_window(size: int, overlap: int, name: str = "chunk") -> None:
    if not isinstance(size, int) or size <= 0:
        raise ParamError(f"{name}.size must be a positive integer, got {size!r}")
    if not isinstance(overlap, int) or overlap < 0:
        raise ParamError(f"{name}.overlap must be a non-negative integer, got {overlap!r}")
    if overlap >= size:
        raise ParamError(f"{name}.overlap ({overlap}) must be smaller than {name}.size ({size})")


def windows(n_tokens: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """[start, end) token windows covering ``n_tokens`` tokens."""
    validate_window(size, overlap)
    if n_tokens <= 0:
        return []
    step = size - overlap
    out = []
    start = 0
    while True:
        end = min(start + size, n_tokens)
        out.append((start, end))
        if end == n_tokens:
            return out
        start += step


def chunk_id(doc: str, page: int, index: int) -> str:
    return f"{doc}::p{page:04d}::c{index:02d}"


class PageChunker:
    """Splits page texts into token windows using a Hugging Face fast tokenizer."""

    def __init__(self, tokenizer, size: int, overlap: int):
        validate_window(size, overlap)
        self.tokenizer = tokenizer
        self.size = size
        self.overlap = overlap

    def offsets(self, texts: list[str]) -> list[list[tuple[int, int]]]:
        enc = self.tokenizer(
            texts,
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
            return_token_type_ids=False,
            verbose=False,
        )
        return [[tuple(o) for o in offs] for offs in enc["offset_mapping"]]

    def chunk_pages(
        self, pages: Iterable[tuple[str, int, str]], batch_size: int = 64
    ) -> Iterator[Chunk]:
        """Yield chunks for (doc, page, text) triples, in input order."""
        batch: list[tuple[str, int, str]] = []
        for item in pages:
            batch.append(item)
            if len(batch) == batch_size:
                yield from self._chunk_batch(batch)
                batch = []
        if batch:
            yield from self._chunk_batch(batch)

    def _chunk_batch(self, batch: list[tuple[str, int, str]]) -> Iterator[Chunk]:
        all_offsets = self.offsets([t for _, _, t in batch])
        for (doc, page, text), offs in zip(batch, all_offsets, strict=True):
            for i, (s, e) in enumerate(windows(len(offs), self.size, self.overlap)):
                c0, c1 = offs[s][0], offs[e - 1][1]
                yield Chunk(chunk_id(doc, page, i), doc, page, i, s, e, c0, c1, text[c0:c1])


# ---------------------------------------------------------------- chunk
def load_tokenizer(model: str):
    from transformers import AutoTokenizer

    from ..core.models import ensure_offline, resolve_model

    ensure_offline()
    return AutoTokenizer.from_pretrained(resolve_model(model))


def model_max_len(model: str) -> int:
    import json

    from ..core.models import resolve_model

    cfg = Path(resolve_model(model)) / "sentence_bert_config.json"
    return int(json.loads(cfg.read_text()).get("max_seq_length", 512)) if cfg.exists() else 512


def chunk_to_row(c: Chunk) -> dict:
    d = vars(c).copy()
    d["n_tokens"] = c.n_tokens
    return d
