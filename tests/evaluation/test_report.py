import pytest

from fingap.core.params import ParamError
from fingap.evaluation.report import render_retrieval_report
from fingap.steps.stagekit import check_declared_deps


def _row(doc, page, **extra):
    return {"DocRec@5": doc, "PageRec@5": page, "BLEU@5": 0.1, "ROUGE-L@5": 0.2, "n": 4, **extra}


def test_generation_columns_and_table():
    gen = {"AnsROUGE-L": 0.25, "NumMatch": 0.5, "n_metrics_generated": 2,
           "NumMatch_numeric": 0.4, "n_numeric": 5, "gen_failed": 1}
    metrics = {
        "dense": {"standard": _row(0.7, 0.2, **gen), "oracle_doc": _row(1.0, 0.4),
                  "oracle_page": _row(1.0, 1.0, **dict(gen, **{"AnsROUGE-L": 0.3}))},
        "oracle_gap": {"dense": 0.2},
        "questions": {"n_evaluated": 4, "n_missing_doc": 1, "n_total": 5},
        "extraction": {"gold_alignment": {"n_aligned": 5, "n_evidence": 5, "rate": 1.0}},
        "chunks": {"n_chunks": 10, "size": 1024, "overlap": 128},
    }
    groups = {"standard": {"10K": {"DocRec@5": 0.7, "PageRec@5": 0.2, "n": 4}}}
    breakdowns = {"question_type": {"dense": {"standard": {"metrics-generated": groups[
        "standard"]["10K"]}}}, "doc_type": {"dense": groups}}
    table = render_retrieval_report(metrics, breakdowns, ["dense"], 5)
    assert "| Dense | 0.700 | 0.200 | 0.100 | 0.200 | 0.200 | 0.250 | 0.500 | 4 |" in table
    assert "| Dense (Oracle-Doc) | 1.000 | 0.400 | 0.100 | 0.200 | - | - | - | 4 |" in table
    assert "## Generation" in table
    assert "| Dense (Oracle-Page) | 0.300 | 0.500 (2) | 0.400 (5) | 1 |" in table


def test_declared_deps_are_checked_against_dvc_yaml(tmp_path):
    dvc = tmp_path / "dvc.yaml"
    dvc.write_text("stages:\n  s:\n    cmd: x\n    deps: [data/runs/a]\n")
    check_declared_deps("s", ["data/runs/a"], "best.candidates", dvc)
    with pytest.raises(ParamError, match=r"best.candidates: data/runs/b not declared"):
        check_declared_deps("s", ["data/runs/a", "data/runs/b"], "best.candidates", dvc)
    check_declared_deps("s", ["anything"], "p", tmp_path / "absent.yaml")  # no DVC project
