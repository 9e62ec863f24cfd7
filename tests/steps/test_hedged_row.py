"""The hedged routed row's wiring in the zoo context: its last slot comes from a page ranking
restricted to the next routed document, for the questions within the margin only."""

from pathlib import Path

from fingap.core.params import load_params
from fingap.retrieval import page_ranking
from fingap.steps.zoo import PATHS, Context

ROOT = Path(__file__).resolve().parents[2]


def _context(monkeypatch, margin: float) -> tuple[Context, list]:
    params = load_params(ROOT / "params.yaml")
    params["routing"].update(top_docs=1, hedge_margin=margin)
    ctx = Context.__new__(Context)  # no built project: the page ranking is stubbed
    ctx.params, ctx.paths, ctx.k = params, PATHS, 3
    ctx.questions, ctx.queries = [], {"a": "unsure", "b": "sure"}
    ctx._cache = {"routing": {"a": [["D1", 7.0], ["D2", 6.8]], "b": [["D1", 7.0], ["D2", 3.0]]}}
    ctx.fold_of = lambda: {}
    calls = []

    def rank_pages(index, questions, model_of, paths, max_len, precision, cond, top, cache,
                   docs, aggregate, ann=None):
        calls.append((cond, docs))
        doc = {q: docs[q][0] if docs else "GOLD" for q in ctx.queries}
        return {q: [((doc[q], 0), 0.9), ((doc[q], 1), 0.8), ((doc[q], 2), 0.7)]
                for q in ctx.queries}

    monkeypatch.setattr(page_ranking, "rank_pages", rank_pages)
    monkeypatch.setattr(page_ranking, "fold_models", lambda *a: (None, None))
    # page order over the stubbed ranking: one chunk per page, named after its page
    monkeypatch.setattr(ctx, "page_scorer_final", lambda cond, strategy, ranked: {
        q: [(f"{d}::p{p}", s) for (d, p), s in pages] for q, pages in ranked.items()})
    return ctx, calls


def test_hedged_question_gives_its_last_slot_to_the_next_document(monkeypatch):
    ctx, calls = _context(monkeypatch, margin=0.5)
    run = ctx.hedged_routed_run("standard")
    assert run["a"] == [("D1::p0", 0.9), ("D1::p1", 0.8), ("D2::p0", 0.9)]
    assert run["b"] == [("D1::p0", 0.9), ("D1::p1", 0.8), ("D1::p2", 0.7)]
    # one ranking within the routed document, one within the next
    assert [docs for _, docs in calls] == [{"a": ["D1"], "b": ["D1"]},
                                           {"a": ["D2"], "b": ["D2"]}]


def test_no_hedge_at_margin_zero_or_under_an_oracle_condition(monkeypatch):
    ctx, _ = _context(monkeypatch, margin=0.0)
    assert all(p.startswith("D1") for hits in ctx.hedged_routed_run("standard").values()
               for p, _ in hits)
    ctx, calls = _context(monkeypatch, margin=5.0)
    ctx.hedged_routed_run("oracle_doc")
    assert calls == [("oracle_doc", None)]
