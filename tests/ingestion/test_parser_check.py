"""Parser regression: fingerprint comparison, and the CI subset of the real corpus."""

import pytest

from fingap.ingestion.corpus import CorpusError, locate_corpus
from fingap.ingestion.fingerprint import alignment_by_doc, compare, fingerprint, format_report
from fingap.ingestion.parser_check import CI_SUBSET, GOLDEN, check_parser


def _fp(pages, aligned=(1, 1)):
    return fingerprint(pages, {"D": list(aligned)})


def test_unchanged_extraction_is_ok():
    pages = [("D", 0, "a b"), ("D", 1, "c")]
    report = compare(_fp(pages), _fp([("D", 0, "a  b\n"), ("D", 1, "c")]))  # whitespace only
    assert not report["regression"] and report["changed"] == {}


def test_changed_page_count_text_and_alignment_are_regressions():
    base = _fp([("D", 0, "a"), ("D", 1, "b")])
    changed = compare(base, _fp([("D", 0, "a"), ("D", 1, "B!")]))
    assert changed["regression"] and changed["changed"]["D"]["pages"] == [1]
    shorter = compare(base, _fp([("D", 0, "a")]))
    assert shorter["changed"]["D"]["n_pages"] == [2, 1]
    dropped = compare(base, _fp([("D", 0, "a"), ("D", 1, "b")], aligned=(0, 1)))
    assert dropped["alignment_dropped"] and dropped["regression"]
    missing = compare(base, fingerprint([], {}))
    assert missing["missing"] == ["D"]
    text = format_report(changed)
    assert "CHANGED  D" in text and "REGRESSION" in text


def test_changed_facts_are_a_regression():
    fact = {"doc": "D", "page": 0, "label": "Net sales", "year": 2022, "duration": "12M",
            "printed": "1,577", "scale": "millions", "statement": "income", "table": 0,
            "column": 0}
    pages = [("D", 0, "a")]
    base = fingerprint(pages, {"D": [1, 1]}, facts=[fact])
    assert not compare(base, fingerprint(pages, {"D": [1, 1]}, facts=[dict(fact)]))["regression"]
    moved = compare(base, fingerprint(pages, {"D": [1, 1]}, facts=[fact | {"year": 2021}]))
    assert moved["regression"] and moved["facts_changed"] == {"D": [0]}
    assert "FACTS    D" in format_report(moved)
    lost = compare(base, fingerprint(pages, {"D": [1, 1]}, facts=[]))
    assert lost["facts_changed"] == {"D": [0]}


def test_alignment_by_doc():
    recs = [{"doc": "A", "aligned": True}, {"doc": "A", "aligned": False},
            {"doc": "B", "aligned": True}]
    assert alignment_by_doc(recs) == {"A": [1, 2], "B": [1, 1]}


def test_ci_subset_of_real_corpus_matches_committed_fingerprint():
    try:
        corpus = locate_corpus(None)
    except CorpusError:
        pytest.skip("FinanceBench not available (../shared/financebench or $FINANCEBENCH_DIR)")
    report = check_parser(corpus, GOLDEN, CI_SUBSET)
    assert report["n_docs"] == len(CI_SUBSET)
    assert not report["regression"], format_report(report)
    assert report["gold_alignment"]["actual"] == 1.0
