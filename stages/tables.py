"""DVC stage: statement tables -> numeric fact store (fingap.steps.tables)."""

from pathlib import Path

from fingap.core.compute import compute_of
from fingap.core.params import section
from fingap.steps.stagekit import stage
from fingap.steps.tables import run_tables


def main() -> None:
    with stage("tables") as params:
        run_tables(section(params, "corpus"), Path("data/corpus"), Path("data/pages/pages.jsonl"),
                   Path("data/facts"), Path("reports/tables.json"),
                   compute=compute_of(params, "tables"))


if __name__ == "__main__":
    main()
