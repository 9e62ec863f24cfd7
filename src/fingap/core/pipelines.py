"""The project's two DVC pipelines: the product (``dvc.yaml``: the paper's reproduction, fingap
best and the answer path) and the studies (``studies/dvc.yaml``: research branches the product
never chooses). Both run at the repository root, so their stages use the same paths; each has
its own reports (evaluation, wall times, MLflow run), and this module says where they live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from .timings import dvc_stage_names


@dataclass(frozen=True)
class Pipeline:
    name: str
    dvc_yaml: Path     # relative to the repository root
    params: Path       # the params file of its own sections
    reports: Path      # its evaluation, timings and MLflow-run reports

    @property
    def timings_dir(self) -> Path:
        return self.reports / "timings"

    @property
    def timings_summary(self) -> Path:
        return self.reports / "timings.json"

    def stage(self, base: str) -> str:
        """The name of this pipeline's own ``base`` stage (evaluate, track, timings): the
        product's is ``base``, another pipeline's ``<name>_<base>`` (names are unique across)."""
        return base if self.name == "product" else f"{self.name}_{base}"

    def stage_names(self, root: Path = Path(".")) -> list[str]:
        """DVC's address of every stage it defines (``foreach`` items expanded)."""
        path = root / self.dvc_yaml
        if not path.exists():
            return []
        return dvc_stage_names(yaml.safe_load(path.read_text(encoding="utf-8")) or {})


PRODUCT = Pipeline("product", Path("dvc.yaml"), Path("params.yaml"), Path("reports"))
STUDIES = Pipeline("studies", Path("studies/dvc.yaml"), Path("studies/params.yaml"),
                   Path("reports/studies"))
PIPELINES = {p.name: p for p in (PRODUCT, STUDIES)}


def pipeline(name: str) -> Pipeline:
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}; known: {', '.join(PIPELINES)}")
    return PIPELINES[name]


def stage_name(address: str) -> str:
    """A stage's name from DVC's address of it (``$DVC_STAGE``): ``name`` for a stage of the
    root dvc.yaml, ``<path to its dvc.yaml>:name`` for another one (the path relative to where
    dvc was started, so it is not used)."""
    return address.rsplit(":", 1)[-1]


def pipeline_of_stage(address: str, root: Path = Path(".")) -> Pipeline:
    """The pipeline that defines a stage (stage names are unique across both, a test checks);
    a name neither defines (a stage script run by hand under another name) is the product's."""
    name = stage_name(address)
    return STUDIES if name in STUDIES.stage_names(root) else PRODUCT
