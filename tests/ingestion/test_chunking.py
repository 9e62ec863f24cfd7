import pytest

from fingap.core.params import ParamError
from fingap.ingestion.chunking import PageChunker, chunk_id, validate_window, windows


@pytest.mark.parametrize("n,size,overlap", [(0, 4, 1), (1, 4, 1), (4, 4, 1), (5, 4, 1),
                                            (10, 4, 0), (1000, 1024, 128), (2500, 1024, 128),
                                            (17, 5, 4)])
def test_window_invariants(n, size, overlap):
    ws = windows(n, size, overlap)
    if n == 0:
        assert ws == []
        return
    covered = set()
    for s, e in ws:
        assert 0 <= s < e <= n and e - s <= size
        covered.update(range(s, e))
    assert covered == set(range(n))  # every token is in some chunk
    assert ws[0][0] == 0 and ws[-1][1] == n
    for (s1, e1), (s2, _) in zip(ws, ws[1:], strict=False):
        assert e1 - s2 == overlap  # consecutive windows overlap by exactly `overlap`
        assert s2 - s1 == size - overlap


def test_hand_computed_windows():
    assert windows(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert windows(3, 4, 1) == [(0, 3)]


@pytest.mark.parametrize("size,overlap", [(0, 0), (-1, 0), (4, 4), (4, 5), (4, -1)])
def test_invalid_windows_fail_naming_the_param(size, overlap):
    with pytest.raises(ParamError, match="chunk"):
        validate_window(size, overlap)


def test_chunks_stay_within_pages_and_cover_text(minilm_tokenizer):
    text_a = " ".join(f"word{i} revenue" for i in range(60))
    pages = [("DOC", 0, text_a), ("DOC", 1, "short page"), ("DOC", 2, ""), ("OTHER", 0, text_a)]
    chunker = PageChunker(minilm_tokenizer, size=32, overlap=8)
    chunks = list(chunker.chunk_pages(pages, batch_size=2))
    assert {(c.doc, c.page) for c in chunks} == {("DOC", 0), ("DOC", 1), ("OTHER", 0)}
    for c in chunks:
        page_text = dict(((d, p), t) for d, p, t in pages)[(c.doc, c.page)]
        assert c.text == page_text[c.char_start:c.char_end]  # exact span of its own page
        assert c.n_tokens <= 32
        assert c.chunk_id == chunk_id(c.doc, c.page, c.index)
    page0 = [c for c in chunks if (c.doc, c.page) == ("DOC", 0)]
    n_tokens = len(minilm_tokenizer(text_a, add_special_tokens=False)["input_ids"])
    assert page0[-1].token_end == n_tokens
    assert page0[0].char_start == 0 and page0[-1].char_end == len(text_a)
    # token counts are the embedder tokenizer's own
    for c in page0:
        assert len(minilm_tokenizer(c.text, add_special_tokens=False)["input_ids"]) == c.n_tokens
