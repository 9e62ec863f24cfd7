"""The product pipeline (dvc.yaml) and the studies pipeline (studies/dvc.yaml) stay apart."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
import yaml

from fingap.core.params import load_params
from fingap.core.pipelines import PRODUCT, STUDIES, pipeline, pipeline_of_stage, stage_name

REPO = Path(__file__).resolve().parents[1]


def _stages(dvc_yaml: Path) -> dict:
    return yaml.safe_load((REPO / dvc_yaml).read_text())["stages"]


def _param_sections(spec: dict) -> set[tuple[str, str]]:
    """(params file, section) of every param a stage (or its foreach body) declares."""
    body = spec.get("do", spec)
    out = set()
    for item in body.get("params", []):
        if isinstance(item, str):
            out.add(("params.yaml", item.split(".")[0]))
        else:
            out |= {(f, k.split(".")[0]) for f, keys in item.items() for k in keys}
    return out


@pytest.fixture(scope="module")
def graph():
    from dvc.repo import Repo

    with Repo(str(REPO)) as repo:
        return repo.index.graph  # both pipelines; edges point from a stage to its inputs'


def test_no_product_stage_reads_a_study_output(graph):
    studies = {s for s in graph if Path(s.path).parent.name == "studies"}
    product = set(graph) - studies
    assert studies and product
    for stage in product:  # every stage upstream of a product stage is a product stage
        upstream = nx.descendants(graph, stage) & studies
        assert not upstream, (stage.addressing, sorted(s.addressing for s in upstream))


def test_stage_names_are_unique_across_the_pipelines():
    assert PRODUCT.stage_names(REPO) and STUDIES.stage_names(REPO)
    assert not set(PRODUCT.stage_names(REPO)) & set(STUDIES.stage_names(REPO))


def test_study_stages_run_at_the_root_with_their_own_params_and_reports():
    """A study moves into the product by moving its entries: same paths, its params read from
    studies/params.yaml; its wall-time records and reports are the studies' own."""
    own = set(yaml.safe_load((REPO / "studies/params.yaml").read_text()))
    for name, spec in _stages(STUDIES.dvc_yaml).items():
        body = spec.get("do", spec)
        assert body.get("wdir") == "..", name
        for f, sec in _param_sections(spec):
            assert (f == "studies/params.yaml") == (sec in own), (name, f, sec)
        plots = [next(iter(p)) if isinstance(p, dict) else p for p in body.get("plots", [])]
        assert all(not p.startswith("reports/timings/") for p in plots), name
    for name, spec in _stages(PRODUCT.dvc_yaml).items():
        assert not {sec for _, sec in _param_sections(spec)} & own, name


def test_params_sections_are_in_one_file_and_best_picks_product_runs():
    product = yaml.safe_load((REPO / "params.yaml").read_text())
    studies = yaml.safe_load((REPO / "studies/params.yaml").read_text())
    assert not set(product) & set(studies)
    merged = load_params(REPO / "params.yaml")
    assert set(merged) == set(product) | set(studies)
    study_runs = {m for m in studies["studies_evaluate"]["methods"]
                  if m not in product["evaluate"]["methods"]}
    assert study_runs and not study_runs & set(product["best"]["candidates"])
    assert not study_runs & set(product["evaluate"]["methods"])


def test_a_section_in_both_files_fails(tmp_path):
    from fingap.core.params import ParamError

    (tmp_path / "studies").mkdir()
    (tmp_path / "params.yaml").write_text("a: {x: 1}\n")
    (tmp_path / "studies/params.yaml").write_text("a: {y: 2}\n")
    with pytest.raises(ParamError, match=r"sections \['a'\] are also in"):
        load_params(tmp_path / "params.yaml")
    (tmp_path / "studies/params.yaml").write_text("b: {y: 2}\n")
    assert load_params(tmp_path / "params.yaml") == {"a": {"x": 1}, "b": {"y": 2}}


def test_a_stage_address_names_its_pipeline():
    assert stage_name("studies/dvc.yaml:page_heads_maxsim@page_maxsim_routed") == \
        "page_heads_maxsim@page_maxsim_routed"
    assert pipeline_of_stage("studies/dvc.yaml:train_page_reranker", REPO) is STUDIES
    assert pipeline_of_stage("dvc.yaml:train_page_reranker", REPO) is STUDIES  # from studies/
    assert pipeline_of_stage("train_page_scorer", REPO) is PRODUCT
    assert pipeline_of_stage("by_hand", REPO) is PRODUCT
    assert STUDIES.timings_dir == Path("reports/studies/timings")
    assert pipeline("studies") is STUDIES
    assert PRODUCT.stage("evaluate") == "evaluate" and STUDIES.stage("track") == "studies_track"
    assert STUDIES.stage("track") in STUDIES.stage_names(REPO)
    with pytest.raises(ValueError, match="unknown pipeline"):
        pipeline("nosuch")
