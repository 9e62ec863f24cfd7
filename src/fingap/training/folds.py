"""Document-grouped cross-validation folds for the trained components.

Questions are grouped by their source document, so that no document is seen in training by the
model that scores its questions. Documents are shuffled with a seed, then assigned largest group
first to the fold with the fewest questions so far (ties by fold number): folds are balanced by
question count and the assignment is a pure function of (questions, n_folds, seed).

Questions without gold evidence (``no_gold``) are served, never scored or trained on: each
fold lists those it serves in ``serve_questions`` (the fold that tests their document, else
fold 0; a document without gold questions is in no fold's training). With no gold question at
all there is nothing to train or choose on: one fold serves every question, trains nothing, and
names the model each trained component uses instead (``folds.no_gold_models``: one trained
elsewhere, e.g. on FinanceBench, or "" for the base model). The key is written only where such
questions exist, so a corpus without them keeps its folds byte for byte.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..core.io import read_json
from ..core.params import ParamError
from ..ingestion.corpus import STATUS_EVALUATED, STATUS_NO_GOLD, Question


class FoldLeak(AssertionError):
    """A document is on both the training and the test side of a fold."""


# the components a fold trains, each with the key of its model in folds.no_gold_models
TRAINED_COMPONENTS = ("page_scorer", "page_scorer_hn", "reranker", "page_reranker")
NO_GOLD_WHY = "no question has gold evidence: nothing to train or score on"


def check_no_gold_models(models: dict | None) -> dict[str, str]:
    """``folds.no_gold_models``: component -> a model (path or hub id) or "" (its base model)."""
    models = dict(models or {})
    unknown = sorted(set(models) - set(TRAINED_COMPONENTS))
    if unknown:
        raise ParamError(f"folds.no_gold_models: unknown component(s) {', '.join(unknown)}; "
                         f"valid: {', '.join(TRAINED_COMPONENTS)}")
    for key, value in models.items():
        if not isinstance(value, str):
            raise ParamError(f"folds.no_gold_models.{key} must be a model path, a hub id or "
                             f"\"\" (the base model), got {value!r}")
    return {c: models.get(c, "") for c in TRAINED_COMPONENTS}


def assign_folds(questions: Sequence[Question], n_folds: int, seed: int,
                 no_gold_models: dict | None = None) -> dict:
    if not isinstance(n_folds, int) or n_folds < 2:
        raise ParamError(f"folds.n_folds must be an integer >= 2, got {n_folds!r}")
    fallback = check_no_gold_models(no_gold_models)
    by_doc: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        if q.status == STATUS_EVALUATED:
            by_doc[q.doc].append(q.id)
    unscored = [q for q in questions if q.status == STATUS_NO_GOLD]
    if not by_doc:
        result = {"n_folds": 1, "seed": seed, "no_gold": NO_GOLD_WHY,
                  "folds": [{"fold": 0, "test_docs": [], "train_docs": [], "test_questions": [],
                             "train_questions": [],
                             "serve_questions": sorted(q.id for q in unscored),
                             "no_gold_models": fallback}]}
        check_folds(result, questions)
        return result
    if len(by_doc) < n_folds:
        raise ParamError(f"folds.n_folds={n_folds} exceeds the {len(by_doc)} documents")
    docs = sorted(by_doc)
    random.Random(seed).shuffle(docs)
    docs.sort(key=lambda d: -len(by_doc[d]))  # stable: shuffled order breaks ties
    test_docs: list[list[str]] = [[] for _ in range(n_folds)]
    sizes = [0] * n_folds
    for d in docs:
        f = min(range(n_folds), key=lambda i: (sizes[i], i))
        test_docs[f].append(d)
        sizes[f] += len(by_doc[d])
    folds = []
    for f in range(n_folds):
        test = sorted(test_docs[f])
        train = sorted(d for d in by_doc if d not in set(test))
        folds.append({
            "fold": f,
            "test_docs": test,
            "train_docs": train,
            "test_questions": sorted(q for d in test for q in by_doc[d]),
            "train_questions": sorted(q for d in train for q in by_doc[d]),
        })
    if unscored:
        fold_of_doc = {d: f["fold"] for f in folds for d in f["test_docs"]}
        for f in folds:
            f["serve_questions"] = sorted(q.id for q in unscored
                                          if fold_of_doc.get(q.doc, 0) == f["fold"])
    result = {"n_folds": n_folds, "seed": seed, "folds": folds}
    check_folds(result, questions)
    return result


def is_no_gold(folds: dict) -> bool:
    """True for the folds of a corpus without any gold question (one fold, trains nothing)."""
    return "no_gold" in folds


def check_folds(folds: dict, questions: Sequence[Question]) -> None:
    """Raise FoldLeak unless every fold keeps train and test documents apart, every
    evaluated question is tested exactly once and every question without gold is served
    exactly once."""
    doc_of = {q.id: q.doc for q in questions}
    tested: list[str] = []
    serving: list[str] = []
    for f in folds["folds"]:
        serving.extend(f.get("serve_questions", []))
        test_docs = set(f["test_docs"])
        train_q_docs = {doc_of[q] for q in f["train_questions"]}
        leak = test_docs & (set(f["train_docs"]) | train_q_docs)
        if leak:
            raise FoldLeak(f"fold {f['fold']}: documents on both sides: {sorted(leak)}")
        if any(doc_of[q] not in test_docs for q in f["test_questions"]):
            raise FoldLeak(f"fold {f['fold']}: a test question's document is not a test document")
        tested.extend(f["test_questions"])
    expected = sorted(q.id for q in questions if q.status == STATUS_EVALUATED)
    if sorted(tested) != expected:
        raise FoldLeak("folds do not test every evaluated question exactly once")
    if sorted(serving) != sorted(q.id for q in questions if q.status == STATUS_NO_GOLD):
        raise FoldLeak("folds do not serve every question without gold evidence exactly once; "
                       "rerun the folds stage")


def fold_of_question(folds: dict) -> dict[str, int]:
    """The fold whose models serve each question: the one that tests it (gold questions) or
    serves it (questions without gold)."""
    return {q: f["fold"] for f in folds["folds"]
            for q in (*f["test_questions"], *f.get("serve_questions", []))}


def fold_training_sets(folds: dict, questions: Sequence[Question]
                       ) -> Iterator[tuple[dict, list[Question]]]:
    """Each fold with its training questions. The guard that matters: nothing of a fold's test
    documents reaches its training (FoldLeak otherwise)."""
    check_folds(folds, questions)
    by_id = {q.id: q for q in questions}
    for f in folds["folds"]:
        train_q = [by_id[q] for q in f["train_questions"]]
        leak = {q.doc for q in train_q} & set(f["test_docs"])
        if leak:
            raise FoldLeak(f"fold {f['fold']}: training questions on test documents {sorted(leak)}")
        yield f, train_q


def untrained_fold_model(fold: dict, component: str, base_model: str) -> str | None:
    """The model a fold of a corpus without gold evidence uses for ``component`` instead of
    training one (``folds.no_gold_models``, else ``base_model``); None for a fold that trains.
    """
    if fold["train_questions"] or "no_gold_models" not in fold:
        return None
    return fold["no_gold_models"].get(component) or base_model


def untrained_fold_record(fold: dict, model: str, base_model: str) -> dict:
    """A training report's row for a fold that trained nothing: which model it keeps, why."""
    return {"fold": fold["fold"], "trained": False,
            "model": model if model != base_model else f"{model} (the base model, untrained)",
            "why": NO_GOLD_WHY}


def fold_metadata(fold: dict, **extra) -> dict:
    """What a fold model carries beside its weights (``fingap_fold.json``): which documents it
    may score (its test documents) and which it saw."""
    return {"fold": fold["fold"], "test_docs": fold["test_docs"],
            "train_docs": fold["train_docs"], **extra}


def check_fold_model(model_dir: Path, fold: int, docs: set[str], what: str) -> None:
    """The model in ``model_dir`` is fold ``fold``'s (its ``fingap_fold.json``) and never trained
    on any of ``docs``; ``what`` names it in the error."""
    meta = read_json(model_dir / "fingap_fold.json")
    if meta["fold"] != fold:
        raise RuntimeError(f"{model_dir} is the {what} of fold {meta['fold']}, not {fold}")
    leak = docs & set(meta["train_docs"])
    if leak:
        raise FoldLeak(f"{what} fold {fold} was trained on {sorted(leak)}")


def fold_training_record(fold: dict, result, **extra) -> dict:
    """One fold's row of a training report: steps, wall time, loss curves (``result`` has
    ``n_steps``, ``seconds``, ``epoch_loss``, ``step_loss``; ``val_seconds`` if validated)."""
    train_seconds = result.seconds - getattr(result, "val_seconds", 0.0)
    return {"fold": fold["fold"], **extra, "n_steps": result.n_steps,
            "seconds": round(result.seconds, 1),
            "seconds_per_step": round(train_seconds / max(1, result.n_steps), 3),
            "epoch_loss": [round(x, 5) for x in result.epoch_loss],
            "step_loss": [round(x, 5) for x in result.step_loss]}
