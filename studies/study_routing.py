"""Document routing on a built project: the router alone, the routed rows against their
unrouted pairs, and the choice of D (reports/routing_study.json).

Reads the outputs of a `dvc repro` (data/corpus, data/chunks, data/runs, data/routing,
data/page_index/untrained), so it runs on whatever rows that repro built:

    dvc repro retrieve_pages_routed@page_scorer_untrained_routed \
        retrieve_pages@page_scorer_untrained
    python studies/study_routing.py --pair page_scorer_untrained_routed page_scorer_untrained

Rows are scored as evaluate scores them (PageRec@5 / DocRec@5 of the top-5 chunks, paired
bootstrap 95% CI over questions). The D study re-ranks the untrained scorer's pages within the
top-D routed documents for several D; D is chosen per fold on the *other* folds' questions
(as select_best chooses), so no fold's own questions pick its D.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fingap.core.io import read_json, read_jsonl, update_json_section, write_jsonl
from fingap.core.params import load_params
from fingap.core.runs import read_run
from fingap.evaluation.scoring import ChunkLookup, aggregate, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.retrieval.doc_routing import routed_documents
from fingap.retrieval.page_ranking import page_recall_at, rank_pages
from fingap.training.folds import fold_of_question

OUT = Path(__file__).resolve().parents[1] / "reports/routing_study.json"
K = 5


def study_setup(doc: str, out: Path, add_args: Callable[[argparse.ArgumentParser], None]
                | None = None) -> tuple[argparse.Namespace, list]:
    """The command line every row study takes (--root, --out, and what ``add_args`` adds) and
    the evaluated questions."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, default=out)
    if add_args is not None:
        add_args(ap)
    args = ap.parse_args()
    questions = [q for q in read_questions(args.root / "data/corpus")
                 if q.status == STATUS_EVALUATED]
    return args, questions


def rows(root: Path, pairs: list[list[str]], questions,
         run_dirs: dict[str, Path] | None = None, records_dir: Path | None = None) -> dict:
    """Each row's PageRec@5 and DocRec@5 (standard, Oracle-Doc) and each pair's paired CI on
    standard. A row's runs are root/data/runs/ROW unless ``run_dirs`` names another folder
    (a copy kept from an earlier build, say). With ``records_dir``, the per-question records of
    the rows that are the first of a pair go to ``records_dir/ROW__COND.jsonl``, as evaluate
    writes them (maintainers/compare_with_start.py reads them there)."""
    chunks = read_jsonl(root / "data/chunks/chunks.jsonl")
    lookup = ChunkLookup.of_chunks(chunks)
    run_dirs = run_dirs or {}
    per_q, out = {}, {"rows": {}, "comparisons": {}}
    for method in sorted({m for p in pairs for m in p}):
        runs = run_dirs.get(method, root / "data/runs" / method)
        for cond in ("standard", "oracle_doc"):
            recs = score_run(questions, read_run(runs / f"{cond}.json"), lookup, K)
            per_q[(method, cond)] = {r["question_id"]: r["PageRec"] for r in recs}
            if records_dir is not None and method in {a for a, _ in pairs}:
                write_jsonl(records_dir / f"{method}__{cond}.jsonl", recs)
            agg = aggregate(recs, K)
            out["rows"].setdefault(method, {})[cond] = {
                m: round(agg[m], 4) for m in (f"DocRec@{K}", f"PageRec@{K}")}
    for a, b in pairs:
        qids = sorted(per_q[(a, "standard")])
        ci = paired_bootstrap([per_q[(a, "standard")][q] for q in qids],
                              [per_q[(b, "standard")][q] for q in qids])
        flips = sum(per_q[(a, "standard")][q] != per_q[(b, "standard")][q] for q in qids)
        out["comparisons"][f"{a}_vs_{b}"] = {
            "condition": "standard", "metric": f"PageRec@{K}",
            **{k: round(v, 4) if isinstance(v, float) else v for k, v in ci.items()},
            "questions_changed": flips}
    return out


def d_study(root: Path, params: dict, questions, ds: list[int]) -> dict:
    """Page-level PageRec@5 of the untrained scorer within the top-D routed documents."""
    ranking = read_json(root / "data/routing/ranking.json")
    fold_of = fold_of_question(read_json(root / "data/folds.json"))
    tp = params["page_scorer_train"]
    score: dict[int, dict[str, float]] = {}
    for d in ds + [0]:  # 0: no routing
        routed = None if d == 0 else routed_documents(ranking, [q.id for q in questions], d)
        ranked = rank_pages(root / "data/page_index/untrained", questions,
                            {q.id: "base" for q in questions}, {"base": tp["model"]},
                            tp["max_seq_length"], tp["precision"], "standard", 20,
                            root / "data/cache/embeddings.sqlite", routed)
        score[d] = {q.id: page_recall_at(q.gold_pages, [k for k, _ in ranked[q.id]], K)
                    for q in questions}
    folds = sorted(set(fold_of.values()))
    chosen, held_out = {}, []
    for f in folds:
        others = [q.id for q in questions if fold_of[q.id] != f]
        chosen[f] = max(ds, key=lambda d: (np.mean([score[d][q] for q in others]), -d))
        held_out += [score[chosen[f]][q.id] for q in questions if fold_of[q.id] == f]
    return {"page_level_PageRec@5_untrained": {("none" if d == 0 else f"D={d}"):
                                               round(float(np.mean(list(s.values()))), 4)
                                               for d, s in sorted(score.items())},
            "D_chosen_per_fold_on_other_folds": {f"fold_{f}": d for f, d in chosen.items()},
            "held_out_PageRec@5_with_chosen_D": round(float(np.mean(held_out)), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--pair", nargs=2, action="append", required=True,
                    metavar=("ROUTED", "UNROUTED"))
    ap.add_argument("--d", type=int, nargs="+", default=[1, 2, 3, 5, 10])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    params = load_params(args.root / "params.yaml")
    questions = [q for q in read_questions(args.root / "data/corpus")
                 if q.status == STATUS_EVALUATED]
    result = {"router": read_json(args.root / "reports/routing.json"),
              **rows(args.root, args.pair, questions),
              "top_docs_study": d_study(args.root, params, questions, args.d),
              "command": "python studies/study_routing.py " + " ".join(
                  f"--pair {a} {b}" for a, b in args.pair)}
    update_json_section(args.out, "routing", result)
    print(result)


if __name__ == "__main__":
    main()
