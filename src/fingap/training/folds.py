"""Document-grouped cross-validation folds for the trained components.

Questions are grouped by their source document, so that no document is seen in training by the
model that scores its questions. Documents are shuffled with a seed, then assigned largest group
first to the fold with the fewest questions so far (ties by fold number): folds are balanced by
question count and the assignment is a pure function of (questions, n_folds, seed).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..core.io import read_json
from ..core.params import ParamError
from ..ingestion.corpus import STATUS_EVALUATED, Question


class FoldLeak(AssertionError):
    """A document is on both the training and the test side of a fold."""


def assign_folds(questions: Sequence[Question], n_folds: int, seed: int) -> dict:
    if not isinstance(n_folds, int) or n_folds < 2:
        raise ParamError(f"folds.n_folds must be an integer >= 2, got {n_folds!r}")
    by_doc: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        if q.status == STATUS_EVALUATED:
            by_doc[q.doc].append(q.id)
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
    result = {"n_folds": n_folds, "seed": seed, "folds": folds}
    check_folds(result, questions)
    return result


def check_folds(folds: dict, questions: Sequence[Question]) -> None:
    """Raise FoldLeak unless every fold keeps train and test documents apart and every
    evaluated question is tested exactly once."""
    doc_of = {q.id: q.doc for q in questions}
    tested: list[str] = []
    for f in folds["folds"]:
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


def fold_of_question(folds: dict) -> dict[str, int]:
    return {q: f["fold"] for f in folds["folds"] for q in f["test_questions"]}


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
