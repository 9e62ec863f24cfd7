"""What every DVC stage entry point shares: logging, clean errors, wall-time records."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..core.io import JsonlError, write_json
from ..core.models import ModelNotFound
from ..core.params import ParamError, load_params
from ..generation.llm_base import LLMUnavailableError
from ..ingestion.corpus import CorpusError

TIMINGS_DIR = Path("data/timings")
USER_ERRORS = (ParamError, CorpusError, JsonlError, ModelNotFound, FileNotFoundError,
               LLMUnavailableError)


def setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s",
                        datefmt="%H:%M:%S")


@contextlib.contextmanager
def stage(name: str) -> Iterator[dict]:
    """Run a stage body: yields params.yaml; bad input exits 2 with one clear line."""
    setup_logging()
    t0 = time.perf_counter()
    try:
        yield load_params("params.yaml")
    except USER_ERRORS as e:
        print(f"fingap {name}: error: {e}", file=sys.stderr)
        sys.exit(2)
    seconds = time.perf_counter() - t0
    # wall times are for benchmarks/stage_times.py; kept out of DVC outputs (they vary per run)
    write_json(TIMINGS_DIR / f"{name}.json", {"stage": name, "seconds": round(seconds, 2),
                                               "finished": time.time()})
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
