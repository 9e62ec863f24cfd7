"""Markdown view of an early-stopped page scorer training report: mining counts per fold and
validation quality versus epochs (the epochs study), with its cost."""

from __future__ import annotations

# the validation metrics of the training report (sentence-transformers' IR evaluator)
METRICS = ("MRR@20", "PageRec@5", "PageRec@20")


def render_epochs_report(report: dict, title: str) -> str:
    cfg = report["config"]
    study = report["epochs_study"]
    lines = [
        f"# {title}", "",
        f"Negatives: {cfg['negatives_per_pair']} per pair per epoch, drawn from the top "
        f"{cfg['mine_top']} non-gold pages of the question's document by `{cfg['mine_with']}`; "
        f"pages holding >= {cfg['false_negative_recall']:.0%} of a gold snippet's tokens skipped.",
        f"Validation: {cfg['val_fraction']:.0%} of each fold's training documents; epoch chosen "
        f"on {study['metric']}; patience {cfg['patience']}; at most {cfg['epochs']} epochs.",
        "Validation pages are all pages of the validation documents.", "",
        "## Per fold", "",
        "| Fold | Pairs | Negatives | Skipped as likely positive | Val docs | Val questions "
        "| Best epoch | Epochs run | Minutes (train + val) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in report["folds"]:
        if not f.get("trained", True):
            lines.append(f"| {f['fold']} | no training: {f['why']}; model {f['model']} "
                         "| | | | | | | |")
            continue
        lines.append(
            f"| {f['fold']} | {f['n_pairs']} | {f['mining']['negatives']} "
            f"| {f['mining']['dropped_as_likely_positive']} | {len(f['validation_docs'])} "
            f"| {f['n_validation_questions']} | {f['best_epoch']} | {f['epochs_run']} "
            f"| {(f['seconds'] - f['validation_seconds']) / 60:.1f} + "
            f"{f['validation_seconds'] / 60:.1f} |")
    lines += ["", "## Validation quality versus epochs (mean over the folds that ran the epoch)",
              "", "| Epoch | Folds | " + " | ".join(METRICS) + " | Training minutes per fold |",
              "|---:|---:|" + "---:|" * len(METRICS) + "---:|"]
    for r in study["per_epoch"]:
        lines.append(f"| {r['epoch']} | {r['folds']} | "
                     + " | ".join(f"{r[m]:.3f}" for m in METRICS)
                     + f" | {r['train_minutes_per_fold']:.1f} |")
    lines += ["", f"Best epoch per fold: {study['best_epoch_per_fold']}.", ""]
    return "\n".join(lines)
