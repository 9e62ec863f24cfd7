"""Any OpenAI-compatible ``/chat/completions`` server (vLLM, llama.cpp server, Ollama, OpenAI),
over stdlib ``urllib``."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request

from .llm_base import LLM, LLMError, LLMUnavailableError

log = logging.getLogger("fingap.generation.llm")


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
