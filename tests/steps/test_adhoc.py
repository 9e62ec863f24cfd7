"""Ad-hoc retrieval (fingap.steps.adhoc): which fold's models score a new question, and the
method checks."""

import pytest

from fingap.steps.adhoc import AdHocError, AdHocQuestion, check_method, choose_fold, known_methods

FOLDS = {"n_folds": 3, "folds": [
    {"fold": 0, "test_docs": ["A_2020_10K"], "test_questions": ["q1"], "train_docs": []},
    {"fold": 1, "test_docs": ["B_2021_10Q"], "test_questions": ["q2", "q3"], "train_docs": []},
    {"fold": 2, "test_docs": ["C_2022_8K"], "test_questions": ["q4"], "train_docs": []},
]}


def test_an_evaluated_question_keeps_its_own_fold():
    assert choose_fold("q4", "A_2020_10K", FOLDS) == (2, "the question's own cross-validation fold")


def test_a_new_question_on_a_known_document_gets_the_fold_that_held_it_out():
    fold, why = choose_fold("new", "B_2021_10Q", FOLDS)
    assert fold == 1 and "held out B_2021_10Q" in why


def test_a_new_question_elsewhere_gets_the_fixed_first_fold():
    assert choose_fold("new", None, FOLDS)[0] == 0
    assert choose_fold("new", "Z_2019_10K", FOLDS)[0] == 0
    assert "fixed fold 0" in choose_fold("new", "Z_2019_10K", FOLDS)[1]


def test_methods_offered_and_checked(tmp_path, monkeypatch):
    methods = known_methods()
    assert methods[:3] == ["bm25", "dense", "fingap_best"]
    assert "page_scorer" in methods and "page_scorer_hn_page_order" in methods
    assert "hyde" not in methods  # needs LLM passages made for the evaluated questions only
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AdHocError, match="valid methods: bm25, dense, fingap_best"):
        check_method("nosuch")
    with pytest.raises(AdHocError, match="not built here"):
        check_method("page_scorer")
    (tmp_path / "data/runs/page_scorer").mkdir(parents=True)
    assert check_method("page_scorer") == "page_scorer"


def test_ad_hoc_question_conditions():
    q = AdHocQuestion("x", "capex?", "A_2020_10K", [("A_2020_10K", 3)]).as_question()
    assert q.gold_docs == ["A_2020_10K"] and q.gold_pages == [("A_2020_10K", 3)]


def test_fingap_best_substitutes_a_choice_that_cannot_score_new_questions(tmp_path, monkeypatch):
    import json

    from fingap.steps.adhoc import AdHocRetriever

    monkeypatch.chdir(tmp_path)
    for m in ("fingap_best", "page_scorer", "page_scorer_hn_page_order", "page_scorer_reranker"):
        (tmp_path / "data/runs" / m).mkdir(parents=True)
    (tmp_path / "reports").mkdir()
    inner = {"page_scorer_reranker": 0.6, "page_scorer_hn_page_order": 0.5,
             "page_scorer": 0.4, "page_hybrid": 0.55}  # page_hybrid: not built here
    (tmp_path / "reports/best_selection.json").write_text(json.dumps({"folds": {
        "0": {"method": "page_scorer_reranker", "inner": inner},
        "1": {"method": "page_scorer", "inner": inner}}}))
    r = AdHocRetriever("fingap_best", params={})
    assert r._resolve(0) == "page_scorer_hn_page_order"  # best servable, built candidate
    assert r._resolve(1) == "page_scorer"


def test_a_new_question_is_routed_as_the_stage_routes_the_evaluated_ones(tmp_path):
    from fingap.core.io import write_jsonl
    from fingap.retrieval.doc_routing import build_cover
    from fingap.steps.routing import adhoc_ranking, ranking_for

    covers = [build_cover("ACME_2022_10K", {"company": "Acme Widgets", "doc_type": "10k",
                                            "doc_period": 2022}, ["Acme annual report"]),
              build_cover("GLOBEX_2023Q2_10Q", {"company": "Globex", "doc_type": "10q",
                                                 "doc_period": 2023}, ["Globex quarter"])]
    write_jsonl(tmp_path / "covers.jsonl", (c.to_dict() for c in covers))
    params = {"keep": 2, "weights": {"company": 4.0, "bm25": 0.5}}
    q = {"new": "What was Globex's Q2 2023 revenue?"}
    from fingap.retrieval.doc_routing import RoutingWeights

    stage = ranking_for(q, covers, RoutingWeights.from_params(params["weights"]), 2)
    assert adhoc_ranking(q, params, tmp_path / "covers.jsonl") == stage
    assert stage["new"][0][0] == "GLOBEX_2023Q2_10Q"
    with pytest.raises(FileNotFoundError, match="route_docs"):
        adhoc_ranking(q, params, tmp_path / "missing.jsonl")


def test_routed_methods_are_offered():
    methods = known_methods()
    for m in ("page_scorer_untrained_routed", "page_scorer_routed",
              "page_scorer_hn_page_order_routed", "page_scorer_hn_page_order_routed_hedged",
              "page_reranker_routed", "page_maxsim_untrained_routed"):
        assert m in methods, m


def test_the_stored_ranking_falls_back_to_the_committed_per_question_record(tmp_path,
                                                                              monkeypatch):
    import json

    import pytest

    from fingap.steps import adhoc

    monkeypatch.setattr(adhoc, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(adhoc, "PER_QUESTION", tmp_path / "per_question")
    with pytest.raises(adhoc.AdHocError, match="no stored run"):
        adhoc._stored_top("m", "standard")
    (tmp_path / "per_question").mkdir()
    (tmp_path / "per_question" / "m__standard.jsonl").write_text(json.dumps(
        {"question_id": "q1", "retrieved": [["D::p0001::c00", "D", 1, 0.5],
                                            ["D::p0002::c00", "D", 2, 0.4]]}) + "\n")
    ranking, where = adhoc._stored_top("m", "standard")
    assert ranking == {"q1": [("D::p0001::c00", 0.5), ("D::p0002::c00", 0.4)]}
    assert where.endswith("m__standard.jsonl")


def test_fingap_best_is_built_when_every_folds_choice_can_run(tmp_path, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/best_selection.json").write_text(json.dumps({"folds": {
        "0": {"method": "page_scorer_hn_page_order", "inner": {}},
        "1": {"method": "page_scorer_reranker", "inner": {"page_scorer": 0.4}}}}))
    with pytest.raises(AdHocError, match="not built here"):
        check_method("fingap_best")
    (tmp_path / "data/runs/page_scorer_hn_page_order").mkdir(parents=True)
    with pytest.raises(AdHocError, match="not built here"):  # fold 1 has nothing to run
        check_method("fingap_best")
    (tmp_path / "data/runs/page_scorer").mkdir(parents=True)
    assert check_method("fingap_best") == "fingap_best"     # no fingap_best run needed
