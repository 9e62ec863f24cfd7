"""What the page-scorer and reranker trainers share: the training arguments both set the same
way, and the loss curves read back from the trainer's ``state.log_history``."""

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
        report_to=list(report_to) or "none", run_name=run_name, disable_tqdm=True)


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
