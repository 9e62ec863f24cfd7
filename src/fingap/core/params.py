"""Reading and validating params.yaml, one section per stage.

Validation happens before any work starts, and every error names the parameter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class ParamError(ValueError):
    """An invalid value in params.yaml; the message names the parameter."""


def load_params(path: str | Path = "params.yaml") -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        params = yaml.safe_load(f) or {}
    if not isinstance(params, dict):
        raise ParamError(f"{path}: expected a mapping at the top level")
    return params


def section(params: dict[str, Any], name: str) -> dict[str, Any]:
    if name not in params or not isinstance(params[name], dict):
        raise ParamError(f"params.yaml: missing section '{name}'")
    return params[name]


def require_int(sec: dict, name: str, key: str, minimum: int | None = None) -> int:
    value = sec.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParamError(f"{name}.{key} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ParamError(f"{name}.{key} must be >= {minimum}, got {value}")
    return value


def require_choice(sec: dict, name: str, key: str, choices: tuple[str, ...]) -> str:
    value = sec.get(key)
    if value not in choices:
        raise ParamError(f"{name}.{key} must be one of {', '.join(choices)}; got {value!r}")
    return value

