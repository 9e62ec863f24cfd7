"""DVC stage: answers generated from the top-k chunks of the runs named in generate.runs."""

from pathlib import Path

from fingap.steps.generate import run_generate
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("generate") as params:
        run_generate(params, Path("data/corpus/questions.jsonl"),
                     Path("data/chunks/chunks.jsonl"), Path("data/runs"), Path("data/answers"),
                     Path("data/cache/llm_generate.sqlite"), Path("reports/generation.json"))


if __name__ == "__main__":
    main()
