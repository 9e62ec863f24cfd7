"""Where page-level work runs: in the stage's own process (``local``) or as a Ray Data job
(``ray``), with the same task function either way.

A task is built once per worker by ``make_task()`` (so a worker loads its model once) and maps a
list of inputs to a list of results of the same length. ``run_batches`` hands it the inputs in
batches and returns the results in input order, whatever order the workers finish in.

The ``compute`` section of params.yaml is deliberately no DVC param dependency of any stage: it
says how a stage runs, not what it computes (the engines give the same outputs, tested on the
tiny corpus), so switching engines must not rerun and retrain the pipeline. Ray connects to the
cluster named by Ray's own ``RAY_ADDRESS``; without it, it starts a local cluster on this
machine for the job and stops it after.
"""

from __future__ import annotations

import os
import pickle
import resource
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .params import ParamError, section_dataclass

ENGINES = ("local", "ray")
# the stages that take a compute engine (page_index: every page_index@ variant)
COMPUTE_STAGES = ("extract", "tables", "page_index")

Task = Callable[[list], list]


@dataclass(frozen=True)
class Compute:
    engine: str = "local"
    workers: int | None = None   # ray: concurrent workers (None: one per CPU of the cluster)
    batch_docs: int = 4          # ray: PDFs or documents per batch (extraction, tables)
    batch_texts: int = 1024      # ray: texts per batch (encoding)
    stages: tuple[str, ...] | None = None   # of COMPUTE_STAGES, those on the engine (None: all)

    @classmethod
    def from_params(cls, p: dict | None) -> Compute:
        p = dict(p or {})
        if p.get("stages") is not None:
            unknown_stages = sorted(set(p["stages"]) - set(COMPUTE_STAGES))
            if unknown_stages:
                raise ParamError(f"compute.stages: {unknown_stages} take no engine; "
                                 f"choose from {COMPUTE_STAGES}")
            p["stages"] = tuple(p["stages"])
        # unknown keys and the numeric domains (workers, batch sizes) as every section's
        cfg = section_dataclass(cls, p, "compute")
        if cfg.engine not in ENGINES:
            raise ParamError(f"compute.engine must be one of {ENGINES}, got {cfg.engine!r}")
        if cfg.engine == "ray":
            try:
                import ray  # noqa: F401
            except ImportError as e:
                raise ParamError("compute.engine: ray needs the optional extra: "
                                 "pip install 'fingap[ray]'") from e
        return cfg


LOCAL = Compute()   # the default: every stage's work in its own process


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB (ru_maxrss is KB on Linux)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


@dataclass
class BatchRun:
    """What ``run_batches`` returns: the results in input order and how the job ran."""
    results: list
    engine: str
    n_batches: int
    peak_rss_mb: dict[int, float]   # per worker process (pid): its peak resident memory

    def stats(self) -> dict:
        return {"engine": self.engine, "n_batches": self.n_batches,
                "n_workers": len(self.peak_rss_mb),
                "peak_rss_mb_per_worker": max(self.peak_rss_mb.values(), default=0.0)}


def run_batches(make_task: Callable[[], Task], items: Sequence, compute: Compute, *,
                ray_batch: int, local_batch: int | None = None) -> BatchRun:
    """``make_task()``'s results over ``items``, in order. Local: one task, called on batches of
    ``local_batch`` items (None: all in one call). Ray: batches of ``ray_batch`` items over
    ``compute.workers`` actors, each building its own task."""
    items = list(items)
    if compute.engine == "local":
        task = make_task()
        size = local_batch or max(len(items), 1)
        results: list = []
        n = 0
        for start in range(0, len(items), size):
            batch = items[start:start + size]
            out = task(batch)
            _check_length(out, batch)
            results.extend(out)
            n += 1
        return BatchRun(results, "local", n, {os.getpid(): peak_rss_mb()})
    return _run_ray(make_task, items, compute, ray_batch)


def _check_length(out: list, batch: list) -> None:
    if len(out) != len(batch):
        raise RuntimeError(f"a compute task returned {len(out)} results for {len(batch)} inputs")


class _RayWorker:
    """A Ray Data actor: builds the task once, then maps batches of pickled inputs."""

    def __init__(self, make_task: Callable[[], Task]):
        self.task = make_task()

    def __call__(self, batch: dict) -> dict:
        inputs = [pickle.loads(b) for b in batch["item"]]
        out = self.task(inputs)
        _check_length(out, inputs)
        n = len(inputs)
        return {"i": batch["i"], "result": [pickle.dumps(r) for r in out],
                "pid": [os.getpid()] * n, "rss": [peak_rss_mb()] * n}


def _run_ray(make_task: Callable[[], Task], items: list, compute: Compute,
             batch_size: int) -> BatchRun:
    import ray

    started = False
    if not ray.is_initialized():
        # RAY_ADDRESS (Ray's own variable) names a cluster; without it, a new local one for
        # this job ("local": never another process's, which may stop before this job ends)
        address = os.environ.get("RAY_ADDRESS") or "local"
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
        started = address == "local"
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True
        ctx.enable_progress_bars = False
        workers = compute.workers or max(int(ray.cluster_resources().get("CPU", 1)), 1)
        if not items:
            return BatchRun([], "ray", 0, {})
        # inputs travel pickled, so any picklable input or result works and Arrow never
        # reinterprets them (a path, a page's text, a list of records, a vector)
        rows = [{"i": i, "item": pickle.dumps(x)} for i, x in enumerate(items)]
        n_blocks = max(1, -(-len(items) // batch_size))
        ds = ray.data.from_items(rows, override_num_blocks=n_blocks)
        pool = ray.data.ActorPoolStrategy(size=min(workers, n_blocks))
        out = ds.map_batches(_RayWorker, fn_constructor_args=(make_task,),
                             batch_size=batch_size, compute=pool, num_cpus=1,
                             batch_format="numpy").take_all()
    finally:
        if started:
            ray.shutdown()
    out.sort(key=lambda r: int(r["i"]))
    if [int(r["i"]) for r in out] != list(range(len(items))):
        raise RuntimeError(f"the Ray job returned {len(out)} results for {len(items)} inputs")
    rss: dict[int, float] = {}
    for r in out:
        rss[int(r["pid"])] = max(rss.get(int(r["pid"]), 0.0), float(r["rss"]))
    return BatchRun([pickle.loads(r["result"]) for r in out], "ray", n_blocks, rss)


def compute_of(params: dict[str, Any], stage: str) -> Compute:
    """How ``stage`` (one of COMPUTE_STAGES) runs, from the ``compute`` section of a full
    params.yaml (absent: local)."""
    if stage not in COMPUTE_STAGES:
        raise ValueError(f"{stage!r} takes no compute engine")
    cfg = Compute.from_params(params.get("compute"))
    if cfg.stages is not None and stage not in cfg.stages:
        return LOCAL
    return cfg
