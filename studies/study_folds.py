"""Could scikit-learn's grouped splitters replace fingap's fold assigner?
(reports/benchmarks.json, section "folds_study")

The layout issue allows ``GroupKFold`` / ``StratifiedGroupKFold`` (grouped by document) only if
``data/folds.json`` stays byte-identical: a changed fold moves every trained row. This compares,
on the evaluated questions, each splitter's folds with ``fingap.training.folds.assign_folds``
(the params' n_folds and seed): how many documents and questions change fold (folds matched
up to relabelling, by most shared documents) and the spread of test-fold sizes.

    python studies/study_folds.py
"""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import numpy as np
from sklearn.model_selection import GroupKFold, StratifiedGroupKFold

from fingap.core.io import update_json_section
from fingap.core.params import load_params
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.training.folds import assign_folds

ROOT = Path(__file__).resolve().parents[1]


def _moved(ours: list[set[str]], theirs: list[set[str]], n_q: dict[str, int]) -> dict:
    best = max(permutations(range(len(theirs))),
               key=lambda p: sum(len(ours[i] & theirs[j]) for i, j in enumerate(p)))
    moved = [d for i, j in enumerate(best) for d in ours[i] - theirs[j]]
    return {"docs_moved": len(moved), "questions_moved": sum(n_q[d] for d in moved),
            "identical": not moved}


def main() -> None:
    params = load_params(ROOT / "params.yaml")
    n, seed = params["folds"]["n_folds"], params["folds"]["seed"]
    questions = [q for q in read_questions(ROOT / "data/corpus") if q.status == STATUS_EVALUATED]
    docs = [q.doc for q in questions]
    n_q = {d: docs.count(d) for d in set(docs)}
    ours = [set(f["test_docs"]) for f in assign_folds(questions, n, seed)["folds"]]
    x = np.zeros(len(questions))
    splitters = {
        "GroupKFold": GroupKFold(n_splits=n).split(x, groups=docs),
        "GroupKFold_shuffled": GroupKFold(n_splits=n, shuffle=True, random_state=seed).split(
            x, groups=docs),
        "StratifiedGroupKFold_by_question_type": StratifiedGroupKFold(
            n_splits=n, shuffle=True, random_state=seed).split(
            x, [q.question_type for q in questions], groups=docs),
    }
    out = {"n_questions": len(questions), "n_documents": len(n_q), "n_folds": n,
           "fingap_fold_sizes": sorted(sum(n_q[d] for d in f) for f in ours)}
    for name, splits in splitters.items():
        theirs = [{docs[i] for i in test} for _, test in splits]
        out[name] = _moved(ours, theirs, n_q) | {
            "fold_sizes": sorted(sum(n_q[d] for d in f) for f in theirs)}
    update_json_section(ROOT / "reports/benchmarks.json", "folds_study", out)
    print(out)


if __name__ == "__main__":
    main()
