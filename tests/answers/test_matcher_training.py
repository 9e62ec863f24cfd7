import sqlite3

import pytest

from fingap.answers.labels import Concept, Vocabulary
from fingap.answers.matcher_training import NONE, matcher_pairs, printed_rows, train_label_matcher
from fingap.core.params import ParamError


def _vocab() -> Vocabulary:
    return Vocabulary({
        "total_assets": Concept("total_assets", "balance", (), ("Total assets",), True),
        "inventory": Concept("inventory", "balance", (), ("Inventories", "Inventory"), True)})


ROWS = [("D", 3, "total assets", "total_assets"),
        ("D", 3, "total current assets", None),
        ("D", 3, "merchandise inventories", "inventory"),
        ("E", 9, "inventories net", "inventory"),
        ("E", 9, "accounts payable", None)]
MEANINGS = {"total_assets": ["everything the company owns"],
            "inventory": ["goods held for sale"]}


def test_pairs_join_meanings_and_terms_to_printed_labels_of_the_same_concept():
    data = matcher_pairs(_vocab(), MEANINGS, ROWS, max_per_concept=50, seed=0)
    pairs = {(c, a, p) for c, a, p, _ in data.pairs}
    assert ("total_assets", "everything the company owns", "total assets") in pairs
    assert ("inventory", "goods held for sale", "merchandise inventories") in pairs
    assert ("inventory", "inventories", "inventory") in pairs          # term to term
    # a text is never its own positive, and no pair crosses concepts
    assert all(a != p for _, a, p, _ in data.pairs)
    assert not any(c == "total_assets" and "inventor" in p for c, _, p in pairs)
    # another row of the concept is masked in the batch, not a negative
    assert ("inventory", "inventories net") in data.gold["inventory"]


def test_hard_negatives_are_other_line_items_printed_on_the_positives_page():
    data = matcher_pairs(_vocab(), MEANINGS, ROWS, max_per_concept=50, seed=0)
    for (concept, _, positive, _), pool in zip(data.pairs, data.negatives, strict=True):
        texts = {t for t, _ in pool}
        if positive == "total assets":
            assert texts == {"total current assets", "merchandise inventories"}
            assert ("total current assets", (NONE, "total current assets")) in pool
        assert all(key[0] != concept for _, key in pool)
        assert all(key not in data.gold[concept] for _, key in pool)


def test_pairs_are_capped_per_concept_and_reproducible():
    capped = matcher_pairs(_vocab(), MEANINGS, ROWS, max_per_concept=2, seed=1)
    assert capped.per_concept == {"inventory": 2, "total_assets": 1}
    assert capped.pairs == matcher_pairs(_vocab(), MEANINGS, ROWS, 2, seed=1).pairs


def test_printed_rows_reads_distinct_labelled_rows(tmp_path):
    db = tmp_path / "facts.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE facts (doc, page, label_norm, concept)")
        conn.executemany("INSERT INTO facts VALUES (?, ?, ?, ?)",
                         [("D", 3, "total assets", "total_assets"),
                          ("D", 3, "total assets", "total_assets"), ("D", 3, "", None),
                          ("D", 4, "other", None)])
    assert printed_rows(db) == [("D", 3, "total assets", "total_assets"), ("D", 4, "other", None)]


def test_bad_settings_and_an_empty_store_fail_before_training(tmp_path):
    from fingap.training.page_scorer import TrainConfig

    db = tmp_path / "facts.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE facts (doc, page, label_norm, concept)")
    with pytest.raises(ParamError, match="max_per_concept"):
        train_label_matcher(_vocab(), MEANINGS, db, TrainConfig(), 0, 1)
    with pytest.raises(ValueError, match="no pairs"):
        train_label_matcher(Vocabulary({}), MEANINGS, db, TrainConfig(), 10, 1)
