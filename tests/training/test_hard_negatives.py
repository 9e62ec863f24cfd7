import json

import numpy as np
import pytest

from fingap.core.params import ParamError
from fingap.evaluation.epochs_report import render_epochs_report
from fingap.ingestion.corpus import Evidence, Question
from fingap.steps.page_scorer_hn import HardNegativeConfig, epochs_study, run_train_hn
from fingap.training.hard_negatives import (
    evidence_recall,
    mine_negatives,
    rank_by_scores,
    split_validation,
)
from fingap.training.page_scorer import NegativeDraw, _gold_masked_mnr_loss


def _q(qid, doc, pages, text="", question="what?"):
    return Question(qid, "", doc, "10k", "metrics-generated", "", question, "",
                    [Evidence(doc, p, text, "") for p in pages])


def test_evidence_recall_counts_distinct_finance_tokens():
    # evidence tokens: capex, $1,577, 1577 (canonical), 2018 ("was", "in" are stop words);
    # the page has 1577 and 2018 (its raw token is "1,577", not "$1,577")
    assert evidence_recall("Capex was $1,577 in 2018", "in 2018 we spent 1,577") == 0.5
    assert evidence_recall("", "anything") == 0.0


def test_mine_negatives_same_document_non_gold_best_first_and_skips_likely_positives():
    keys = [("A", 0), ("A", 1), ("A", 2), ("A", 3), ("B", 0)]
    texts = {("A", 0): "gold page capex 1577", ("A", 1): "repeats capex 1577 elsewhere",
             ("A", 2): "unrelated", ("A", 3): "also unrelated", ("B", 0): "other filing"}
    scores = np.array([0.9, 0.8, 0.7, 0.1, 1.0])  # B's page scores highest but is another doc
    q = _q("q", "A", [0], text="capex 1577")
    ranked = rank_by_scores(keys, lambda _: scores)
    assert ranked(q) == [("A", 0), ("A", 1), ("A", 2), ("A", 3)]
    neg, counts = mine_negatives([q], ranked, texts, top=1, false_negative_recall=0.8)
    assert neg == {"q": [("A", 2)]}  # (A, 1) holds the whole snippet: a likely positive
    assert counts["dropped_as_likely_positive"] == 1 and counts["negatives"] == 1
    neg, _ = mine_negatives([q], ranked, texts, top=5, false_negative_recall=1.0)
    assert neg["q"] == [("A", 2), ("A", 3)]


def test_split_validation_is_document_grouped_deterministic_and_checked():
    qs = [_q(f"q{i}", f"D{i % 7}", [0]) for i in range(21)]
    fit, val = split_validation(qs, 0.3, seed=1)
    assert {q.doc for q in fit}.isdisjoint({q.doc for q in val})
    assert len({q.doc for q in val}) == 3  # ceil(0.3 * 7)
    assert len(fit) + len(val) == 21
    assert [q.id for q in split_validation(qs, 0.3, seed=1)[1]] == [q.id for q in val]
    with pytest.raises(ParamError, match="val_fraction"):
        split_validation(qs, 1.0, seed=1)
    with pytest.raises(ParamError, match="2 training documents"):
        split_validation([_q("a", "D", [0])], 0.5, seed=1)


def test_trainer_history_becomes_the_training_record():
    from fingap.training.page_scorer import Validation, _result

    val = Validation({"q": "Q"}, {"A#1": "p"}, {"q": {"A#1"}}, metric="MRR@20")
    history = [{"loss": 2.0, "step": 1, "epoch": 0.5}, {"loss": 1.0, "step": 2, "epoch": 1.0},
               {"eval_val_cosine_mrr@20": 0.5, "eval_val_cosine_recall@5": 0.4,
                "eval_val_cosine_recall@20": 0.6, "epoch": 1.0, "step": 2},
               {"loss": 0.5, "step": 3, "epoch": 1.5}, {"loss": 0.5, "step": 4, "epoch": 2.0},
               {"eval_val_cosine_mrr@20": 0.5, "eval_val_cosine_recall@5": 0.5,
                "eval_val_cosine_recall@20": 0.7, "epoch": 2.0, "step": 4},
               {"train_loss": 1.0, "epoch": 2.0, "step": 4}]
    res = _result(history, 3, 12.0, {"val": 2.0, "train_at_epoch": {1: 4.0, 2: 9.0}}, val)
    assert res.step_loss == [2.0, 1.0, 0.5, 0.5] and res.epoch_loss == [1.5, 0.5]
    assert res.n_steps == 4 and res.val_seconds == 2.0
    assert [r["epoch"] for r in res.val_curve] == [1, 2]
    assert res.val_curve[1] == {"epoch": 2, "MRR@20": 0.5, "PageRec@5": 0.5, "PageRec@20": 0.7,
                                "n": 1, "train_seconds": 9.0}
    assert res.best_epoch == 1  # a tie is no gain: the earlier epoch stays best

def test_negative_draw_is_fresh_each_epoch_reproducible_and_padded():
    pairs = [("q1", "Q1", "p1", ("A", 1)), ("q2", "Q2", "p2", ("A", 2))]
    pools = [[(f"n{i}", ("A", 10 + i)) for i in range(6)], []]
    draw = NegativeDraw(pairs, pools, 2, seed=7)
    epoch0 = draw.pick(0)
    assert len(epoch0) == 2 and all(t.startswith("n") for t, _ in epoch0)
    assert draw.pick(0) == epoch0  # the same epoch gives the same draw
    draws = set()
    for e in range(5):
        draw.epoch = e
        draws.add(tuple(draw.pick(0)))
    assert len(draws) > 1  # drawn afresh across epochs
    # an empty pool is padded with the pair's own positive (masked by the loss)
    assert draw.pick(1) == [("p2", ("A", 2))] * 2
    out = draw.transform({"label": [1, 0], "anchor": ["Q2", "Q1"]})
    assert out["negative_0"][0] == "p2" and out["negative_1"][0] == "p2"


def test_gold_mask_hides_other_gold_pages_and_padding_not_the_own_positive():
    from fingap.retrieval.page_ranking import load_bi_encoder

    pairs = [("q1", "Q1", "p1", ("A", 1)), ("q1", "Q1", "p2", ("A", 2)),
             ("q2", "Q2", "p3", ("A", 3))]
    pools = [[("n5", ("A", 5))], [("n5", ("A", 5))], [("p2", ("A", 2))]]
    gold = {"q1": {("A", 1), ("A", 2)}, "q2": {("A", 3)}}
    draw = NegativeDraw(pairs, pools, 1, seed=0)
    loss = _gold_masked_mnr_loss(load_bi_encoder("minilm", 16), 20.0, pairs, gold, draw)
    # columns: positives p1 (A,1), p3 (A,3); negatives n5 (A,5), p2 (A,2)
    mask = loss.exclusion([0, 2]).tolist()
    # q2's hard negative (A, 2) is q1's other gold page: hidden for row q1, kept for q2
    assert mask == [[False, False, False, True], [False, False, False, False]]
    # a row whose pool was empty has its own positive as padding: hidden for that row only
    draw = NegativeDraw(pairs, [[], [], []], 1, seed=0)
    loss = _gold_masked_mnr_loss(load_bi_encoder("minilm", 16), 20.0, pairs, gold, draw)
    assert loss.exclusion([0, 2]).tolist() == [[False, False, True, False],
                                               [False, False, False, True]]


def test_masked_columns_do_not_count_in_the_loss():
    import torch

    from fingap.retrieval.page_ranking import load_bi_encoder

    pairs = [("q1", "Q1", "p1", ("A", 1)), ("q2", "Q2", "p2", ("A", 2))]
    model = load_bi_encoder("minilm", 16)
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    docs = torch.tensor([[1.0, 0.0], [0.99, 0.1]])  # row 1's positive is near row 0's
    plain = _gold_masked_mnr_loss(model, 20.0, pairs, {"q1": {("A", 1)}, "q2": {("A", 2)}}, None)
    masked = _gold_masked_mnr_loss(model, 20.0, pairs,
                                   {"q1": {("A", 1), ("A", 2)}, "q2": {("A", 2)}}, None)
    masked._mask = masked.exclusion([0, 1])
    plain._mask = plain.exclusion([0, 1])
    assert float(masked.compute_loss_from_embeddings([q, docs], None)) < \
        float(plain.compute_loss_from_embeddings([q, docs], None))

def test_hard_negative_config_names_the_bad_parameter():
    assert HardNegativeConfig.from_params({}).mine_with == "scorer"
    for bad, name in [({"epochs": 0}, "epochs"), ({"patience": 0}, "patience"),
                      ({"metric": "NDCG"}, "metric"), ({"mine_with": "oracle"}, "mine_with"),
                      ({"val_fraction": 0}, "val_fraction"), ({"typo": 1}, "typo"),
                      ({"false_negative_recall": 0}, "false_negative_recall"),
                      ({"attention_dropout": 1.0}, "page_scorer_hn.attention_dropout"),
                      ({"attention_dropout": "none"}, "page_scorer_hn.attention_dropout")]:
        with pytest.raises(ParamError, match=name):
            HardNegativeConfig.from_params(bad)


def test_hard_negative_attention_dropout_overrides_only_this_scorers_training():
    shared = {"lr": 3e-5, "epochs": 15, "attention_dropout": 0.05}
    own = HardNegativeConfig.from_params({"epochs": 4, "attention_dropout": 0.0})
    train = own.train_config(shared)
    assert (train.epochs, train.attention_dropout, train.lr) == (4, 0.0, 3e-5)
    inherited = HardNegativeConfig.from_params({"epochs": 4}).train_config(shared)
    assert inherited.attention_dropout == 0.05  # null: page_scorer_train's
    assert shared["attention_dropout"] == 0.05 and shared["epochs"] == 15  # not mutated


def test_epochs_study_averages_folds_that_reached_each_epoch():
    row = {"MRR@20": 0.5, "PageRec@5": 0.4, "PageRec@20": 0.6}
    folds = [{"best_epoch": 1, "val_curve": [{**row, "epoch": 1, "train_seconds": 60}]},
             {"best_epoch": 2, "val_curve": [
                 {**row, "epoch": 1, "MRR@20": 0.3, "train_seconds": 120},
                 {**row, "epoch": 2, "train_seconds": 240}]}]
    study = epochs_study(folds, "MRR@20")
    assert study["per_epoch"][0]["MRR@20"] == 0.4 and study["per_epoch"][0]["folds"] == 2
    assert study["per_epoch"][0]["train_minutes_per_fold"] == 1.5
    assert study["per_epoch"][1]["folds"] == 1 and study["best_epoch_per_fold"] == [1, 2]


def test_run_train_hn_tiny_end_to_end(tmp_path):
    """Three folds over six tiny filings, BM25 mining: models, fold metadata and the study."""
    docs = {f"D{i}": [f"Filing {i} cover page.", f"Revenue of company {i} was ${i},100 million.",
                      f"Dividend of company {i} was ${i}.25 per share."] for i in range(6)}
    pages = [{"doc": d, "page": p, "text": t} for d, ts in docs.items() for p, t in enumerate(ts)]
    qs = []
    for i, d in enumerate(docs):
        qs.append(_q(f"r{i}", d, [1], docs[d][1], f"What was company {i} revenue?"))
        qs.append(_q(f"d{i}", d, [2], docs[d][2], f"What dividend did company {i} pay?"))
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "questions.jsonl").write_text(
        "".join(json.dumps(q.to_dict()) + "\n" for q in qs))
    (tmp_path / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pages))
    from fingap.training.folds import assign_folds

    (tmp_path / "folds.json").write_text(json.dumps(assign_folds(qs, 3, 0)))
    report = run_train_hn(
        {"model": "minilm", "max_seq_length": 32, "batch_size": 4, "precision": "fp32"},
        {"epochs": 2, "patience": None, "mine_with": "bm25", "val_fraction": 0.3},
        tmp_path / "corpus", tmp_path / "pages.jsonl", tmp_path / "folds.json",
        tmp_path / "unused", tmp_path / "unused", tmp_path / "models", tmp_path / "r.json")
    assert len(report["folds"]) == 3
    for f in report["folds"]:
        meta = json.loads((tmp_path / "models" / f"fold_{f['fold']}" /
                           "fingap_fold.json").read_text())
        assert set(meta["validation_docs"]) <= set(meta["train_docs"])
        assert not set(meta["validation_docs"]) & set(meta["test_docs"])
        assert f["epochs_run"] == 2 and len(f["val_curve"]) == 2 and f["best_epoch"] in (1, 2)
        assert f["mining"]["negatives"] > 0
    assert [r["epoch"] for r in report["epochs_study"]["per_epoch"]] == [1, 2]
    assert json.loads((tmp_path / "r.json").read_text())["config"]["mine_with"] == "bm25"
    md = render_epochs_report(report, "Tiny")
    assert md.startswith("# Tiny") and "| Epoch |" in md and md.count("\n| 2 |") == 2


def test_whole_pages_take_the_evidence_window_as_positive_and_every_window_as_negative():
    from fingap.retrieval.page_windows import WindowConfig
    from fingap.steps.page_scorer_hn import _WholePages
    from fingap.training.page_scorer import TrainConfig

    filler = " ".join(f"word{i}" for i in range(40))
    pages = {("D", 0): f"{filler} Capital expenditure was $1,577 million in 2022.",
             ("D", 1): "Dividends were $0.42 per share.", ("E", 0): "Other filing."}
    whole = _WholePages(pages, TrainConfig(max_seq_length=24, precision="fp32"),
                        WindowConfig(overlap=4))
    windows = whole.windows(("D", 0))
    assert len(windows) >= 3 and "word0" in windows[0] and "1,577" not in windows[0]
    q = _q("q", "D", [0], "Capital expenditure was $1,577 million", "What was capex?")
    [(qid, question, positive, key)] = whole.positives([("q", "What was capex?", "x", ("D", 0))],
                                                       [q])
    assert (qid, question, key) == ("q", "What was capex?", ("D", 0))
    assert "1,577" in positive and positive == windows[-1]
    pool = whole.pool([("D", 0), ("D", 1)])
    assert [k for _, k in pool] == [("D", 0)] * len(windows) + [("D", 1)]
    val = whole.validation([q], "MRR@20", 2)
    assert set(val.corpus) == {f"D#0#w{i}" for i in range(len(windows))} | {"D#1#w0"}
    assert val.relevant == {"q": {f"D#0#w{i}" for i in range(len(windows))}}


def test_validation_on_candidates_ranks_only_those_pages_and_the_gold_ones():
    from fingap.training.page_scorer import Validation

    pages = {("A", i): f"page a{i}" for i in range(50)}
    pages |= {("B", i): f"page b{i}" for i in range(40)}
    qs = [_q("q1", "A", [7]), _q("q2", "B", [3])]
    every = Validation.of(qs, pages, 100)
    assert len(every.corpus) == 90
    few = Validation.of(qs, pages, 100, candidates={"q1": [("A", 1), ("A", 2)],
                                                    "q2": [("B", 3), ("B", 9)]})
    # each question's candidates, its gold page added where the miner missed it
    assert sorted(few.corpus) == ["A#1", "A#2", "A#7", "B#3", "B#9"]
    assert few.relevant == every.relevant
    with pytest.raises(ParamError, match="val_candidates"):
        HardNegativeConfig.from_params({"val_candidates": 0})
