"""DVC stage: the fact-store facts the hard-negative scorers' synthetic questions are templated
from (none when page_scorer_hn.synthetic_per_doc is 0); fingap.steps.page_scorer_hn."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.page_scorer_hn import run_synthetic_facts
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("synthetic_facts") as params:
        run_synthetic_facts(section(params, "page_scorer_hn"), Path("data/facts/facts.sqlite"),
                            Path("data/synthetic/facts.jsonl"))


if __name__ == "__main__":
    main()
