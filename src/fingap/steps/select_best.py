"""Stage ``select_best``: the "fingap best" run, each fold's questions answered by the
candidate chosen on the other folds (fingap.evaluation.best). A corpus without gold evidence
has nothing to choose on: fingap best is then ``best.no_gold`` (an untrained method, or one
whose models ``folds.no_gold_models`` names), and the report says so."""

from __future__ import annotations

from pathlib import Path

from ..core.params import ParamError
from ..evaluation.best import combine, select_per_fold


def run_select_best(params: dict, corpus_out: Path, chunks_path: Path, folds_path: Path,
                    runs_dir: Path, out_dir: Path, report_path: Path) -> dict:
    from ..core.io import read_json, read_jsonl, write_json
    from ..core.runs import read_run, write_run
    from ..evaluation.scoring import ChunkLookup, score_run
    from ..ingestion.corpus import STATUS_EVALUATED, read_questions
    from ..training.folds import NO_GOLD_WHY, check_folds, fold_of_question, is_no_gold
    from .retrieve import validate_retrieve

    candidates = params["best"].get("candidates")
    if not isinstance(candidates, list) or not candidates or not all(
            isinstance(m, str) for m in candidates):
        raise ParamError(f"best.candidates must be a non-empty list of methods, got {candidates!r}")
    fallback = params["best"].get("no_gold")
    if not isinstance(fallback, str) or fallback not in candidates:
        raise ParamError(f"best.no_gold must be one of best.candidates, got {fallback!r}")
    k, conditions = validate_retrieve(params["retrieve"])
    for m in candidates:  # all inputs exist before any work
        for cond in conditions:
            if not (runs_dir / m / f"{cond}.json").exists():
                raise ParamError(f"best.candidates: no run {runs_dir / m / cond}.json for {m!r}")
    all_q = read_questions(corpus_out)
    questions = [q for q in all_q if q.status == STATUS_EVALUATED]
    folds = read_json(folds_path)
    check_folds(folds, all_q)
    fold_of = fold_of_question(folds)
    if is_no_gold(folds):
        choice = {f["fold"]: {"method": fallback, "inner": {}, "no_gold": NO_GOLD_WHY}
                  for f in folds["folds"]}
        selected_on = f"nothing: {NO_GOLD_WHY}; best.no_gold serves every question"
    else:
        lookup = ChunkLookup.of_chunks(read_jsonl(chunks_path))
        page_rec = {m: {r["question_id"]: r["PageRec"]
                        for r in score_run(questions, read_run(runs_dir / m / "standard.json"),
                                           lookup, k, text=False)}
                    for m in candidates}
        choice = select_per_fold(page_rec, fold_of, candidates)
        selected_on = "standard condition, other folds"
    for cond in conditions:
        runs = {m: read_run(runs_dir / m / f"{cond}.json") for m in candidates}
        write_run(out_dir / f"{cond}.json", combine(runs, choice, fold_of))
    report = {"metric": f"PageRec@{k}", "selected_on": selected_on,
              "candidates": candidates, "folds": {str(f): c for f, c in choice.items()}}
    if is_no_gold(folds):
        report["no_gold"] = {"method": fallback, "models": folds["folds"][0]["no_gold_models"]}
    write_json(report_path, report)
    return report
