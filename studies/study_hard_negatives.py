"""Hard negatives versus in-batch negatives on the same folds, validation splits and epochs
-> reports/hard_negative_study.json (+ .md).

The train_page_scorer_hn stage trains with hard negatives and records a validation curve per
fold. This study trains the *same* configuration with ``negatives_per_pair: 0`` (in-batch
negatives only, same code, same fit/validation documents, same seeds, no early stop so the
whole curve is seen), then puts the two curves side by side. It is the apples-to-apples
comparison and the in-batch half of the epochs study; the test-fold comparison (PageRec@5 on
the 129 questions) is in reports/retrieval.md, where the in-batch row was trained on all
training documents for 15 epochs.

Run from the repository root after `dvc repro`: ``python studies/study_hard_negatives.py``
(about 30 CPU-minutes with the default models).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fingap.core.io import read_json, write_json, write_text
from fingap.core.params import load_params
from fingap.evaluation.epochs_report import METRICS
from fingap.steps.page_scorer_hn import run_train_hn

HN_REPORT = Path("reports/page_scorer_hn_training.json")
OUT = Path("reports/hard_negative_study.json")
# validation points of the in-batch run (8 = the hard-negative maximum; 15 epochs, the paper's
# budget, would cost ~45 CPU-minutes here: its test-fold result is the page_scorer row)
EPOCHS = [1, 2, 4, 6, 8]


def _curve(report: dict) -> dict[int, dict]:
    return {r["epoch"]: r for r in report["epochs_study"]["per_epoch"]}


def main() -> None:
    params = load_params()
    hn = read_json(HN_REPORT)
    cfg = {**params["page_scorer_hn"], "negatives_per_pair": 0, "patience": None,
           "epochs": EPOCHS[-1]}
    with tempfile.TemporaryDirectory() as tmp:
        inbatch = run_train_hn(params["page_scorer_train"], cfg, Path("data/corpus"),
                               Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                               Path("models/page_scorer"), Path("data/page_index/trained"),
                               Path(tmp) / "models", Path(tmp) / "report.json",
                               eval_epochs=EPOCHS)
    a, b = _curve(hn), _curve(inbatch)
    rows = [{"epoch": e, "folds_hard": a[e]["folds"], "folds_inbatch": b[e]["folds"],
             **{f"{m}_hard": a[e][m] for m in METRICS},
             **{f"{m}_inbatch": b[e][m] for m in METRICS},
             "minutes_per_fold_hard": a[e]["train_minutes_per_fold"],
             "minutes_per_fold_inbatch": b[e]["train_minutes_per_fold"]}
            for e in sorted(set(a) & set(b))]
    metric = hn["config"]["metric"]
    best = {name: [next(r[metric] for r in f["val_curve"] if r["epoch"] == f["best_epoch"])
                   for f in rep["folds"]] for name, rep in (("hard", hn), ("inbatch", inbatch))}
    study = {"metric": hn["config"]["metric"], "per_epoch": rows,
             "best_epoch_per_fold": {"hard": hn["epochs_study"]["best_epoch_per_fold"],
                                     "inbatch": inbatch["epochs_study"]["best_epoch_per_fold"]},
             "best_value_per_fold": best,
             "inbatch_folds": [{k: f[k] for k in ("fold", "n_pairs", "seconds", "val_curve")}
                               for f in inbatch["folds"]]}
    write_json(OUT, study)
    write_text(OUT.with_suffix(".md"), render(study))
    print(render(study))


def render(study: dict) -> str:
    m = study["metric"]
    lines = ["# Hard vs in-batch negatives (validation documents of each fold)", "",
             f"Same folds, validation documents, seeds and code; the only difference is one "
             f"mined hard negative per pair. Mean over folds; the epoch is chosen on {m}.", "",
             "| Epoch | " + " | ".join(f"{x} hard / in-batch" for x in METRICS)
             + " | Minutes per fold hard / in-batch |",
             "|---:|" + "---:|" * (len(METRICS) + 1)]
    for r in study["per_epoch"]:
        lines.append(f"| {r['epoch']} | " + " | ".join(
            f"{r[x + '_hard']:.3f} / {r[x + '_inbatch']:.3f}" for x in METRICS)
            + f" | {r['minutes_per_fold_hard']:.1f} / {r['minutes_per_fold_inbatch']:.1f} |")
    be, bv = study["best_epoch_per_fold"], study["best_value_per_fold"]
    lines += ["", f"Best epoch per fold: hard {be['hard']}, in-batch {be['inbatch']}.",
              f"Best {m} per fold: hard {[round(x, 3) for x in bv['hard']]}, "
              f"in-batch {[round(x, 3) for x in bv['inbatch']]}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
