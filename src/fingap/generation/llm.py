"""Choosing a text generation backend from the ``llm`` params section, behind the interface of
``llm_base``, with the on-disk cache of ``llm_cache``. Backends, one module each:
- ``llm_transformers``: in-process transformers causal LM on CPU (a hub id, a local folder, or a
  GGUF file that transformers de-quantizes; the GGUF models PyPI packages ship);
- ``llm_llamacpp``: llama-cpp-python, an optional extra imported only when used;
- ``llm_openai``: any ``/chat/completions`` server (vLLM, llama.cpp server, Ollama, OpenAI).

``make_llm(params)`` builds one from a params dict; ``open_llm`` wraps it in the cache a stage
uses.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .llm_base import LLM, LLMUnavailableError
from .llm_cache import CachedLLM
from .llm_llamacpp import LlamaCppLLM
from .llm_openai import OpenAICompatibleLLM
from .llm_transformers import REGISTRY, TransformersLLM, bundled_model_path

log = logging.getLogger("fingap.generation.llm")


# --------------------------------------------------------------------------- OpenAI-compatible


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
            base_url, model, api_key=api_key, timeout=float(params.get("timeout", 120.0)),
            concurrency=int(params.get("concurrency", 4)),
            max_retries=int(params.get("max_retries", 4)))
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
    from ..core.params import ParamError

    backend = params.get("backend", "transformers")
    if backend not in ("transformers", "llama_cpp", "openai"):
        raise ParamError(f"llm.backend must be transformers, llama_cpp or openai; got {backend!r}")
    if params.get("precision", "fp32") not in ("fp32", "bf16"):
        raise ParamError(f"llm.precision must be fp32 or bf16; got {params.get('precision')!r}")
    for key, default, low in (("batch_size", 8, 1), ("batch_tokens", 8192, 1),
                              ("concurrency", 4, 1), ("max_retries", 4, 0)):
        value = params.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ParamError(f"llm.{key} must be an integer >= {low}; got {value!r}")
    try:
        llm = make_llm(params)
    except ValueError as exc:
        raise ParamError(f"llm: {exc}") from None
    return CachedLLM(llm, cache_path, backend_id(params))
