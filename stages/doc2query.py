"""DVC stage: LLM-written (doc2query) training questions for the hard-negative page scorers,
per fold, from its training documents only; empty while doc2query.per_doc is 0
(fingap.steps.doc2query)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.doc2query import run_doc2query
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("doc2query") as params:
        run_doc2query(section(params, "doc2query"), section(params, "page_scorer_hn"),
                      section(params, "llm"), Path("data/corpus"),
                      Path("data/pages/pages.jsonl"), Path("data/folds.json"),
                      Path("data/synthetic/doc2query.jsonl"), Path("reports/doc2query.json"),
                      Path("data/cache/llm_doc2query.sqlite"))


if __name__ == "__main__":
    main()
