"""fingap best over the candidates a workspace has re-run, against fingap best at a git ref
(reports/best_study.json).

`select_best` needs every candidate of `best.candidates` built at the same commit. When only
some were retrained (the others cost hours: HyDE, the chunk reranker, the hybrids), this makes
the same per-fold choice (fingap.evaluation.best: each fold gets the candidate with the best
PageRec@5 on the other folds' questions) over the re-run ones only, and scores it as evaluate
does, with a paired bootstrap CI against the old fingap best's per-question records and the
slices the retrieval issue watches (doc type, question type), before and after.

    python studies/study_best.py --root ../real --old 06b07eb \
        --methods page_scorer_hn_page_order page_scorer_hn_page_order_routed
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "maintainers"))
from check_parity import old_records  # noqa: E402

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.core.runs import read_run
from fingap.evaluation.best import select_per_fold
from fingap.evaluation.scoring import ChunkLookup, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.training.folds import fold_of_question

OUT = Path(__file__).resolve().parents[1] / "reports/best_study.json"
K = 5


def slices(records: list[dict]) -> dict:
    out: dict = {}
    for key in ("doc_type", "question_type"):
        groups: dict[str, list[float]] = {}
        for r in records:
            groups.setdefault(r[key], []).append(r["PageRec"])
        out[key] = {g: {"PageRec@5": round(float(np.mean(v)), 4), "n": len(v)}
                    for g, v in sorted(groups.items())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--old", required=True, help="git ref of the old fingap best")
    ap.add_argument("--methods", nargs="+", required=True, help="candidates, in tie order")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    questions = [q for q in read_questions(args.root / "data/corpus")
                 if q.status == STATUS_EVALUATED]
    lookup = ChunkLookup.of_chunks(read_jsonl(args.root / "data/chunks/chunks.jsonl"))
    records = {m: {r["question_id"]: r for r in score_run(
        questions, read_run(args.root / f"data/runs/{m}/standard.json"), lookup, K)}
        for m in args.methods}
    fold_of = fold_of_question(read_json(args.root / "data/folds.json"))
    choice = select_per_fold({m: {q: r["PageRec"] for q, r in recs.items()}
                              for m, recs in records.items()}, fold_of, args.methods)
    best = [records[choice[fold_of[q.id]]["method"]][q.id] for q in questions]
    old = {r["question_id"]: r for r in old_records(args.old, "fingap_best", "standard")}
    qids = [q.id for q in questions]
    ci = paired_bootstrap([r["PageRec"] for r in best], [old[q]["PageRec"] for q in qids])
    result = {
        "candidates": args.methods,
        "chosen_per_fold": {f"fold_{f}": c["method"] for f, c in sorted(choice.items())},
        "PageRec@5": round(float(np.mean([r["PageRec"] for r in best])), 4),
        "DocRec@5": round(float(np.mean([r["DocRec"] for r in best])), 4),
        "old": {"ref": args.old,
                "PageRec@5": round(float(np.mean([old[q]["PageRec"] for q in qids])), 4),
                "DocRec@5": round(float(np.mean([old[q]["DocRec"] for q in qids])), 4)},
        "vs_old": {k: round(v, 4) if isinstance(v, float) else v for k, v in ci.items()},
        "questions_changed": sum(r["PageRec"] != old[q]["PageRec"]
                                 for r, q in zip(best, qids, strict=True)),
        "slices": {"new": slices(best), "old": slices([old[q] for q in qids])},
        "rows": {m: round(float(np.mean([r["PageRec"] for r in recs.values()])), 4)
                 for m, recs in records.items()},
        "command": f"python studies/study_best.py --old {args.old} --methods "
                   + " ".join(args.methods)}
    update_json_section(args.out, "best_over_rerun_candidates", result)
    print(result)


if __name__ == "__main__":
    main()
