"""The "fingap best" row: a final pipeline chosen without peeking at the questions it is scored
on.

Nested selection over the page-scorer folds: the questions of fold f get the candidate method
with the best mean PageRec@k (standard condition) on the questions of the *other* folds. Every
candidate run already scores each question with a model that never saw its document, so the
choice for fold f uses neither fold f's models' training data nor fold f's labels. Ties go to
the earlier candidate in ``best.candidates``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core.runs import Run


def select_per_fold(page_rec: Mapping[str, Mapping[str, float]], fold_of: Mapping[str, int],
                    candidates: Sequence[str]) -> dict[int, dict]:
    """``{fold: {"method", "inner": {method: mean PageRec on the other folds}}}``.

    ``page_rec[method][qid]`` is that question's PageRec@k under the method.
    """
    missing = [m for m in candidates if m not in page_rec]
    if missing:
        raise KeyError(f"no per-question scores for candidate(s) {missing}")
    qids = sorted(page_rec[candidates[0]])
    choice = {}
    for f in sorted({fold_of[q] for q in qids}):
        others = [q for q in qids if fold_of[q] != f]
        inner = {m: sum(page_rec[m][q] for q in others) / max(1, len(others))
                 for m in candidates}
        best = max(candidates, key=lambda m: (inner[m], -candidates.index(m)))
        choice[f] = {"method": best, "inner": {m: round(v, 6) for m, v in inner.items()}}
    return choice


def combine(runs: Mapping[str, Run], choice: Mapping[int, dict], fold_of: Mapping[str, int]
            ) -> Run:
    """Each question's hits from the method chosen for its fold."""
    out: Run = {}
    for method, run in runs.items():
        for qid, hits in run.items():
            if choice[fold_of[qid]]["method"] == method:
                out[qid] = hits
    return out


