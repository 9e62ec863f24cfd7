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
from pathlib import Path

from .params import ParamError
from .runs import Run


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


def run_select_best(params: dict, corpus_out: Path, chunks_path: Path, folds_path: Path,
                    runs_dir: Path, out_dir: Path, report_path: Path) -> dict:
    from .corpus import STATUS_EVALUATED, Question
    from .evaluation import ChunkLookup, score_run
    from .folds import check_folds, fold_of_question
    from .io import read_json, read_jsonl, write_json
    from .pipeline import validate_retrieve
    from .runs import read_run, write_run

    candidates = params["best"].get("candidates")
    if not isinstance(candidates, list) or not candidates or not all(
            isinstance(m, str) for m in candidates):
        raise ParamError(f"best.candidates must be a non-empty list of methods, got {candidates!r}")
    k, conditions = validate_retrieve(params["retrieve"])
    for m in candidates:  # all inputs exist before any work
        for cond in conditions:
            if not (runs_dir / m / f"{cond}.json").exists():
                raise ParamError(f"best.candidates: no run {runs_dir / m / cond}.json for {m!r}")
    all_q = [Question.from_dict(d) for d in read_jsonl(corpus_out / "questions.jsonl")]
    questions = [q for q in all_q if q.status == STATUS_EVALUATED]
    folds = read_json(folds_path)
    check_folds(folds, all_q)
    fold_of = fold_of_question(folds)
    chunks = read_jsonl(chunks_path)
    lookup = ChunkLookup([c["chunk_id"] for c in chunks], [c["doc"] for c in chunks],
                         [c["page"] for c in chunks], [c["text"] for c in chunks])
    page_rec = {m: {r["question_id"]: r["PageRec"]
                    for r in score_run(questions, read_run(runs_dir / m / "standard.json"),
                                       lookup, k)}
                for m in candidates}
    choice = select_per_fold(page_rec, fold_of, candidates)
    for cond in conditions:
        runs = {m: read_run(runs_dir / m / f"{cond}.json") for m in candidates}
        write_run(out_dir / f"{cond}.json", combine(runs, choice, fold_of))
    report = {"metric": f"PageRec@{k}", "selected_on": "standard condition, other folds",
              "candidates": candidates, "folds": {str(f): c for f, c in choice.items()}}
    write_json(report_path, report)
    return report
