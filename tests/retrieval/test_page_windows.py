import re

import numpy as np
import pytest

from fingap.retrieval.page_windows import (
    Window,
    best_window,
    normalise_page_text,
    page_scores,
    page_windows,
)


def words(text, add_special_tokens=False, return_offsets_mapping=True, truncation=False,
          verbose=True):
    """A tokenizer stub: one token per run of non-space characters, with its offsets."""
    return {"offset_mapping": [m.span() for m in re.finditer(r"\S+", text)]}


def test_normaliser_puts_a_table_row_on_one_line_and_drops_lone_signs():
    raw = ("Consolidated Statement\n \nNet income\n \n$\n5,363 \n$\n4,869 \nDepreciation\n \n"
           "1,488 \n(370) \nMargin\n37.2 %  \n—\nThe company grew.\nIt also paid 2 dividends.\n")
    assert normalise_page_text(raw) == (
        "Consolidated Statement\nNet income 5,363 4,869\nDepreciation 1,488 (370)\n"
        "Margin 37.2% —\nThe company grew.\nIt also paid 2 dividends.")


def test_normaliser_keeps_a_leading_value_line():
    assert normalise_page_text("2018\nRevenue\n10") == "2018\nRevenue 10"


def test_windows_cover_the_page_with_the_given_stride():
    text = "a b c d e"
    assert page_windows(text, words, 2, 2) == [Window("a b", 2), Window("c d", 2),
                                               Window("e", 1)]
    assert page_windows(text, words, 3, 2) == [Window("a b c", 3), Window("c d e", 3)]
    assert page_windows(text, words, 9, 4) == [Window("a b c d e", 5)]
    assert page_windows("  ", words, 4, 2) == [Window("", 0)]


@pytest.mark.parametrize("size,stride", [(0, 1), (4, 0), (4, 5)])
def test_windows_reject_bad_sizes(size, stride):
    with pytest.raises(ValueError, match="size"):
        page_windows("a b", words, size, stride)


def test_page_scores_maxp_and_token_weighted_mean():
    scores = np.array([0.2, 0.8, 0.5, 0.1])
    page = np.array([0, 0, 1, 2])
    tokens = np.array([100.0, 50.0, 30.0, 0.0])
    assert page_scores(scores, page, tokens, 3, "maxp").tolist() == [0.8, 0.5, 0.1]
    mean = page_scores(scores, page, tokens, 3, "mean")
    # page 0: (0.2 * 100 + 0.8 * 50) / 150 = 0.4; an empty window weighs 1
    assert mean == pytest.approx([0.4, 0.5, 0.1])
    with pytest.raises(ValueError, match="maxp"):
        page_scores(scores, page, tokens, 3, "sum")


def test_best_window_is_the_one_sharing_most_evidence_words():
    ws = ["Revenue grew in 2022", "Capital expenditure was 1,577", "capital expenditure"]
    assert best_window(ws, "Capital expenditure was $1,577 million") == 1
    assert best_window(ws, "nothing shared") == 0
    assert best_window([], "x") == 0


def test_window_config_checks_its_params_and_the_window_size():
    from fingap.core.params import ParamError
    from fingap.retrieval.page_windows import WindowConfig

    assert WindowConfig.from_params({}, "page_windows") == WindowConfig(32, True)
    with pytest.raises(ParamError, match="page_windows.overlap must be an integer >= 0"):
        WindowConfig.from_params({"overlap": -1}, "page_windows")
    with pytest.raises(ParamError, match="page_windows.normalise must be true or false"):
        WindowConfig.from_params({"normalise": "yes"}, "page_windows")
    cfg = WindowConfig(overlap=1, normalise=False)
    # max_seq_length 5: windows of 3 tokens (less [CLS] and [SEP]), 2 new tokens each
    assert [w.text for w in cfg.windows("a b c d e", words, 5)] == ["a b c", "c d e"]
    with pytest.raises(ParamError, match=r"overlap \(3\) must be smaller"):
        WindowConfig(overlap=3).windows("a b c d e", words, 5)


def test_windowed_pages_map_each_window_to_its_page_row():
    from fingap.retrieval.page_windows import WindowConfig, windowed_pages

    pages = {("D", 0): "a b c d e", ("D", 1): "x", ("E", 0): ""}
    texts, rows, tokens = windowed_pages(pages, sorted(pages), words, 5,
                                         WindowConfig(overlap=1, normalise=False))
    assert texts == ["a b c", "c d e", "x", ""]
    assert rows.tolist() == [0, 0, 1, 2] and tokens.tolist() == [3, 3, 1, 0]


def test_window_page_index_ranks_pages_by_their_windows():
    from fingap.retrieval.page_windows import WindowPageIndex

    keys = [("D", 0), ("D", 1), ("E", 0)]
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [0.8, 0.6]])
    page = np.array([0, 0, 1, 2])
    tokens = np.array([10, 30, 5, 5])
    q = np.array([1.0, 0.0])
    maxp = WindowPageIndex(keys, emb, page, tokens, "maxp")
    assert [k for k, _ in maxp.rank(q, 3)] == [("D", 0), ("E", 0), ("D", 1)]
    assert maxp.rank(q, 1)[0][1] == pytest.approx(1.0)
    mean = WindowPageIndex(keys, emb, page, tokens, "mean")
    # D/0: (1.0 * 10 + 0.0 * 30) / 40 = 0.25
    assert [(k, round(s, 2)) for k, s in mean.rank(q, 3)] == [
        (("E", 0), 0.8), (("D", 1), 0.6), (("D", 0), 0.25)]
    assert [k for k, _ in maxp.rank(q, 5, np.array([1, 2]))] == [("E", 0), ("D", 1)]
    with pytest.raises(ValueError, match="window embeddings"):
        WindowPageIndex(keys, emb, page[:3], tokens, "maxp")
