"""Page-scorer benchmarks -> reports/benchmarks.json (section "page_scorer").

Side by side in one run, on real FinanceBench (question, gold page) pairs:
- seconds per MNR training step, fp32 vs bf16 autocast (same seed, same batches), and the
  losses of both after the same steps (does bf16 train the same?)
- page encoding texts/s fp32 vs bf16, and the cosine between the two embeddings
Plus, from the last `dvc repro`: training seconds per fold and per step, page-index texts/s.

Run from the repository root after `dvc repro`: ``python benchmarks/bench_page_scorer.py``.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.retrieval.page_ranking import encode_pages, load_bi_encoder, page_text
from fingap.training.page_scorer import TrainConfig, train_bi_encoder, training_pairs

OUT = Path("reports/benchmarks.json")


def main(steps: int = 6, n_pages: int = 128) -> None:
    cfg = TrainConfig.from_params(load_params()["page_scorer_train"])
    questions = [q for q in read_questions(Path("data/corpus")) if q.status == STATUS_EVALUATED]
    pages = {(r["doc"], r["page"]): r["text"] for r in read_jsonl("data/pages/pages.jsonl")}
    pairs = training_pairs(questions, pages, cfg.max_chars)
    result: dict = {"train_step": {}, "page_encode": {}}
    for precision in ("fp32", "bf16"):
        c = replace(cfg, precision=precision, epochs=1)
        _, res = train_bi_encoder(pairs, c, seed=0, max_steps=steps)
        result["train_step"][precision] = {
            "seconds_per_step": round(res.seconds / res.n_steps, 3),
            "losses": [round(x, 4) for x in res.step_loss]}
    result["train_step"]["speedup_bf16"] = round(
        result["train_step"]["fp32"]["seconds_per_step"]
        / result["train_step"]["bf16"]["seconds_per_step"], 2)
    rng = np.random.default_rng(0)
    keys = sorted(pages)
    sample = [page_text(pages[keys[i]], cfg.max_chars)
              for i in sorted(rng.choice(len(keys), n_pages, replace=False))]
    model = load_bi_encoder(cfg.model, cfg.max_seq_length)
    embs = {}
    for precision in ("fp32", "bf16"):
        t0 = time.perf_counter()
        embs[precision] = encode_pages(model, sample, precision, show_progress=False)
        result["page_encode"][precision] = {
            "texts_per_s": round(len(sample) / (time.perf_counter() - t0), 2)}
    cos = (embs["fp32"] * embs["bf16"]).sum(axis=1)
    result["page_encode"]["cosine_fp32_bf16_min"] = round(float(cos.min()), 5)
    result["page_encode"]["n_texts"] = len(sample)
    result["config"] = {"max_seq_length": cfg.max_seq_length, "batch_size": cfg.batch_size,
                        "max_chars": cfg.max_chars, "n_pairs": len(pairs)}
    training = Path("reports/page_scorer_training.json")
    if training.exists():
        t = read_json(training)
        result["pipeline_training"] = [
            {k: f[k] for k in ("fold", "n_pairs", "n_steps", "seconds", "seconds_per_step")}
            for f in t["folds"]]
        result["pipeline_training_total_s"] = round(sum(f["seconds"] for f in t["folds"]), 1)
    for variant in ("trained", "untrained"):
        record = Path(f"reports/timings/page_index@{variant}.json")  # the stage's timing
        encode = read_json(record).get("detail", {}).get("encode") if record.exists() else None
        if encode:
            result[f"pipeline_page_index_{variant}"] = encode
    update_json_section(OUT, "page_scorer", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
