"""Bad parameters fail fast, naming the parameter."""

import pytest

from fingap.core.models import ModelNotFound, resolve_model
from fingap.core.params import ParamError
from fingap.steps.retrieve import validate_retrieve
from fingap.steps.stagekit import check_cmd_params
from fingap.steps.zoo import run_method
from fingap.training.page_scorer import TrainConfig


def test_unknown_model_name():
    with pytest.raises(ModelNotFound, match="unknown model 'no-such-model'"):
        resolve_model("no-such-model")
    assert resolve_model("BAAI/bge-m3") == "BAAI/bge-m3"  # hub ids pass through for hub users


def test_unknown_method_fails_before_loading_anything(tmp_path):
    with pytest.raises(ParamError, match="unknown method 'colbert'"):
        run_method("colbert", {}, tmp_path)


@pytest.mark.parametrize("sec,match", [({"k": 0}, "retrieve.k must be >= 1"),
                                       ({"k": "5"}, "retrieve.k must be an integer"),
                                       ({"k": 5, "conditions": ["oracle_chunk"]},
                                        "retrieve.conditions")])
def test_bad_retrieve_params(sec, match):
    with pytest.raises(ParamError, match=match):
        validate_retrieve(sec)


def test_bad_training_params():
    with pytest.raises(ParamError, match="page_scorer_train"):
        TrainConfig.from_params({"batch_size": 1})
    with pytest.raises(ParamError, match="precision"):
        TrainConfig.from_params({"precision": "fp8"})


def test_command_line_must_match_params():
    check_cmd_params({"size": 1024, "overlap": 128}, "chunk", ("size", "overlap"),
                     ["1024", "128"])
    with pytest.raises(ParamError, match="differ from params.yaml"):
        check_cmd_params({"size": 512, "overlap": 128}, "chunk", ("size", "overlap"),
                         ["1024", "128"])
