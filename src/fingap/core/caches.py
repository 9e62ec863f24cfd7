"""Side caches (LLM replies, embeddings, cross-encoder scores) and DVC's experiment copies.

A queued or ``--temp`` experiment runs in a copy of the repository under ``.dvc/tmp/exps/``,
which holds the tracked outputs but none of the workspace's untracked cache files. Every entry
of these caches is keyed on everything that decides its value (model weights, settings, text),
so the workspace's copy is a safe start: without it each queued run would regenerate every LLM
reply and re-encode every query.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger("fingap")


def user_cache_dir() -> Path:
    """fingap's per-user cache folder (kept across checkouts and test runs):
    ``$FINGAP_CACHE_DIR``, else ``$XDG_CACHE_HOME/fingap``, else ``~/.cache/fingap``."""
    if os.environ.get("FINGAP_CACHE_DIR"):
        return Path(os.environ["FINGAP_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fingap"


def seed_from_dvc_root(path: str | Path) -> bool:
    """Copy ``$DVC_ROOT/<path>`` to ``path`` when ``path`` is missing and the stage runs in a
    copy of the repository (DVC sets ``DVC_ROOT`` to the real repository's root); True if
    copied. ``path`` is relative to the working directory, DVC's stage directory."""
    path = Path(path)
    root = os.environ.get("DVC_ROOT")
    if path.exists() or path.is_absolute() or not root:
        return False
    source = Path(root) / path
    if Path(root).resolve() == Path.cwd().resolve() or not source.is_file():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".seeding")
    # sqlite's backup API: a consistent copy even if the workspace writes to it meanwhile
    with sqlite3.connect(str(source)) as src, sqlite3.connect(str(tmp)) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    os.replace(tmp, path)
    log.info("seeded %s from the workspace (%s)", path, source)
    return True


class VectorCache:
    """float32 vectors in SQLite by string key (embeddings, cross-encoder scores)."""

    def __init__(self, path: str | Path):
        seed_from_dvc_root(path)  # a queued experiment starts from the workspace's vectors
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(path))
        self.conn.execute("CREATE TABLE IF NOT EXISTS emb (key TEXT PRIMARY KEY, vec BLOB)")

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out = {}
        for i in range(0, len(keys), 500):
            part = list(keys[i : i + 500])
            q = f"SELECT key, vec FROM emb WHERE key IN ({','.join('?' * len(part))})"
            for k, v in self.conn.execute(q, part):
                out[k] = np.frombuffer(v, dtype=np.float32)
        return out

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO emb VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )

    def close(self) -> None:
        self.conn.close()
