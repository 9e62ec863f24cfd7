"""DVC stage: log the pipeline execution to MLflow (parent run + one child per method x cond)."""

from pathlib import Path

from fingap.core.io import read_json, write_json
from fingap.core.params import section
from fingap.steps.stagekit import stage
from fingap.steps.tracking import log_pipeline


def main() -> None:
    with stage("track") as params:
        reports = Path("reports")
        tags = {}
        for name in ("page_scorer_training", "page_scorer_hn_training"):
            training = reports / f"{name}.json"
            if training.exists():
                tags[f"{name}_run_id"] = read_json(training).get("mlflow_run_id", "")
        run_id = log_pipeline(
            Path("."), section(params, "track")["experiment"], params,
            read_json(reports / "metrics.json"), read_json(Path("data/corpus/manifest.json")),
            reports / "per_question",
            [reports / "metrics.json", reports / "breakdown.json", reports / "retrieval.md",
             reports / "gap.md", reports / "gap.json", reports / "plots/by_question_type.png",
             reports / "hyde.json", reports / "generation.json",
             reports / "best_selection.json", reports / "page_scorer_hn.md"],
            extra_tags=tags,
        )
        write_json(reports / "mlflow_run.json", {"parent_run_id": run_id})


if __name__ == "__main__":
    main()
