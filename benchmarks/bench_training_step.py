"""Seconds per page-scorer training step: the trainer-based code against the hand-written loop
it replaced (reports/benchmarks.json, section "training_step").

The same fixed pairs (fold 0's first training pairs, or drawn texts when the pipeline has not
run), the same config and seed, ``max_steps`` steps per run; the old code runs from a git
worktree of the commit before the port (``--old``, default a worktree at ec124bf), each run in its
own process. Runs alternate old / new, three times (``--repeats``), and the median seconds per
step of each is compared: the bound is +10%. Two variants: in-batch negatives (the paper), and
one mined hard negative per pair with the other-gold-page mask (the hard-negative scorer).

    git worktree add /tmp/oldtrain ec124bf
    python benchmarks/bench_training_step.py --old /tmp/oldtrain
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fixed_pairs(n: int, max_chars: int) -> tuple[list, list, dict]:
    """(pairs, negative pools, gold): real question/page pairs when data/ is built."""
    pages_path, corpus = ROOT / "data/pages/pages.jsonl", ROOT / "data/corpus"
    if pages_path.exists() and (corpus / "questions.jsonl").exists():
        from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
        from fingap.ingestion.extract import read_page_texts
        from fingap.retrieval.page_ranking import page_text

        pages = read_page_texts(pages_path)
        qs = [q for q in read_questions(corpus) if q.status == STATUS_EVALUATED]
        pairs = [(q.id, q.question, page_text(pages[k], max_chars), list(k))
                 for q in qs for k in q.gold_pages if k in pages][:n]
        by_doc: dict[str, list] = {}
        for k in sorted(pages):
            by_doc.setdefault(k[0], []).append(k)
        pools = [[(page_text(pages[k], max_chars), list(k)) for k in by_doc[p[3][0]][:10]
                  if tuple(k) != tuple(p[3])] for p in pairs]
    else:
        words = ("revenue capex margin cash dividend liabilities assets income tax "
                 "inventory").split()
        pairs = [(f"q{i}", f"What was the {words[i % 10]} in {2010 + i % 12}?",
                  " ".join(words[(i + j) % 10] for j in range(max_chars // 8)), [f"D{i}", 0])
                 for i in range(n)]
        pools = [[(" ".join(words[(i + j + 3) % 10] for j in range(max_chars // 8)),
                   [f"D{i}", 1])] for i in range(n)]
    gold = {p[0]: [list(p[3])] for p in pairs}
    return pairs, pools, gold


def worker(spec_path: str) -> None:
    """Runs inside the tree under test (PYTHONPATH): prints seconds per step."""
    from fingap.training.page_scorer import TrainConfig, train_bi_encoder

    spec = json.loads(Path(spec_path).read_text())
    pairs = [(a, b, c, tuple(d)) for a, b, c, d in spec["pairs"]]
    cfg = TrainConfig(**spec["config"])
    kw = {}
    if spec["variant"] == "hard_negatives":
        kw = {"negatives": [[(t, tuple(k)) for t, k in pool] for pool in spec["pools"]],
              "negatives_per_pair": 1,
              "gold": {q: {tuple(k) for k in ks} for q, ks in spec["gold"].items()}}
    _, res = train_bi_encoder(pairs, cfg, seed=0, max_steps=spec["steps"], **kw)
    print(json.dumps({"seconds_per_step": res.seconds / max(1, res.n_steps),
                      "n_steps": res.n_steps}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="/tmp/oldtrain", help="worktree of the hand-written loop")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    from fingap.core.io import update_json_section
    from fingap.core.params import load_params

    train = load_params(ROOT / "params.yaml")["page_scorer_train"]
    config = {k: train[k] for k in ("model", "lr", "batch_size", "warmup_ratio", "weight_decay",
                                    "scale", "max_seq_length", "precision", "max_chars")}
    pairs, pools, gold = fixed_pairs(config["batch_size"] * args.steps, config["max_chars"])
    trees = {"old": Path(args.old), "new": ROOT}
    out: dict = {"steps_per_run": args.steps, "repeats": args.repeats, "config": config,
                 "old_tree": str(trees["old"]), "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ("in_batch", "hard_negatives"):
            spec = Path(tmp) / f"{variant}.json"
            spec.write_text(json.dumps({"pairs": pairs, "pools": pools, "gold": gold,
                                        "config": config, "variant": variant,
                                        "steps": args.steps}))
            times: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(args.repeats):
                for name in ("old", "new"):  # interleaved
                    env = dict(os.environ, PYTHONPATH=str(trees[name] / "src"))
                    p = subprocess.run([sys.executable, __file__, "--worker", str(spec)],
                                       env=env, capture_output=True, text=True, check=True)
                    times[name].append(json.loads(p.stdout.strip().splitlines()[-1])
                                       ["seconds_per_step"])
            old, new = statistics.median(times["old"]), statistics.median(times["new"])
            out["variants"][variant] = {
                "old_seconds_per_step": round(old, 3), "new_seconds_per_step": round(new, 3),
                "ratio": round(new / old, 3), "within_10_percent": new <= 1.1 * old,
                "runs": {k: [round(x, 3) for x in v] for k, v in times.items()}}
            print(variant, out["variants"][variant])
    update_json_section(ROOT / "reports/benchmarks.json", "training_step", out)


if __name__ == "__main__":
    main()
