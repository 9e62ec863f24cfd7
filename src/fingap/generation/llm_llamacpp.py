"""llama-cpp-python: an optional extra, imported only when this backend is used (``make
llama-cpp`` builds it portably)."""

from __future__ import annotations

import logging

from .llm_base import LLM, LLMUnavailableError

log = logging.getLogger("fingap.generation.llm")


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
