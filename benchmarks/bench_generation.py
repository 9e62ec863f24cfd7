"""LLM benchmarks -> reports/benchmarks.json (section "generation").

Measured side by side in one run, with the bundled SmolLM2-135M (transformers backend, CPU):
- decode tokens/s, one request at a time vs batched (llm.batch_size), bf16 and fp32;
- time per question of the default generation setup (the paper's prompt over the top-5 chunks
  of the dense run, cut to generate.context_words_per_chunk words each, greedy, 64 new tokens),
  on the first N evaluated questions;
- the cache hit rate of a rerun of those same requests (must be 1.0: no LLM call).
The stage-level numbers of the last `dvc repro` (reports/hyde.json, reports/generation.json)
are copied alongside. llama.cpp is reported only if the optional extra is installed.

Run from the repository root after `dvc repro`: ``python benchmarks/bench_generation.py``.
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
from pathlib import Path

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.core.runs import read_run
from fingap.generation.answering import build_messages
from fingap.generation.llm import make_llm
from fingap.generation.llm_base import Request
from fingap.generation.llm_cache import CachedLLM
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.steps.generate import excerpt

OUT = Path("reports/benchmarks.json")
N_QUESTIONS = 16


def _new_tokens(llm, texts: list[str]) -> int:
    return sum(len(llm._tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)


def decode_speed(precision: str, batch_size: int) -> dict:
    llm = make_llm({"backend": "transformers", "model": "smollm2", "precision": precision,
                    "batch_size": batch_size})
    llm.check()
    prompts = [Request([{"role": "user", "content": f"Write about the number {i} in finance."}],
                       48, 0.0, 0) for i in range(batch_size)]
    t0 = time.perf_counter()
    if batch_size == 1:
        texts = [llm.generate(prompts[0].messages, 48, 0.0, 0)]
    else:
        texts = [r.text for r in llm.generate_many(prompts)]
    seconds = time.perf_counter() - t0
    n = _new_tokens(llm, texts)
    return {"precision": precision, "batch_size": batch_size, "new_tokens": n,
            "seconds": round(seconds, 2), "tokens_per_s": round(n / seconds, 1)}


def per_question(params: dict) -> dict:
    gp, lp = params["generate"], params["llm"]
    questions = [q for q in read_questions(Path("data/corpus"))
                 if q.status == STATUS_EVALUATED][:N_QUESTIONS]
    texts = {c["chunk_id"]: c["text"] for c in read_jsonl("data/chunks/chunks.jsonl")}
    run = read_run("data/runs/dense/standard.json")
    words = gp.get("context_words_per_chunk")
    requests = [Request(build_messages(q.question, [excerpt(texts[c], q.question, words)
                                                    for c, _ in run[q.id][:gp["k"]]]),
                        gp["max_new_tokens"]) for q in questions]
    inner = make_llm(lp)
    inner.check()
    with tempfile.TemporaryDirectory() as tmp:
        with CachedLLM(inner, Path(tmp) / "c.sqlite", "bench") as llm:
            t0 = time.perf_counter()
            replies = llm.generate_many(requests)
            seconds = time.perf_counter() - t0
            llm.generate_many(requests)  # the rerun
            hit_rate = llm.stats.hits / len(requests)
    prompt_tokens = sum(_new_tokens(inner, [inner._tokenizer.apply_chat_template(
        r.messages, tokenize=False, add_generation_prompt=True)]) for r in requests) / len(requests)
    return {"n_questions": len(requests), "context_words_per_chunk": words,
            "max_new_tokens": gp["max_new_tokens"], "batch_size": lp.get("batch_size"),
            "precision": lp.get("precision"), "mean_prompt_tokens": round(prompt_tokens),
            "seconds_per_question": round(seconds / len(requests), 2),
            "new_tokens_per_s": round(_new_tokens(inner, [r.text for r in replies]) / seconds, 1),
            "rerun_cache_hit_rate": hit_rate}


def main() -> None:
    params = load_params()
    result: dict = {"decode": [decode_speed(p, b) for p in ("bf16", "fp32") for b in (1, 16)]}
    result["default_generation"] = per_question(params)
    for name in ("hyde", "generation"):
        path = Path(f"reports/{name}.json")
        if path.exists():
            r = read_json(path)
            result[f"stage_{name}"] = {k: r.get(k) for k in (
                "llm_requests", "llm_calls", "cache_hit_rate", "seconds", "seconds_total",
                "seconds_hyde") if k in r}
    result["llama_cpp"] = ("installed" if importlib.util.find_spec("llama_cpp")
                           else "not installed (optional extra: make llama-cpp)")
    update_json_section(OUT, "generation", result)
    print(result)


if __name__ == "__main__":
    main()
