"""The trained whole-page scorer (#14 part 1) where whole pages help, without the full window
index: inside the routed document and under Oracle-Doc (reports/whole_page_trained_study.json).

`page_index_windows` encodes every window of every page with each of the five fold models (about
70 minutes on 2 cores), because the corpus-wide condition searches every page. The routed and
Oracle-Doc rows need only the pages of each question's routed and gold documents, so this study
encodes, per fold model, the windows of those documents only (its own test questions'), and
ranks them exactly as the stage's index would (fingap.retrieval.page_windows.WindowPageIndex).
Each row then goes through the pipeline's own final steps (fingap.steps.zoo.Context): Algorithm 1
(dense chunks on the top-P pages) and page order. The hard-negative scorer's rows (first 256
tokens of each page) are the reference, with paired bootstrap 95% CIs over questions. On the
e2e test's tiny project, its routed MaxP run and its Oracle-Doc MaxP run equal the stages' runs
(retrieve_pages_windows_routed@..._maxp_routed, retrieve_pages_windows@..._maxp) hit for hit.

    dvc repro train_page_scorer_hn_windows route_docs page_index@hn
    python studies/study_whole_page_trained.py --root <a built project>
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.evaluation.scoring import ChunkLookup, aggregate, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.ingestion.extract import read_page_texts
from fingap.retrieval.doc_routing import routed_documents
from fingap.retrieval.page_ranking import (
    PageRows,
    encode_pages,
    encode_queries,
    load_bi_encoder,
    page_recall_at,
    reciprocal_rank,
)
from fingap.retrieval.page_windows import WindowConfig, WindowPageIndex, windowed_pages
from fingap.steps.zoo import Context
from fingap.training.folds import check_fold_model
from fingap.training.page_scorer import TrainConfig

OUT = Path(__file__).resolve().parents[1] / "reports/whole_page_trained_study.json"
K = 5
MODELS = Path("models/page_scorer_hn_windows")
CONDS = {"routed": "standard", "oracle_doc": "oracle_doc"}  # row name: retrieval condition


def window_rankings(ctx: Context, train: TrainConfig, windows: WindowConfig, top_docs: int,
                    depth: int) -> tuple[dict, dict]:
    """{(aggregate, row): {qid: ranked pages}} from each question's fold whole-page model over
    its routed and gold documents, and the encoding cost per fold."""
    pages = read_page_texts(ctx.paths["pages"])
    routed = routed_documents(read_json(ctx.paths["routing"]), [q.id for q in ctx.questions],
                              top_docs)
    fold_of = ctx.fold_of()
    out: dict = {}
    cost = []
    for fold in sorted(set(fold_of.values())):
        qs = [q for q in ctx.questions if fold_of[q.id] == fold]
        if not qs:
            continue
        mdir = MODELS / f"fold_{fold}"
        check_fold_model(mdir, fold, {q.doc for q in qs}, "whole-page page scorer")
        docs = {d for q in qs for d in routed[q.id]} | {d for q in qs for d in q.gold_docs}
        keys = sorted(k for k in pages if k[0] in docs)
        model = load_bi_encoder(str(mdir), train.max_seq_length)
        t0 = time.perf_counter()
        texts, window_page, window_tokens = windowed_pages(pages, keys, model.tokenizer,
                                                           train.max_seq_length, windows)
        emb = encode_pages(model, texts, train.precision, show_progress=False)
        cost.append({"fold": fold, "documents": len(docs), "pages": len(keys),
                     "windows": len(texts), "seconds": round(time.perf_counter() - t0, 1)})
        qv = encode_queries(str(mdir), [q.question for q in qs], train.max_seq_length,
                            train.precision, ctx.paths["cache"])
        rows = PageRows(keys)
        for how in ("maxp", "mean"):
            index = WindowPageIndex(keys, emb, window_page, window_tokens, how)
            for q, v in zip(qs, qv, strict=True):
                for row, cond in CONDS.items():
                    allowed = rows.allowed(cond, q, routed[q.id] if row == "routed" else None)
                    out.setdefault((how, row), {})[q.id] = index.rank(v, depth, allowed)
    return out, {"per_fold": cost,
                 "windows_per_s": round(sum(c["windows"] for c in cost)
                                        / max(sum(c["seconds"] for c in cost), 1e-9), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    out_path = args.out.resolve()
    os.chdir(args.root)
    params = load_params(Path("params.yaml"))
    ctx = Context(params)
    train = TrainConfig.from_params(params["page_scorer_train"])
    windows = WindowConfig.from_params(params["page_windows"], "page_windows")
    P, top_docs = ctx._P(), int(params["routing"]["top_docs"])
    depth = max(P, 20)
    ranked, cost = window_rankings(ctx, train, windows, top_docs, depth)
    for row, cond in CONDS.items():  # the reference: the hard-negative scorer, first 256 tokens
        ranked[("first", row)] = ctx.ranked_pages(cond, depth, "hn", routed=row == "routed")
    lookup = ChunkLookup.of_chunks(read_jsonl(ctx.paths["chunks"]))
    per_q, rows_out = {}, {}
    for (scorer, row), pages in sorted(ranked.items()):
        cond = CONDS[row]
        lists = {q.id: [k for k, _ in pages[q.id]] for q in ctx.questions}
        entry = {
            "pages_PageRec@5": np.mean([page_recall_at(q.gold_pages, lists[q.id], 5)
                                        for q in ctx.questions]),
            "pages_PageRec@20": np.mean([page_recall_at(q.gold_pages, lists[q.id], 20)
                                         for q in ctx.questions]),
            "pages_MRR@20": np.mean([reciprocal_rank(q.gold_pages, lists[q.id][:20])
                                     for q in ctx.questions])}
        for final, run in (("algorithm1", ctx.page_scorer_run(cond, ctx.k, ranked=pages)),
                           ("page_order", ctx.page_scorer_final(cond, "page_score",
                                                                ranked=pages))):
            recs = score_run(ctx.questions, run, lookup, K)
            per_q[(scorer, row, final)] = {r["question_id"]: r["PageRec"] for r in recs}
            agg = aggregate(recs, K)
            entry[f"{final}.PageRec@{K}"] = agg[f"PageRec@{K}"]
            entry[f"{final}.DocRec@{K}"] = agg[f"DocRec@{K}"]
        rows_out[f"{scorer}.{row}"] = {k: round(float(v), 4) for k, v in entry.items()}
        print(scorer, row, rows_out[f"{scorer}.{row}"], flush=True)
    comparisons = {}
    qids = sorted(q.id for q in ctx.questions)
    for how in ("maxp", "mean"):
        for row in CONDS:
            for final in ("algorithm1", "page_order"):
                a, b = per_q[(how, row, final)], per_q[("first", row, final)]
                ci = paired_bootstrap([a[q] for q in qids], [b[q] for q in qids])
                comparisons[f"{how}_vs_first.{row}.{final}"] = {
                    **{k: round(v, 4) if isinstance(v, float) else v for k, v in ci.items()},
                    "questions_changed": sum(a[q] != b[q] for q in qids)}
    training = read_json(Path("reports/page_scorer_hn_windows_training.json"))
    result = {"P": P, "top_docs": top_docs, "encode": cost, "rows": rows_out,
              "comparisons": comparisons,
              "training": {"minutes_per_fold": [round(f["seconds"] / 60, 2)
                                                for f in training["folds"]],
                           "best_epoch_per_fold": [f["best_epoch"] for f in training["folds"]],
                           "pairs_per_fold": [f["n_pairs"] for f in training["folds"]]},
              "command": "python studies/study_whole_page_trained.py --root <project>"}
    update_json_section(out_path, "whole_page_trained", result)
    print(result)


if __name__ == "__main__":
    main()
