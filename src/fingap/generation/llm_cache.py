"""An on-disk (sqlite) cache in front of any backend: reruns read replies instead of
generating them again; the key holds everything that decides a reply."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.caches import seed_from_dvc_root
from .llm_base import LLM, Request, Result

log = logging.getLogger("fingap.generation.llm")


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0


class CachedLLM(LLM):
    """Wrap an LLM so an identical request is answered from a sqlite file, never regenerated.

    The key is the sha256 of (backend id, model id, messages, max_new_tokens, temperature,
    seed). Only successful replies are stored, so a failed request is retried on the next run.
    """

    _KEY_VERSION = 1  # bump if the key's contents change, so old rows are never misread

    def __init__(self, llm: LLM, cache_path: str | Path, backend_id: str):
        self.llm = llm
        self.backend = llm.backend
        self.model_id = llm.model_id
        self.backend_id = backend_id
        self.stats = CacheStats()
        self._checked = False
        path = Path(cache_path)
        seed_from_dvc_root(path)  # a queued experiment starts from the workspace's replies
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path))
        with self._conn:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS completions ("
                "key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL, "
                "created REAL NOT NULL)"
            )

    def key(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> tuple[str, str]:
        """(sha256 hex, canonical JSON request) for a call."""
        request = json.dumps(
            {
                "v": self._KEY_VERSION,
                "backend": self.backend_id,
                "model": self.model_id,
                "messages": messages,
                "max_new_tokens": int(max_new_tokens),
                "temperature": float(temperature),
                "seed": int(seed),
            },
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(request.encode("utf-8")).hexdigest(), request

    def check(self) -> None:
        self.llm.check()

    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        key, request = self.key(messages, max_new_tokens, temperature, seed)
        row = self._conn.execute(
            "SELECT response FROM completions WHERE key = ?", (key,)
        ).fetchone()
        if row is not None:
            self.stats.hits += 1
            return row[0]
        self.stats.misses += 1
        response = self.llm.generate(messages, max_new_tokens, temperature, seed)
        with self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO completions VALUES (?, ?, ?, ?)",
                (key, request, response, time.time()),
            )
        return response

    def generate_many(self, requests: list[Request]) -> list[Result]:
        """Cached replies for every request; the misses (each distinct one once) go to the
        wrapped backend in one call, so it can batch them."""
        keys = [self.key(r.messages, r.max_new_tokens, r.temperature, r.seed) for r in requests]
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(k for k, _ in keys))
        for i in range(0, len(unique), 500):
            part = unique[i:i + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT key, response FROM completions WHERE key IN ({marks})"
            found.update(self._conn.execute(sql, part).fetchall())
        todo = {}
        for (key, _), r in zip(keys, requests, strict=True):
            if key not in found and key not in todo:
                todo[key] = r
        if todo and not self._checked:
            self.llm.check()  # one clear error (dead server, missing file) before any request
            self._checked = True
        fresh = (dict(zip(todo, self.llm.generate_many(list(todo.values())), strict=True))
                 if todo else {})
        with self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO completions VALUES (?, ?, ?, ?)",
                [(key, request, fresh[key].text, time.time())
                 for key, request in dict(keys).items()
                 if key in fresh and fresh[key].error is None])
        self.stats.misses += len(todo)
        self.stats.hits += len(requests) - len(todo)
        return [Result(found[k]) if k in found else fresh[k] for k, _ in keys]

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> CachedLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
