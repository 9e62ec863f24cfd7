"""DVC stage: the answer agent over generate.runs, and its metrics (fingap.steps.answer)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.answer import OWN_SETS, run_answer
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("answer") as params:
        run_answer(section(params, "answer"), section(params, "generate"),
                   Path("data/corpus/questions.jsonl"), Path("data/pages/pages.jsonl"),
                   Path("data/facts/facts.sqlite"), Path("reports/per_question"),
                   Path("annotations/numeric_inputs.jsonl"),
                   {name: Path(f"annotations/{name}_questions.jsonl") for name in OWN_SETS},
                   Path("data/answers_checked"), Path("reports/answers.json"))


if __name__ == "__main__":
    main()
