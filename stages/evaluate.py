"""DVC stage: metrics per question, reports/metrics.json and reports/retrieval.md."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.evaluate import run_evaluate
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("evaluate") as params:
        run_evaluate(section(params, "evaluate"), Path("data/corpus"),
                     Path("data/chunks/chunks.jsonl"), Path("data/runs"),
                     Path("data/pages/errors.jsonl"), Path("reports/unanswerable.jsonl"),
                     Path("reports/extract.json"), Path("reports/chunks.json"),
                     Path("reports/metrics.json"), Path("reports/breakdown.json"),
                     Path("reports/per_question"), Path("reports/retrieval.md"),
                     Path("reports/plots"), corpus_params=section(params, "corpus"),
                     answers_dir=Path("data/answers"))


if __name__ == "__main__":
    main()
