"""Small file helpers: atomic writes and JSON/JSONL I/O.

Every output is written to a temporary file in the same directory and renamed into place, so a
killed stage never leaves a half-written file that a later stage could read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` only on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # leftovers of a writer that was killed (stages are the only writers of their outputs)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; outputs get the usual mode
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | Path, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def update_json_section(path: str | Path, key: str, value: Any) -> None:
    """Set one top-level key of a JSON file (created if absent), keeping the others; used by
    the benchmarks, which each own one section of reports/benchmarks.json."""
    path = Path(path)
    data = read_json(path) if path.exists() else {}
    data[key] = value
    write_json(path, data)


def read_json(path: str | Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_jsonl(path: str | Path, rows: Iterable[dict]) -> int:
    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
            n += 1
    return n


class JsonlError(ValueError):
    """A malformed line in a JSONL file; the message names the file and line."""


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; errors name the file and line."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise JsonlError(f"{path}:{lineno}: malformed JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise JsonlError(f"{path}:{lineno}: expected a JSON object per line")
            yield lineno, row


def read_jsonl(path: str | Path) -> list[dict]:
    return [row for _, row in iter_jsonl(path)]


def sha256_file(path: str | Path, bufsize: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(bufsize):
            h.update(block)
    return h.hexdigest()
