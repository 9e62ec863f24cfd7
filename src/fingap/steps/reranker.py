"""Stage ``train_reranker``: one cross-encoder per document-grouped fold, trained on the fold's
training documents only."""

from __future__ import annotations

from pathlib import Path

from ..core.io import read_json, write_json
from ..ingestion.corpus import read_questions
from ..ingestion.extract import read_page_texts
from ..training.folds import check_folds


def run_train_reranker(params: dict, paths: dict, models_dir: Path, report_path: Path) -> dict:
    """One cross-encoder per fold, trained on the fold's training documents only."""
    from ..training.reranker import (
        RerankerTrainConfig,
        save_cross_encoder,
        train_cross_encoder,
        training_examples,
    )

    cfg = RerankerTrainConfig.from_params(params)
    all_q = read_questions(paths["corpus"])
    folds = read_json(paths["folds"])
    check_folds(folds, all_q)
    by_id = {q.id: q for q in all_q}
    pages = read_page_texts(paths["pages"])
    report: dict = {"config": vars(cfg), "folds": []}
    for f in folds["folds"]:
        train_q = [by_id[q] for q in f["train_questions"]]
        assert not {q.doc for q in train_q} & set(f["test_docs"]), "fold leak"
        examples = training_examples(train_q, pages, cfg)
        tok, model, res = train_cross_encoder(examples, cfg, seed=cfg.seed + f["fold"])
        out = models_dir / f"fold_{f['fold']}"
        save_cross_encoder(tok, model, out)
        write_json(out / "fingap_fold.json", {"fold": f["fold"], "test_docs": f["test_docs"],
                                              "train_docs": f["train_docs"]})
        report["folds"].append({
            "fold": f["fold"], "n_examples": res.n_examples, "n_steps": res.n_steps,
            "seconds": round(res.seconds, 1),
            "seconds_per_step": round(res.seconds / max(1, res.n_steps), 3),
            "epoch_loss": [round(x, 5) for x in res.epoch_loss],
            "step_loss": [round(x, 5) for x in res.step_loss]})
    write_json(report_path, report)
    return report
