"""The OpenAI-compatible backend against a real local server -> reports/benchmarks.json
(section "openai_backend").

Serves the bundled SmolLM2-135M with ``transformers serve`` on this machine's CPU (its GGUF
converted once to a plain transformers folder, because the server cannot load the GGUF's
config), with and without the server's continuous batching, and sends the same FinanceBench
questions through ``OpenAICompatibleLLM.generate_many`` at concurrency 1, 4 and 16. Reported:
the median requests/s of interleaved repeats, and how many replies differ from the
concurrency-1 replies of the same server (greedy decoding: a difference comes from batching
numerics, not sampling). Run it on an idle machine: the server shares the two cores.

    pip install -e '.[serve]' && python benchmarks/bench_openai_backend.py
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from fingap.core.io import update_json_section
from fingap.generation.llm_base import Request
from fingap.generation.llm_openai import OpenAICompatibleLLM
from fingap.generation.llm_transformers import (
    TransformersLLM,
    bundled_model_path,
    dequantized_dir,
)
from fingap.ingestion.corpus import QUESTIONS_FILE, locate_corpus

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports/benchmarks.json"
CONCURRENCY = (1, 4, 16)


def plain_model_folder() -> Path:
    """The bundled GGUF de-quantised into a transformers folder ``transformers serve`` loads:
    the copy fingap's transformers backend keeps after its first load."""
    gguf = bundled_model_path("smollm2")
    TransformersLLM(str(gguf)).check()
    return dequantized_dir(gguf)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, continuous_batching: bool) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    cmd = ["transformers", "serve", str(folder), "--host", "127.0.0.1", "--port", str(port),
           "--device", "cpu", "--dtype", "bfloat16",
           "--continuous-batching" if continuous_batching else "--no-continuous-batching"]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"`{' '.join(cmd)}` exited with {proc.returncode}") from None
            time.sleep(1)
    proc.kill()
    raise SystemExit(f"`{' '.join(cmd)}` did not answer /health within 300 s")


def questions(n: int) -> list[str]:
    path = locate_corpus(None, ROOT) / QUESTIONS_FILE
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32, help="questions per measurement")
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()

    texts = questions(args.n)
    requests = [Request([{"role": "user", "content": q}], args.max_new_tokens) for q in texts]
    result: dict = {"n_requests": len(requests), "max_new_tokens": args.max_new_tokens,
                    "server": "transformers serve, SmolLM2-135M-Instruct (bundled GGUF, "
                              "de-quantised), bf16, CPU (2 cores)",
                    "greedy": True, "repeats": args.repeats}
    folder = plain_model_folder()
    for cb in (False, True):
        proc, base_url = start_server(folder, cb)
        try:
            mode: dict = {}
            warm = OpenAICompatibleLLM(base_url, str(folder), timeout=600,
                                       concurrency=max(CONCURRENCY))
            warm.generate_many(requests)  # load the model, warm every batch shape
            times: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
            replies_at: dict[int, list[str]] = {}
            errors: dict[int, int] = dict.fromkeys(CONCURRENCY, 0)
            for _ in range(args.repeats):  # interleaved, so drift hits every setting
                for c in CONCURRENCY:
                    llm = OpenAICompatibleLLM(base_url, str(folder), timeout=600,
                                              concurrency=c, max_retries=0)
                    t0 = time.perf_counter()
                    replies = llm.generate_many(requests)
                    times[c].append(time.perf_counter() - t0)
                    errors[c] += sum(r.error is not None for r in replies)
                    replies_at.setdefault(c, [r.text for r in replies])
            for c in CONCURRENCY:
                seconds = statistics.median(times[c])
                mode[f"concurrency_{c}"] = {
                    "median_seconds": round(seconds, 2),
                    "requests_per_s": round(len(requests) / seconds, 3),
                    "errors": errors[c],
                    "replies_differing_from_concurrency_1": sum(
                        a != b for a, b in zip(replies_at[c], replies_at[1], strict=True)),
                }
                print(f"continuous_batching={cb} concurrency={c}: "
                      f"{mode[f'concurrency_{c}']}", flush=True)
            base = mode["concurrency_1"]["requests_per_s"]
            for c in CONCURRENCY[1:]:
                mode[f"speedup_{c}_vs_1"] = round(
                    mode[f"concurrency_{c}"]["requests_per_s"] / base, 2)
            result["continuous_batching" if cb else "no_continuous_batching"] = mode
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    update_json_section(args.out, "openai_backend", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    sys.exit(main())
