"""What the page-scorer and reranker trainers share: the training arguments both set the same
way, their integrations (MLflow), and the loss curves read back from the trainer's
``state.log_history``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def common_arguments(cfg: Any, seed: int, max_steps: int | None, report_to: Sequence[str],
                     run_name: str | None, output_dir: str) -> dict:
    """Keyword arguments of both trainers' TrainingArguments: one CPU schedule (linear warmup
    and decay, clipped gradients, bf16 where configured), seeded, every step logged.
    ``cfg`` has epochs, batch_size, lr, warmup_ratio, weight_decay and precision."""
    return dict(
        output_dir=output_dir, num_train_epochs=cfg.epochs, max_steps=max_steps or -1,
        per_device_train_batch_size=cfg.batch_size, learning_rate=cfg.lr,
        warmup_steps=cfg.warmup_ratio, weight_decay=cfg.weight_decay,
        lr_scheduler_type="linear", max_grad_norm=1.0, bf16=cfg.precision == "bf16",
        use_cpu=True, seed=seed, data_seed=seed, logging_steps=1,
        # MLflow comes in through integration_callbacks, the others by name
        report_to=[r for r in report_to if r != "mlflow"] or "none", run_name=run_name,
        disable_tqdm=True)


def integration_callbacks(report_to: Sequence[str]) -> list:
    """The trainer callbacks of ``report_to``'s integrations that ``common_arguments`` leaves
    out: for ``"mlflow"``, transformers' MLflow callback with one fix (``fold_run_callback``)."""
    return [fold_run_callback()] if "mlflow" in report_to else []


def fold_run_callback():
    """transformers' ``MLflowCallback``, ending only the run it started.

    The stock callback, when garbage collected, ends whatever MLflow run is active. Once a
    fold's training has ended the fold's own run, that is the caller's training run: the next
    folds were then logged as top-level runs, not nested under it. This one ends, at
    collection, only its own run, and only if training stopped before ending it."""
    import mlflow
    from transformers.integrations import MLflowCallback

    class FoldRunCallback(MLflowCallback):
        own_run: str | None = None

        def setup(self, args, state, model):
            before = mlflow.active_run()
            super().setup(args, state, model)
            after = mlflow.active_run()
            if after is not None and (before is None or after.info.run_id != before.info.run_id):
                self.own_run = after.info.run_id

        def __del__(self):
            active = mlflow.active_run()
            if self.own_run and active is not None and active.info.run_id == self.own_run:
                mlflow.end_run()

    return FoldRunCallback()


def loss_curves(history: Sequence[dict]) -> tuple[list[float], list[float]]:
    """(loss per logged step, mean loss per epoch). A step logged at epoch e.xx belongs to
    epoch ceil(e.xx); the first epoch's rows may read 0.x, so epochs start at 1."""
    steps: list[float] = []
    by_epoch: dict[int, list[float]] = {}
    for row in history:
        if "loss" in row and "step" in row:
            steps.append(float(row["loss"]))
            epoch = max(1, -int(-float(row["epoch"]) // 1))
            by_epoch.setdefault(epoch, []).append(float(row["loss"]))
    return steps, [sum(v) / len(v) for _, v in sorted(by_epoch.items())]
