"""Soft document routing on a built project: the routed hard-negative scorer (page order) with
its pages drawn from the router's top D documents, the top document's pages given a bonus b
added to their cosine score, against hard routing to the top document alone
(reports/soft_routing_study.json).

Hard routing (D = 1) caps DocRec@5 at the router's DocRec@1; a soft rule lets a page of the
second document in only when the scorer likes it by more than b. b = inf is hard routing.
(D, b) is chosen per fold on the other folds' questions, as select_best chooses, so the
estimate never uses a fold's own questions to pick its setting.

    python studies/study_soft_routing.py --root <a built project>

Rows are scored as evaluate scores them (PageRec@5 / DocRec@5 of the top-5 chunks).
"""

from __future__ import annotations

import argparse
import copy
import math
import os
from pathlib import Path

from fingap.core.io import read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.evaluation.best import select_per_fold
from fingap.evaluation.scoring import ChunkLookup, aggregate, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.steps.zoo import Context

OUT = Path(__file__).resolve().parents[1] / "reports/soft_routing_study.json"
K = 5
BONUSES = (0.0, 0.02, 0.05, 0.1, 0.2, math.inf)
DOCS = (2, 3)


def soft_ranking(ranked: dict, routing: dict, bonus: float, P: int) -> dict:
    """Each question's pages (already limited to its top D routed documents), the top
    document's pages raised by ``bonus``, best first; ``inf`` keeps the top document's only."""
    out = {}
    for qid, pages in ranked.items():
        top_doc = routing[qid][0][0]
        if math.isinf(bonus):
            kept = [(k, s) for k, s in pages if k[0] == top_doc]
        else:
            kept = [(k, s + bonus if k[0] == top_doc else s) for k, s in pages]
        out[qid] = sorted(kept, key=lambda x: -x[1])[:P]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, default=OUT.resolve())
    args = ap.parse_args()
    out_path = args.out.resolve()
    os.chdir(args.root)
    from fingap.core.io import read_json

    base = load_params(Path("params.yaml"))
    routing = read_json(Path("data/routing/ranking.json"))
    lookup = ChunkLookup.of_chunks(read_jsonl(Path("data/chunks/chunks.jsonl")))
    page_rec, doc_rec, rows = {}, {}, {}
    ctx = None
    for d in DOCS:
        params = copy.deepcopy(base)
        params["routing"]["top_docs"] = d
        ctx = Context(params)
        P = ctx._P()
        # every page of the D documents, so a bonus can reorder all of them
        ranked = ctx.ranked_pages("standard", 10_000, "hn", routed=True)
        for b in BONUSES:
            if math.isinf(b) and d != DOCS[0]:
                continue  # hard routing to the top document does not depend on D
            name = "hard_top1" if math.isinf(b) else f"D{d}_b{b:g}"
            run = ctx.page_scorer_final("standard", "page_score",
                                        ranked=soft_ranking(ranked, routing, b, P))
            recs = score_run(ctx.questions, run, lookup, K)
            page_rec[name] = {r["question_id"]: r["PageRec"] for r in recs}
            doc_rec[name] = {r["question_id"]: r["DocRec"] for r in recs}
            agg = aggregate(recs, K)
            rows[name] = {m: round(agg[m], 4) for m in (f"DocRec@{K}", f"PageRec@{K}")}
            print(name, rows[name], flush=True)
    fold_of = ctx.fold_of()
    names = list(rows)
    choice = select_per_fold(page_rec, {q: fold_of[q] for q in page_rec[names[0]]}, names)
    chosen = {q: page_rec[choice[fold_of[q]]["method"]][q] for q in page_rec[names[0]]}
    chosen_doc = [doc_rec[choice[fold_of[q]]["method"]][q] for q in page_rec[names[0]]]
    qids = sorted(chosen)
    ci = paired_bootstrap([chosen[q] for q in qids], [page_rec["hard_top1"][q] for q in qids])
    result = {"rows": rows,
              "per_fold_choice": {str(f): c["method"] for f, c in choice.items()},
              "chosen_per_fold": {"PageRec@5": round(sum(chosen.values()) / len(chosen), 4),
                                  "DocRec@5": round(sum(chosen_doc) / len(chosen_doc), 4)},
              "chosen_vs_hard_top1": {k: round(v, 4) if isinstance(v, float) else v
                                      for k, v in ci.items()},
              "command": "python studies/study_soft_routing.py --root <project>"}
    update_json_section(out_path, "soft_routing", result)
    print(result)


if __name__ == "__main__":
    main()
