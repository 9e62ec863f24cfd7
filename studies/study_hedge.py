"""The hedged routed row on a project whose routing and Oracle-Doc records exist
(reports/hedge_study.json).

Hard routing (`routing.top_docs` = 1) caps DocRec@5 at the router's DocRec@1: a wrong first
document costs all five slots. The hedge gives the last slot to the next document's best chunk
when the router is unsure, i.e. when the first document's routing score is less than a margin
above the second's (`fingap.retrieval.doc_routing.hedge_documents` / `hedge_run`).

The routed row restricted to one document ranks that document's pages exactly as the Oracle-Doc
condition ranks the gold document's, so the row's standard-condition hits are computed here,
without re-encoding anything, from
- `data/routing/ranking.json` (the route_docs stage), and
- the row's Oracle-Doc per-question records (`reports/per_question/ROW__oracle_doc.jsonl`),
as follows: a question whose first routed document is its gold one keeps the first k (hedged:
k - 1) Oracle-Doc hits, and a hedged question whose second document is the gold one gains that
document's first Oracle-Doc hit; any other question retrieves nothing of its gold document.
The margin is chosen per fold on the other folds' questions (as select_best chooses), so no fold
picks its setting on its own questions.

    python studies/study_hedge.py --root <a project with route_docs run> \
        --row page_scorer_hn_page_order
    python studies/study_hedge.py --row page_scorer_hn_page_order_routed --from-runs
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.evaluation.metrics import page_recall
from fingap.evaluation.stats import paired_bootstrap
from fingap.retrieval.doc_routing import hedge_documents, hedge_run
from fingap.training.folds import fold_of_question

OUT = Path(__file__).resolve().parents[1] / "reports/hedge_study.json"
K = 5
MARGINS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)


def routed_hits(records: dict[str, dict], ranking: dict, margin: float, k: int = K
                ) -> dict[str, list[tuple[str, int]]]:
    """Each question's (doc, page) hits in the routed (top_docs = 1) row, hedged at ``margin``,
    rebuilt from its Oracle-Doc records (see the module docstring)."""
    def run_of(doc_of: dict[str, str]) -> dict[str, list[tuple[str, float]]]:
        # a document's hits are the Oracle-Doc ones when it is the gold document; another
        # document's hits cannot hold a gold page, so they stand in as empty placeholders
        return {q: [(h[0], 0.0) for h in r["retrieved"]] if doc_of[q] == r["doc"]
                else [(f"{doc_of[q]}::other{i}", 0.0) for i in range(k)]
                for q, r in records.items()}

    first = run_of({q: ranking[q][0][0] for q in records})
    second = run_of({q: ranking[q][1][0] if len(ranking[q]) > 1 else ranking[q][0][0]
                     for q in records})
    run = hedge_run(first, second, hedge_documents(ranking, records, 1, margin), k)
    page_of = {h[0]: (h[1], h[2]) for r in records.values() for h in r["retrieved"]}
    return {q: [page_of.get(c, (c.split("::")[0], -1)) for c, _ in hits]
            for q, hits in run.items()}


def choose_per_fold(page_rec: dict, doc_rec: dict, fold_of: dict[str, int], names: list[str]
                    ) -> dict[int, str]:
    """Per fold, the setting best on the other folds' questions: by PageRec@5, then DocRec@5
    (both matter to the row), then the earlier (smaller) margin."""
    out = {}
    for f in sorted(set(fold_of.values())):
        others = [q for q in fold_of if fold_of[q] != f]
        out[f] = max(names, key=lambda m: (round(sum(page_rec[m][q] for q in others), 9),
                                           sum(doc_rec[m][q] for q in others),
                                           -names.index(m)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--row", default="page_scorer_hn_page_order",
                    help="the routed row's scorer, whose Oracle-Doc records are read")
    ap.add_argument("--records", type=Path, default=None,
                    help="folder of per-question records (default: ROOT/reports/per_question)")
    ap.add_argument("--from-runs", action="store_true",
                    help="score ROOT/data/runs/ROW/oracle_doc.json as evaluate scores it instead")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--section", default="hedge", help="the JSON section written in --out")
    args = ap.parse_args()
    root = args.root
    if args.from_runs:
        from fingap.core.runs import read_run
        from fingap.evaluation.scoring import ChunkLookup, score_run
        from fingap.ingestion.corpus import read_questions

        lookup = ChunkLookup.of_chunks(read_jsonl(root / "data/chunks/chunks.jsonl"))
        scored = score_run(read_questions(root / "data/corpus"),
                           read_run(root / f"data/runs/{args.row}/oracle_doc.json"), lookup, K)
    else:
        records_dir = args.records or root / "reports/per_question"
        scored = read_jsonl(records_dir / f"{args.row}__oracle_doc.jsonl")
    records = {r["question_id"]: r for r in scored}
    ranking = read_json(root / "data/routing/ranking.json")
    fold_of = fold_of_question(read_json(root / "data/folds.json"))
    fold_of = {q: fold_of[q] for q in records}
    page_rec, doc_rec, rows = {}, {}, {}
    for m in MARGINS:
        name = f"margin_{m:g}"
        hits = routed_hits(records, ranking, m)
        page_rec[name] = {q: page_recall([tuple(g) for g in records[q]["gold_pages"]], hits[q])
                          for q in records}
        doc_rec[name] = {q: float(records[q]["doc"] in {d for d, _ in hits[q]})
                         for q in records}
        n_hedged = len(hedge_documents(ranking, records, 1, m))
        rows[name] = {f"PageRec@{K}": round(sum(page_rec[name].values()) / len(records), 4),
                      f"DocRec@{K}": round(sum(doc_rec[name].values()) / len(records), 4),
                      "questions_hedged": n_hedged}
        print(name, rows[name], flush=True)
    qids = sorted(records)
    choice = choose_per_fold(page_rec, doc_rec, fold_of, list(rows))
    chosen = [page_rec[choice[fold_of[q]]][q] for q in qids]
    chosen_doc = [doc_rec[choice[fold_of[q]]][q] for q in qids]
    base, base_doc = "margin_0", [doc_rec["margin_0"][q] for q in qids]
    result = {
        "row": args.row,
        "router": read_json(root / "reports/routing.json")["overall"],
        "rows": rows,
        "per_fold_choice": {str(f): m for f, m in choice.items()},
        "chosen_per_fold": {f"PageRec@{K}": round(sum(chosen) / len(qids), 4),
                            f"DocRec@{K}": round(sum(chosen_doc) / len(qids), 4)},
        "chosen_vs_unhedged_PageRec": {
            k: round(v, 4) if isinstance(v, float) else v
            for k, v in paired_bootstrap(chosen, [page_rec[base][q] for q in qids]).items()},
        "chosen_vs_unhedged_DocRec": {
            k: round(v, 4) if isinstance(v, float) else v
            for k, v in paired_bootstrap(chosen_doc, base_doc).items()},
        "records": "data/runs (scored)" if args.from_runs else "per-question records",
        "command": "python studies/study_hedge.py --root <project> --row "
                   f"{args.row}" + (" --from-runs" if args.from_runs else ""),
    }
    update_json_section(args.out, args.section, result)
    print(result)


if __name__ == "__main__":
    main()
