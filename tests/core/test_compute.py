from functools import partial

import pytest

from fingap.core.compute import LOCAL, Compute, compute_of, run_batches
from fingap.core.params import ParamError


class Square:
    """A task with state built once a worker (here: an offset), as a model would be."""

    def __init__(self, offset: int = 0):
        self.offset = offset

    def __call__(self, xs: list[int]) -> list[int]:
        return [x * x + self.offset for x in xs]


class Short:
    def __call__(self, xs: list) -> list:
        return xs[:-1]


def test_compute_params_are_validated_before_work():
    assert Compute.from_params(None) == LOCAL
    assert Compute.from_params({"engine": "ray", "workers": 2}).workers == 2
    with pytest.raises(ParamError, match="compute.engine"):
        Compute.from_params({"engine": "spark"})
    with pytest.raises(ParamError, match="unknown keys"):
        Compute.from_params({"engines": "ray"})
    with pytest.raises(ParamError, match="compute.batch_docs"):
        Compute.from_params({"batch_docs": 0})
    with pytest.raises(ParamError, match="compute.workers"):
        Compute.from_params({"workers": 0})
    with pytest.raises(ParamError, match=r"compute.stages: \['chunk'\]"):
        Compute.from_params({"stages": ["chunk", "extract"]})


def test_compute_stages_picks_the_stages_on_the_engine():
    params = {"compute": {"engine": "ray", "stages": ["extract"]}}
    assert compute_of(params, "extract").engine == "ray"
    assert compute_of(params, "tables") == LOCAL
    assert compute_of({"compute": {"engine": "ray"}}, "page_index").engine == "ray"
    assert compute_of({}, "tables") == LOCAL
    with pytest.raises(ValueError, match="takes no compute engine"):
        compute_of(params, "chunk")


def test_local_engine_keeps_order_and_batches():
    job = run_batches(partial(Square, 1), range(7), LOCAL, ray_batch=2, local_batch=3)
    assert job.results == [x * x + 1 for x in range(7)]
    assert job.n_batches == 3 and job.engine == "local"
    assert run_batches(Square, [], LOCAL, ray_batch=2).results == []
    with pytest.raises(RuntimeError, match="returned 2 results for 3 inputs"):
        run_batches(Short, [1, 2, 3], LOCAL, ray_batch=2)


def test_ray_engine_gives_the_local_results_in_input_order(ray_cluster):
    items = list(range(23))
    local = run_batches(partial(Square, 5), items, LOCAL, ray_batch=4)
    ray_job = run_batches(partial(Square, 5), items, Compute(engine="ray", workers=2),
                          ray_batch=4)
    assert ray_job.results == local.results
    assert ray_job.engine == "ray" and ray_job.n_batches == 6
    assert 1 <= ray_job.stats()["n_workers"] <= 2
    assert ray_job.stats()["peak_rss_mb_per_worker"] > 0
    with pytest.raises(Exception, match="returned 3 results for 4 inputs"):
        run_batches(Short, items, Compute(engine="ray", workers=1), ray_batch=4)
