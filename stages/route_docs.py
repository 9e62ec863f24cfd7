"""DVC stage: document routing (cover records, ranked documents per question)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.routing import run_route_docs
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("route_docs") as params:
        run_route_docs(section(params, "routing"), Path("data/corpus"),
                       Path("data/pages/pages.jsonl"), Path("data/routing"),
                       Path("reports/routing.json"), llm_params=section(params, "llm"))


if __name__ == "__main__":
    main()
