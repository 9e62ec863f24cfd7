"""The one small interface every text generation backend implements, and its errors."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass

log = logging.getLogger("fingap.generation.llm")


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
        return [self.generate_one(r) for r in requests]

    def generate_one(self, r: Request) -> Result:
        """One request's reply, or its error as a Result."""
        try:
            return Result(self.generate(r.messages, r.max_new_tokens, r.temperature, r.seed))
        except Exception as exc:  # charged to this request only
            return Result("", f"{type(exc).__name__}: {exc}")

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
