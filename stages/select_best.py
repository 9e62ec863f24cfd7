"""DVC stage: the "fingap best" run, chosen per fold on the other folds' questions."""

from pathlib import Path

from fingap.steps.select_best import run_select_best
from fingap.steps.stagekit import check_declared_deps, stage


def main() -> None:
    with stage("select_best") as params:
        check_declared_deps("select_best", [f"data/runs/{m}" for m in
                                            params["best"].get("candidates") or []],
                            "best.candidates")
        run_select_best(params, Path("data/corpus"), Path("data/chunks/chunks.jsonl"),
                        Path("data/folds.json"), Path("data/runs"), Path("data/runs/fingap_best"),
                        Path("reports/best_selection.json"))


if __name__ == "__main__":
    main()
