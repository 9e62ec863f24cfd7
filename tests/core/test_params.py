"""Numeric parameters are checked for their domain when params.yaml is loaded."""

from pathlib import Path

import pytest
import yaml

from fingap.core.params import (
    NUMERIC_DOMAINS,
    Domain,
    ParamError,
    check_numeric_domains,
    load_params,
)

REPO = Path(__file__).resolve().parents[2]


def _numeric(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out |= _numeric(v, f"{prefix}{k}.")
        elif (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None:
            out[f"{prefix}{k}"] = v
    return out


def test_every_numeric_parameter_has_a_domain_and_the_defaults_pass():
    params = load_params(REPO / "params.yaml")  # with the studies' sections
    numeric = {k for k, v in _numeric(params).items()
               if v is not None or k in NUMERIC_DOMAINS}
    assert numeric - {"zoo.hybrid_weights"} <= set(NUMERIC_DOMAINS)
    check_numeric_domains(params)


@pytest.mark.parametrize("sec,key,value,match", [
    ("bm25", "k1", -1.2, r"bm25.k1 must be a number > 0, got -1.2"),
    ("bm25", "k1", 0, r"bm25.k1 must be a number > 0"),
    ("bm25", "b", 1.5, r"bm25.b must be a number >= 0 and <= 1"),
    ("retrieve", "k", 2.5, r"retrieve.k must be an integer >= 1"),
    ("page_scorer_hn", "val_fraction", 1.0, r"val_fraction must be a number > 0 and < 1"),
    ("page_scorer_hn", "patience", None, None),
    ("generate", "context_words_per_chunk", None, None),
    ("dense", "batch_size", True, r"dense.batch_size must be an integer >= 1, got True"),
    ("llm", "batch_tokens", "8k", r"llm.batch_tokens must be an integer"),
])
def test_values_outside_their_domain_fail_naming_the_parameter(tmp_path, sec, key, value, match):
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params[sec][key] = value
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    if match is None:
        load_params(path)
        return
    with pytest.raises(ParamError, match=match):
        load_params(path)


def test_domain_bounds():
    d = Domain(float, 0, 1, low_open=True)
    assert not d.accepts(0) and d.accepts(1) and d.accepts(0.5) and not d.accepts(None)
    assert Domain(int, 1).accepts(3) and not Domain(int, 1).accepts(3.0)
