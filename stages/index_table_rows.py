"""DVC stage: dense index of the statement-table rows (fingap.steps.table_rows_index)."""

from pathlib import Path

from fingap.core.params import section
from fingap.steps.stagekit import stage
from fingap.steps.table_rows_index import run_table_rows_index


def main() -> None:
    with stage("index_table_rows") as params:
        run_table_rows_index(section(params, "dense"), Path("data/facts/table_rows.jsonl"),
                             Path("data/indexes/table_rows_dense"))


if __name__ == "__main__":
    main()
