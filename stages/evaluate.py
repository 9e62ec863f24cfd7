"""DVC stage: metrics per question, metrics.json and retrieval.md (``python stages/evaluate.py
[studies]``: the product's rows, params ``evaluate``, into reports/; or the studies' rows,
params ``studies_evaluate``, into reports/studies/)."""

import sys
from pathlib import Path

from fingap.core.params import section
from fingap.core.pipelines import pipeline
from fingap.steps.evaluate import run_evaluate
from fingap.steps.stagekit import check_declared_deps, stage


def main(pipeline_name: str = "product") -> None:
    p = pipeline(pipeline_name)
    name = p.stage("evaluate")
    with stage(name) as params:
        ev = section(params, name)
        # each scored run must be a declared dep, or DVC would not rescore it when it changes
        check_declared_deps(name, [f"data/runs/{m}" for m in ev.get("methods") or []],
                            f"{name}.methods", p.dvc_yaml)
        r = p.reports
        run_evaluate(ev, Path("data/corpus"), Path("data/chunks/chunks.jsonl"), Path("data/runs"),
                     Path("data/pages/errors.jsonl"), r / "unanswerable.jsonl",
                     Path("reports/extract.json"), Path("reports/chunks.json"),
                     r / "metrics.json", r / "breakdown.json", r / "per_question",
                     r / "retrieval.md", r / "plots", corpus_params=section(params, "corpus"),
                     answers_dir=Path("data/answers") if p.name == "product" else None)


if __name__ == "__main__":
    main(*sys.argv[1:])
