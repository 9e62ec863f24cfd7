import pytest

from fingap.core.params import ParamError
from fingap.retrieval.doc_routing import (
    CoverRecord,
    RoutingWeights,
    acronyms,
    build_cover,
    company_match,
    cover_registrant,
    cover_ticker,
    doc_recall_at,
    extractive_summary,
    hedge_documents,
    hedge_run,
    parse_question,
    period_match,
    route,
    share_company_facts,
)

COVER_10K = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
For the fiscal year ended December 31, 2022
Commission File Number 1-1234
Acme Widgets Holdings, Inc.
(Exact name of registrant as specified in its charter)
Securities registered pursuant to Section 12(b) of the Act:
Title of each class
Trading Symbol(s)
Name of each exchange on which registered
Common Stock, $0.01 par value
ACMW
New York Stock Exchange
"""


def test_cover_page_fields_are_read_from_the_filing():
    assert cover_ticker(COVER_10K) == "ACMW"
    assert cover_registrant(COVER_10K) == "acme widgets holdings inc"
    assert cover_ticker("no symbol here") is None
    # a file-number line right above the label is not a name
    assert cover_registrant("Commission File Number 001-02217\n(Exact name of registrant)") \
        is None


def test_build_cover_takes_metadata_and_first_pages():
    c = build_cover("ACME_2022Q3_10Q", {"company": "Acme Widgets", "doc_type": "10q",
                                        "doc_period": 2022}, [COVER_10K])
    assert (c.company, c.form, c.year, c.quarter, c.ticker) == (
        "Acme Widgets", "10-Q", 2022, 3, "ACMW")
    assert {"acme widgets", "acme", "acme widgets holdings inc"} <= set(c.aliases)
    e = build_cover("ACME_2023_8K_dated-2023-08-30", {"doc_type": "8k", "doc_period": 2023}, [])
    assert (e.company, e.form, e.filed, e.ticker) == ("ACME", "8-K", "2023-08-30", None)


def test_acronyms_only_for_ampersand_pairs_and_long_names():
    assert acronyms("Johnson & Johnson") == {"j&j", "jnj"}
    assert acronyms("Advanced Micro Devices, Inc.") == {"amd"}
    assert acronyms("Best Buy") == set()  # two-letter initials are too ambiguous


def test_question_facets():
    f = parse_question("What was the change from FY2017 to FY 2019 in Q2? see the 10-K")
    assert f.years == [2017, 2019] and f.quarters == [2] and f.forms == ["10-K"]
    f = parse_question("For Pfizer, which region had the biggest drop in Q22023 revenues?")
    assert f.years == [2023] and f.quarters == [2]
    f = parse_question("the second fiscal quarter of 2023, as of August 30, 2023; FY21 too")
    assert f.quarters == [2] and f.years == [2021, 2023] and f.dates == ["2023-08-30"]
    assert parse_question("What is $2019 million?").years == []  # an amount is not a year


def test_company_match_by_alias_prefix_ticker_and_partial_words():
    c = CoverRecord("AMERICANWATERWORKS_2020_10K", "American Water Works", "10-K", 2020,
                    ticker="AWK", aliases=("american water works", "americanwaterworks"))
    assert company_match("How did American Water Works fare?", c) == 1.0
    assert company_match("What about AmericanWaterWorks?", c) == 1.0
    assert company_match("Is AWK leveraged?", c) == 1.0
    assert company_match("is awk leveraged?", c) == pytest.approx(0.0)  # tickers are upper-case
    assert company_match("What do water utilities earn?", c) == pytest.approx(0.5 / 3)


def test_period_match_prefers_the_latest_year_and_later_annual_reports():
    f = parse_question("From FY2017 to FY2019")
    k = {y: CoverRecord(f"X_{y}_10K", "X", "10-K", y) for y in (2017, 2019, 2020, 2022)}
    assert [period_match(f, k[y]) for y in (2019, 2017, 2020, 2022)] == [1.0, 0.5, 0.5, 0.0]
    assert period_match(parse_question("no year"), k[2019]) == 0.25


def test_route_ranks_the_named_company_year_and_form_first():
    covers = [
        CoverRecord("ACME_2022_10K", "Acme", "10-K", 2022, aliases=("acme",)),
        CoverRecord("ACME_2023Q2_10Q", "Acme", "10-Q", 2023, quarter=2, aliases=("acme",)),
        CoverRecord("ACME_2023_10K", "Acme", "10-K", 2023, aliases=("acme",)),
        CoverRecord("BOLT_2023_10K", "Bolt Motors", "10-K", 2023, aliases=("bolt motors",
                                                                           "bolt")),
        CoverRecord("BOLT_2023_8K_dated-2023-05-01", "Bolt Motors", "8-K", 2023,
                    filed="2023-05-01", aliases=("bolt motors", "bolt")),
    ]
    r = route({"a": "What was Acme's FY2023 revenue?",
               "b": "Acme's Q2 2023 quarterly results?",
               "c": "What did Bolt announce on May 1, 2023?",
               "d": "Bolt Motors capital expenditure in 2023"}, covers)
    assert r["a"][0][0] == "ACME_2023_10K"
    assert r["b"][0][0] == "ACME_2023Q2_10Q"
    assert r["c"][0][0] == "BOLT_2023_8K_dated-2023-05-01"
    assert r["d"][0][0] == "BOLT_2023_10K"
    assert all(len(v) == len(covers) for v in r.values())


def test_doc_recall_and_weights():
    assert doc_recall_at(["B"], ["A", "B", "C"], 1) == 0.0
    assert doc_recall_at(["B"], ["A", "B", "C"], 2) == 1.0
    assert RoutingWeights.from_params({"company": 3}).company == 3.0
    with pytest.raises(ParamError, match="routing.weights.bm25"):
        RoutingWeights.from_params({"bm25": -1})


def test_extractive_summary_keeps_prose_lines():
    s = extractive_summary(["Table of Contents\n123\nThe Company designs and sells widgets "
                            "to industrial customers worldwide.\n"], max_chars=40)
    assert s.startswith("The Company designs") and len(s) <= 40


def test_page_rows_restricted_to_routed_documents_only_under_standard():
    import numpy as np

    from fingap.ingestion.corpus import Evidence, Question
    from fingap.retrieval.page_ranking import PageRows

    rows = PageRows([("A", 0), ("B", 0), ("A", 1), ("C", 0)])
    q = Question("q", "A", "A", "10K", "t", "r", "?", "x",
                 [Evidence("A", 1, "e", "e")])
    assert rows.allowed("standard", q) is None
    np.testing.assert_array_equal(rows.allowed("standard", q, ["C", "A"]), [0, 2, 3])
    np.testing.assert_array_equal(rows.allowed("oracle_doc", q), [0, 2])
    assert rows.allowed("standard", q, ["Z"]).size == 0  # a routed document with no pages


def _route_project(tmp_path):
    """A two-filing corpus stage output (documents, one question, one page each) for
    route_docs."""
    from fingap.core.io import write_jsonl
    from fingap.ingestion.corpus import Evidence, Question
    from fingap.ingestion.documents import DocumentRecord

    out = tmp_path / "corpus_out"
    write_jsonl(out / "documents.jsonl", [
        DocumentRecord("ACME_2022_10K", "Acme", "10K", "2022").to_dict(),
        DocumentRecord("BOLT_2022_10K", "Bolt", "10K", "2022").to_dict()])
    qs = [Question("q1", "Bolt", "BOLT_2022_10K", "10K", "t", "r", "Bolt's 2022 revenue?", "1",
                   [Evidence("BOLT_2022_10K", 0, "e", "e")])]
    write_jsonl(out / "questions.jsonl", (q.to_dict() for q in qs))
    write_jsonl(tmp_path / "pages.jsonl", [
        {"doc": "ACME_2022_10K", "page": 0, "text": "Acme annual report for fiscal 2022"},
        {"doc": "BOLT_2022_10K", "page": 0, "text": "Bolt annual report for fiscal 2022"}])
    return out


def test_route_docs_stage_writes_covers_ranking_and_its_doc_recall(tmp_path):
    from fingap.core.io import read_json, read_jsonl
    from fingap.steps.routing import run_route_docs

    out = _route_project(tmp_path)
    rep = run_route_docs({"cover_pages": 1, "keep": 1}, out,
                         tmp_path / "pages.jsonl", tmp_path / "routing", tmp_path / "r.json")
    assert rep["overall"]["DocRec@1"] == 1.0 and rep["n_docs"] == 2
    assert rep["summaries"] == "extractive"
    assert read_json(tmp_path / "routing/ranking.json")["q1"][0][0] == "BOLT_2022_10K"
    assert len(read_json(tmp_path / "routing/ranking.json")["q1"]) == 1  # routing.keep
    assert {c["doc"] for c in read_jsonl(tmp_path / "routing/covers.jsonl")} == {
        "ACME_2022_10K", "BOLT_2022_10K"}


def test_llm_cover_summaries_replace_the_extractive_ones_only_when_asked(tmp_path,
                                                                         monkeypatch):
    from contextlib import contextmanager

    from fingap.core.io import read_jsonl
    from fingap.generation import llm as llm_module
    from fingap.generation.llm_base import Result
    from fingap.steps.routing import run_route_docs

    out = _route_project(tmp_path)
    prompts = []

    class Scripted:
        def generate_many(self, requests):
            prompts.extend(r.messages[-1]["content"] for r in requests)
            # Acme's reply fails: its cover keeps the extractive summary
            return [Result("", "timeout") if "Acme" in r.messages[-1]["content"] else
                    Result("  Bolt's 10-K\nfor fiscal 2022: revenue and segments. ")
                    for r in requests]

    @contextmanager
    def fake_open(params, cache_path):
        yield Scripted()

    monkeypatch.setattr(llm_module, "open_llm", fake_open)
    args = (out, tmp_path / "pages.jsonl", tmp_path / "routing", tmp_path / "r.json")
    with pytest.raises(ParamError, match="routing.summaries"):
        run_route_docs({"cover_pages": 1, "keep": 1, "summaries": "abstractive"}, *args,
                       llm_params={})
    rep = run_route_docs({"cover_pages": 1, "keep": 1, "summaries": "llm"}, *args,
                         llm_params={"backend": "transformers"})
    covers = {c["doc"]: c for c in read_jsonl(tmp_path / "routing/covers.jsonl")}
    assert rep["summaries"] == "llm" and len(prompts) == 2
    assert "Bolt annual report for fiscal 2022" in next(p for p in prompts if "BOLT_2022_10K" in p)
    assert covers["BOLT_2022_10K"]["summary"] == ("Bolt's 10-K for fiscal 2022: revenue and "
                                                  "segments.")
    assert covers["ACME_2022_10K"]["summary"] == "Acme annual report for fiscal 2022"


def test_company_facts_are_shared_by_every_filing_of_the_company():
    tenk = build_cover("ACME_2022_10K", {"company": "Acme Widgets", "doc_type": "10k",
                                         "doc_period": 2022}, [COVER_10K])
    call = build_cover("ACME_2022Q4_EARNINGS", {"company": "Acme Widgets",
                                                "doc_type": "earnings", "doc_period": 2022}, [])
    other = build_cover("BOLT_2022_10K", {"company": "Bolt", "doc_type": "10k",
                                          "doc_period": 2022}, [])
    assert call.ticker is None and "acme widgets holdings inc" not in call.aliases
    shared = {c.doc: c for c in share_company_facts([tenk, call, other])}
    # the earnings release has no cover page: it gets its company's ticker and registrant
    assert shared["ACME_2022Q4_EARNINGS"].ticker == "ACMW"
    assert set(shared["ACME_2022Q4_EARNINGS"].aliases) == set(tenk.aliases) | set(call.aliases)
    assert company_match("What was ACMW's FY2022 margin?", shared["ACME_2022Q4_EARNINGS"]) == 1.0
    # another company keeps its own facts
    assert shared["BOLT_2022_10K"].ticker is None
    assert set(shared["BOLT_2022_10K"].aliases) == set(other.aliases)


def test_hedge_documents_names_the_next_document_only_within_the_margin():
    ranking = {"a": [["D1", 7.0], ["D2", 6.8], ["D3", 1.0]],   # margin 0.2
               "b": [["D1", 7.0], ["D2", 5.0]],                # margin 2.0
               "c": [["D1", 7.0]]}                             # no second document
    assert hedge_documents(ranking, ["a", "b", "c"], 1, 0.5) == {"a": "D2"}
    assert hedge_documents(ranking, ["a", "b", "c"], 1, 2.5) == {"a": "D2", "b": "D2"}
    assert hedge_documents(ranking, ["a", "b", "c"], 1, 0.0) == {}
    # with two routed documents the margin is between the second and the third
    assert hedge_documents(ranking, ["a"], 2, 6.0) == {"a": "D3"}


def test_hedge_run_gives_the_last_slot_to_the_next_documents_best_hit():
    primary = {"a": [("x1", 0.9), ("x2", 0.8), ("x3", 0.7)],
               "b": [("x1", 0.9), ("x2", 0.8), ("x3", 0.7)]}
    secondary = {"a": [("y1", 0.5), ("y2", 0.4)], "b": [("y1", 0.5)]}
    out = hedge_run(primary, secondary, {"a"}, 3)
    assert out["a"] == [("x1", 0.9), ("x2", 0.8), ("y1", 0.5)]
    assert out["b"] == primary["b"]  # not hedged
    # a secondary hit already among the kept hits is skipped
    assert hedge_run({"a": [("x1", 1.0), ("x2", 0.5)]}, {"a": [("x1", 1.0), ("y", 0.1)]},
                     ["a"], 2)["a"] == [("x1", 1.0), ("y", 0.1)]
    # k = 1 has no slot to give
    assert hedge_run(primary, secondary, {"a"}, 1)["a"] == [("x1", 0.9)]
