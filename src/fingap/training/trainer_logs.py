"""The loss curves of a Hugging Face trainer's ``state.log_history``, as fingap's training
records keep them (both trainers log every step)."""

from __future__ import annotations

from collections.abc import Sequence


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
