"""DVC stage: HyDE and Multi-HyDE texts per question (LLM replies cached on disk)."""

from pathlib import Path

from fingap.steps.hyde import run_hyde
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("hyde") as params:
        run_hyde(params, Path("data/corpus/questions.jsonl"), Path("data/hyde"),
                 Path("data/cache/llm_hyde.sqlite"), Path("reports/hyde.json"))


if __name__ == "__main__":
    main()
