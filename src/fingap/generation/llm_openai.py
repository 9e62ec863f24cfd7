"""Any OpenAI-compatible ``/chat/completions`` server (vLLM, llama.cpp server, Ollama,
``transformers serve``, OpenAI), through the ``openai`` client.

Requests go out concurrently, at most ``concurrency`` at a time, because a served model batches
the requests it has in flight. The client retries 408/409/429/5xx answers and connection errors
with exponential backoff (honouring ``Retry-After``), ``max_retries`` times per request."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from .llm_base import LLM, LLMError, LLMUnavailableError, Request, Result

log = logging.getLogger("fingap.generation.llm")

NO_KEY = "EMPTY"  # local servers want no key; the client always sends one, they ignore it


class OpenAICompatibleLLM(LLM):
    """A server speaking the OpenAI chat-completions protocol."""

    backend = "openai"

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 timeout: float = 120.0, concurrency: int = 4, max_retries: int = 4):
        from openai import OpenAI

        if concurrency < 1 or max_retries < 0:
            raise ValueError(f"concurrency must be >= 1 and max_retries >= 0; got "
                             f"{concurrency}, {max_retries}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = model
        self.timeout = timeout
        self.concurrency = concurrency
        self.client = OpenAI(base_url=self.base_url, api_key=api_key or NO_KEY,
                             timeout=timeout, max_retries=max_retries)

    def check(self) -> None:
        """Raise LLMUnavailableError naming the URL if the server cannot be reached.

        Any HTTP answer (even a 404 from a server without ``/models``) proves the server is up;
        only 401/403 are errors, because every later request would be refused the same way.
        """
        import openai

        quick = self.client.with_options(max_retries=0, timeout=min(self.timeout, 10.0))
        try:
            quick.models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMUnavailableError(
                f"OpenAI-compatible endpoint {self.base_url} refused the API key "
                f"(HTTP {exc.status_code})"
            ) from None
        except openai.APIStatusError:
            return
        except openai.APIConnectionError as exc:
            # `from None`: one readable error, not a chain of socket tracebacks.
            raise LLMUnavailableError(
                f"OpenAI-compatible endpoint {self.base_url} is unreachable ({_reason(exc)}); "
                "start the server or fix llm.base_url"
            ) from None

    def generate(
        self, messages: list[dict], max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        import openai

        url = f"{self.base_url}/chat/completions"
        try:
            completion = self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=max_new_tokens,
                temperature=temperature, seed=seed)
        except openai.APITimeoutError:
            raise LLMError(f"{url} did not answer within {self.timeout:.0f}s") from None
        except openai.APIConnectionError as exc:
            raise LLMUnavailableError(f"{url} is unreachable ({_reason(exc)})") from None
        except openai.APIStatusError as exc:
            detail = exc.response.text[:300] if exc.response is not None else str(exc)
            raise LLMError(f"{url} answered HTTP {exc.status_code}: {detail}") from None
        except openai.APIResponseValidationError as exc:
            raise LLMError(f"{url} returned an unreadable answer: {exc}") from None
        choices = getattr(completion, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise LLMError(f"{url} returned no choices[0].message.content: "
                           f"{str(completion)[:300]}")
        return (choices[0].message.content or "").strip()

    def generate_many(self, requests: list[Request]) -> list[Result]:
        """Replies in request order, at most ``concurrency`` requests in flight; a failed
        request becomes a Result with ``error`` set and costs no other."""
        if len(requests) <= 1 or self.concurrency == 1:
            return [self.generate_one(r) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            return list(pool.map(self.generate_one, requests))


def _reason(exc: Exception) -> str:
    cause = exc.__cause__ or exc.__context__
    return str(cause or exc) or type(exc).__name__
