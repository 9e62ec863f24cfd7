"""What every DVC stage entry point shares: logging, clean errors, wall-time records."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..core import pipelines
from ..core.io import JsonlError
from ..core.models import ModelNotFound
from ..core.params import ParamError, load_params
from ..core.timings import write_stage_timing
from ..generation.llm_base import LLMUnavailableError
from ..ingestion.corpus import CorpusError

USER_ERRORS = (ParamError, CorpusError, JsonlError, ModelNotFound, FileNotFoundError,
               LLMUnavailableError)


def setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s",
                        datefmt="%H:%M:%S")


_TIMING_DETAIL: dict = {}


def record_in_timing(**detail) -> None:
    """Wall-time figures a stage measured (an encoder's pages per second, ...), for its timing
    record: the stage's outputs stay free of them, so a rerun gives the same bytes and DVC
    reruns nothing downstream."""
    _TIMING_DETAIL.update(detail)


@contextlib.contextmanager
def stage(name: str, record_time: bool = True) -> Iterator[dict]:
    """Run a stage body: yields params.yaml; bad input exits 2 with one clear line.

    On success the wall time goes to <its pipeline's reports>/timings/STAGE.json, STAGE being
    the running stage's name in DVC (from ``$DVC_STAGE``), else ``name`` (a run by hand)."""
    setup_logging()
    _TIMING_DETAIL.clear()  # one stage's figures (stages run one per process, tests in one)
    t0 = time.perf_counter()
    try:
        yield load_params("params.yaml")
    except USER_ERRORS as e:
        print(f"fingap {name}: error: {e}", file=sys.stderr)
        sys.exit(2)
    seconds = time.perf_counter() - t0
    if record_time:
        address = os.environ.get("DVC_STAGE") or name
        write_stage_timing(pipelines.stage_name(address), seconds,
                           pipelines.pipeline_of_stage(address).timings_dir,
                           detail=_TIMING_DETAIL)
    logging.getLogger("fingap").info("stage %s done in %.1fs", name, seconds)


def check_cmd_params(sec: dict, name: str, keys: tuple[str, ...], argv: list[str]) -> None:
    """A stage whose dvc.yaml command repeats some params (see the chunk stage) checks that the
    command and params.yaml agree, so the two can never drift apart silently."""
    if not argv:
        return  # run by hand (fingap CLI): params.yaml alone is the source
    if len(argv) != len(keys) or [str(sec.get(k)) for k in keys] != argv:
        raise ParamError(f"{name}: command-line values {argv} differ from params.yaml "
                         f"{[sec.get(k) for k in keys]} for {', '.join(keys)}")


def check_declared_deps(stage_name: str, paths: list[str], param: str,
                        dvc_yaml: Path = Path("dvc.yaml")) -> None:
    """A stage whose inputs are chosen by a param checks that dvc.yaml declares each of them as
    a dep; otherwise DVC would not rerun it when one changes, and its output would go stale."""
    if not dvc_yaml.exists():
        return  # run outside a DVC project (fingap CLI on a folder)
    import yaml

    spec = (yaml.safe_load(dvc_yaml.read_text()) or {}).get("stages", {}).get(stage_name, {})
    deps = set(spec.get("deps", []))
    missing = [p for p in paths if p not in deps]
    if missing:
        raise ParamError(f"{param}: {', '.join(missing)} not declared as deps of stage "
                         f"{stage_name!r} in {dvc_yaml}; add them there")
