"""Stage ``train_reranker``: one cross-encoder per document-grouped fold, trained on the fold's
training documents only."""

from __future__ import annotations

from pathlib import Path

from ..core.io import read_json, write_json
from ..ingestion.corpus import read_questions
from ..ingestion.extract import read_page_texts
from ..retrieval.reranking import load_cross_encoder
from ..training.folds import (
    fold_metadata,
    fold_training_record,
    fold_training_sets,
    untrained_fold_model,
    untrained_fold_record,
)


def run_train_reranker(params: dict, paths: dict, models_dir: Path, report_path: Path,
                       report_to: tuple[str, ...] = ()) -> dict:
    """One cross-encoder per fold, trained on the fold's training documents only."""
    from ..training.reranker import (
        RerankerTrainConfig,
        save_cross_encoder,
        train_cross_encoder,
        training_examples,
    )

    cfg = RerankerTrainConfig.from_params(params)
    pages = read_page_texts(paths["pages"])
    report: dict = {"config": vars(cfg), "folds": []}
    folds, questions = read_json(paths["folds"]), read_questions(paths["corpus"])
    for f, train_q in fold_training_sets(folds, questions):
        out = models_dir / f"fold_{f['fold']}"
        fallback = untrained_fold_model(f, "reranker", cfg.model)
        if fallback is not None:  # no gold evidence: the named (or base) model, as it is
            save_cross_encoder(load_cross_encoder(fallback, cfg.max_length, cfg.seed), out)
            write_json(out / "fingap_fold.json", fold_metadata(f))
            report["folds"].append(untrained_fold_record(f, fallback, cfg.model))
            continue
        examples = training_examples(train_q, pages, cfg)
        model, res = train_cross_encoder(examples, cfg, seed=cfg.seed + f["fold"],
                                         report_to=report_to, run_name=f"fold_{f['fold']}")
        save_cross_encoder(model, out)
        write_json(out / "fingap_fold.json", fold_metadata(f))
        report["folds"].append(fold_training_record(f, res, n_examples=res.n_examples))
    write_json(report_path, report)
    return report
