"""Synthetic training questions (#14 part 4) on a built project: the hard-negative scorer's
rows trained with ``page_scorer_hn.synthetic_per_doc`` = N > 0 against the same rows of a build
with 0, question by question (reports/synthetic_study.json). The rows are named ROW@synthetic_N;
their per-question records go to reports/studies/scripts/per_question/ (for
maintainers/compare_with_start.py).

The build with 0 is read from a folder of copies kept before retraining (``--baseline``): its
``page_scorer_hn_training.json`` and one folder of run files per row, named as the row.

    mkdir B && cp -r data/runs/page_scorer_hn_page_order{,_routed,_routed_hedged} \
        reports/page_scorer_hn_training.json B/
    # in a copy of the project (a clone sharing the DVC cache), with synthetic_per_doc: 2
    dvc repro retrieve_zoo@page_scorer_hn_page_order_routed \
        retrieve_zoo@page_scorer_hn_page_order_routed_hedged retrieve_zoo@page_scorer_hn_page_order
    python studies/study_synthetic.py --root <copy> --baseline B

Rows are scored as evaluate scores them (see studies/study_routing.py). The fact-store
questions come from each fold's training documents outside its validation split only; the
templating refuses any other document (fingap.training.synthetic_questions.FoldLeak), and this
study checks the training report's counts against that rule again.
"""

from __future__ import annotations

from pathlib import Path

from study_routing import rows, study_setup

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.ingestion.corpus import read_questions
from fingap.steps.page_scorer_hn import synthetic_pairs_questions

OUT = Path(__file__).resolve().parents[1] / "reports/synthetic_study.json"
ROWS = ("page_scorer_hn_page_order_routed", "page_scorer_hn_page_order_routed_hedged",
        "page_scorer_hn_page_order")
RECORDS = Path(__file__).resolve().parents[1] / "reports/studies/scripts/per_question"


def training_summary(report: dict) -> dict:
    folds = report["folds"]
    return {"synthetic_per_doc": report["config"].get("synthetic_per_doc", 0),
            "n_synthetic_questions": [f.get("n_synthetic_questions", 0) for f in folds],
            "n_pairs": [f["n_pairs"] for f in folds],
            "best_epoch": [f["best_epoch"] for f in folds],
            # the validation MRR@20 at the epoch kept (what early stopping chose by)
            "best_val_mrr20": [next(v["MRR@20"] for v in f["val_curve"]
                                    if v["epoch"] == f["best_epoch"]) for f in folds],
            "minutes": [round(f["seconds"] / 60, 1) for f in folds]}


def check_fold_safety(root: Path, report: dict, questions) -> dict:
    """Regenerates each fold's synthetic questions as training did (same facts, seed and
    validation documents) and checks that none comes from a test or validation document and
    that their count is the training report's."""
    facts = read_jsonl(root / "data/synthetic/facts.jsonl")
    folds = {f["fold"]: f for f in read_json(root / "data/folds.json")["folds"]}
    cfg = report["config"]
    company_of = {q.doc: q.company for q in questions}
    out = {}
    for rec in report["folds"]:
        fold = folds[rec["fold"]]
        val_docs = set(rec["validation_docs"])
        synthetic = synthetic_pairs_questions(facts, company_of, fold, val_docs,
                                              cfg["synthetic_per_doc"],
                                              cfg["seed"] + rec["fold"])
        docs = {q.doc for q in synthetic}
        leaked = sorted(docs & (set(fold["test_docs"]) | val_docs))
        if leaked or len(synthetic) != rec["n_synthetic_questions"]:
            raise SystemExit(f"fold {rec['fold']}: synthetic questions from held-out documents "
                             f"{leaked}, or {len(synthetic)} != the report's "
                             f"{rec['n_synthetic_questions']}")
        out[f"fold_{rec['fold']}"] = {"questions": len(synthetic), "documents": len(docs),
                                      "from_test_or_validation_documents": 0}
    return out


def main() -> None:
    args, questions = study_setup(__doc__, OUT, lambda ap: ap.add_argument(
        "--baseline", type=Path, required=True,
        help="copies of the rows' run folders and page_scorer_hn_training.json at 0"))
    new = read_json(args.root / "reports/page_scorer_hn_training.json")
    old = read_json(args.baseline / "page_scorer_hn_training.json")
    n = new["config"].get("synthetic_per_doc", 0)
    if n <= 0 or old["config"].get("synthetic_per_doc", 0) != 0:
        raise SystemExit(f"--root must be trained with synthetic_per_doc > 0 (it has {n}) and "
                         "--baseline with 0")
    name = f"{{}}@synthetic_{n}".format
    run_dirs = {**{name(r): args.root / "data/runs" / r for r in ROWS},
                **{r: args.baseline / r for r in ROWS}}
    pairs = [[name(r), r] for r in ROWS]
    all_questions = read_questions(args.root / "data/corpus")
    result = {**rows(args.root, pairs, questions, run_dirs, RECORDS),
              "training": {"synthetic": training_summary(new), "baseline": training_summary(old)},
              "fold_safety": check_fold_safety(args.root, new, all_questions),
              "command": "python studies/study_synthetic.py --root <project> --baseline B"}
    update_json_section(args.out, "synthetic_questions", result)
    print(result)


if __name__ == "__main__":
    main()
