"""DVC stage: PyMuPDF page extraction, extraction errors and the gold-alignment check."""

from pathlib import Path

from fingap.core.compute import compute_of
from fingap.core.params import section
from fingap.steps.ingest import run_extract
from fingap.steps.stagekit import stage


def main() -> None:
    with stage("extract") as params:
        run_extract(section(params, "extract"), section(params, "corpus"), Path("data/corpus"),
                    Path("data/pages"), Path("reports/extract.json"),
                    compute=compute_of(params, "extract"))


if __name__ == "__main__":
    main()
