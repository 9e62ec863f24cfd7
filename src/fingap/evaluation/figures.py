"""The paper's Figure 1: DocRec@k and PageRec@k by question type for every method."""

from __future__ import annotations

import csv
from pathlib import Path

from ..core.io import atomic_path


def by_question_type_rows(breakdowns: dict, methods: list[str], k: int) -> list[dict]:
    rows = []
    for m in methods:
        for qtype, r in sorted(breakdowns["question_type"][m]["standard"].items()):
            rows.append({"method": m, "question_type": qtype,
                         f"DocRec@{k}": round(r[f"DocRec@{k}"], 4),
                         f"PageRec@{k}": round(r[f"PageRec@{k}"], 4), "n": r["n"]})
    return rows


def write_rows_csv(path: Path, rows: list[dict], fieldnames: list[str] | None = None) -> None:
    """``fieldnames``: the header of a file without rows (else the first row's keys)."""
    with atomic_path(path) as tmp, open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fieldnames or list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def plot_nothing_scored(path: Path, why: str) -> None:
    """The figure of a corpus without gold evidence: it says why there is no bar to draw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"Nothing scored: {why}", ha="center", va="center", wrap=True)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


def plot_by_question_type(path: Path, rows: list[dict], labels: dict[str, str], k: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(r["method"] for r in rows))
    qtypes = sorted({r["question_type"] for r in rows})
    value = {(r["method"], r["question_type"]): r for r in rows}
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.45 * len(methods) + 2), sharey=True)
    height = 0.8 / len(qtypes)
    for ax, metric in zip(axes, (f"DocRec@{k}", f"PageRec@{k}"), strict=True):
        for j, qt in enumerate(qtypes):
            ys = [i + j * height for i in range(len(methods))]
            xs = [value.get((m, qt), {}).get(metric, 0.0) for m in methods]
            ax.barh(ys, xs, height=height, label=qt)
        ax.set_title(metric)
        ax.set_xlim(0, 1)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks([i + 0.4 - height / 2 for i in range(len(methods))])
    axes[0].set_yticklabels([labels.get(m, m) for m in methods])
    axes[0].invert_yaxis()
    axes[1].legend(loc="lower right", fontsize=8)
    fig.suptitle("Retrieval by question type (standard condition)")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
