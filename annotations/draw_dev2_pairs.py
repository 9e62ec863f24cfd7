"""Draw a second batch of development (document, metric) pairs.

Disjoint from the held-out pairs (``annotations/heldout_pairs.json``) and from the first
development batch (``annotations/dev_pairs.json``). The pairs are used for the questions in
``annotations/dev2_questions.jsonl``.

What it does (deterministic: ``random.Random(11)``):

1. builds the same candidate pool as ``annotations/draw_dev_pairs.py`` (imported as a
   module, which in turn uses the held-out script's functions): documents whose PDF is
   present, and for each the metrics that none of the 150 FinanceBench questions on that
   document mentions;
2. removes every pair listed in ``heldout_pairs.json`` and in ``dev_pairs.json`` (main and
   reserve, taken or not);
3. draws ``N_10K`` pairs from 10-K documents and ``N_OTHER`` pairs from the other documents
   (10-Q, 8-K, earnings releases) with the held-out script's ``draw_stratum``, and merges
   the two strata into one shuffled drawn order (orders 1-40). The non-10-K share of the
   draw is ``N_OTHER / (N_10K + N_OTHER)`` = 45% (at least 40% required). Then
   ``N_OTHER_RESERVE`` further non-10-K pairs are drawn from the same non-10-K stream
   (orders 41+, ``"reserve": true``); drawn after the main order, they do not change it;
4. writes ``annotations/dev2_pairs.json`` and prints the drawn pairs.

How the pairs are used: pairs are taken in drawn order (main order, then the reserve) and a
pair is skipped only when the document does not print the line items its metric needs
(recorded in ``annotations/dev2_skipped.json``). The set has exactly 24 questions with at
least 9 from non-10-K documents, so 10-K pairs are taken only while fewer than 24 - 9 = 15
10-K questions are written; once that quota is full, only further non-10-K pairs (still in
drawn order, continuing into the reserve) are taken until the 24th question.
``annotations/verify_heldout.py annotations/dev2_questions.jsonl`` checks the questions.

Run from the repository root: ``python annotations/draw_dev2_pairs.py``. Later batches use
the same draw with another seed, more excluded pair files and another output, e.g.
``python annotations/draw_dev2_pairs.py --seed 13 --exclude annotations/dev_pairs.json
annotations/dev2_pairs.json --out annotations/dev3_pairs.json`` (the held-out pairs are
always excluded).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
from collections import Counter
from itertools import islice
from pathlib import Path

SEED = 11
N_10K = 22
N_OTHER = 18
N_OTHER_RESERVE = 12
MIN_OTHER_SHARE = 0.40

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
DEV_PAIRS = HERE / "dev_pairs.json"
OUT_PATH = HERE / "dev2_pairs.json"


def _load_dev_module():
    spec = importlib.util.spec_from_file_location("draw_dev_pairs", HERE / "draw_dev_pairs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


dev = _load_dev_module()
heldout = dev.heldout


def pairs_in(path: Path) -> set[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(p["doc_name"], p["metric"]) for p in data["pairs"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--exclude", type=Path, nargs="+", default=[DEV_PAIRS],
                        help="pair files to exclude besides the held-out pairs")
    parser.add_argument("--out", type=Path, default=OUT_PATH)
    args = parser.parse_args(argv)
    out_path = args.out.resolve()
    root = heldout.corpus_dir()
    docs = heldout.load_documents(root)
    questions = heldout.read_jsonl(root / "data" / "financebench_open_source.jsonl")
    eligible = heldout.eligible_metrics(docs, questions)
    n_eligible = sum(len(v) for v in eligible.values())
    excluded_heldout = dev.heldout_pairs()
    excluded_dev = set().union(*(pairs_in(p) for p in args.exclude))
    excluded = excluded_heldout | excluded_dev
    pool = {
        doc: [m for m in metrics if (doc, m) not in excluded] for doc, metrics in eligible.items()
    }
    n_pool = sum(len(v) for v in pool.values())

    assert N_OTHER / (N_10K + N_OTHER) >= MIN_OTHER_SHARE
    rng = random.Random(args.seed)
    use: Counter = Counter()
    tenk_docs = [d for d in docs if d["doc_type"] == "10k"]
    other_docs = [d for d in docs if d["doc_type"] != "10k"]
    tenk_gen = heldout.draw_stratum(rng, tenk_docs, pool, use)
    other_gen = heldout.draw_stratum(rng, other_docs, pool, use)
    tenk = list(islice(tenk_gen, N_10K))
    other = list(islice(other_gen, N_OTHER))
    if len(tenk) < N_10K or len(other) < N_OTHER:
        raise SystemExit("not enough eligible pairs")
    pairs = tenk + other
    rng.shuffle(pairs)
    # Reserve: further non-10-K pairs from the same stream, drawn after (so they do not
    # change) the main order; used only to reach 9 non-10-K questions (see docstring).
    reserve = list(islice(other_gen, N_OTHER_RESERVE))
    for p in pairs:
        p["reserve"] = False
    for p in reserve:
        p["reserve"] = True
    pairs += reserve
    for k, p in enumerate(pairs, 1):
        p["order"] = k
    assert not {(p["doc_name"], p["metric"]) for p in pairs} & excluded

    out = {
        "seed": args.seed,
        "n_documents": len(docs),
        "n_metrics": len(heldout.METRICS),
        "n_pairs_eligible": n_eligible,
        "n_pairs_heldout_removed": len(excluded_heldout),
        "n_pairs_dev_removed": len(excluded_dev),
        "n_pairs_removed": len(excluded),
        "n_pairs_pool": n_pool,
        "n_drawn_main": N_10K + N_OTHER,
        "n_drawn_main_non_10k": N_OTHER,
        "n_drawn_reserve_non_10k": len(reserve),
        "pairs": [
            {
                k: p[k]
                for k in (
                    "order",
                    "reserve",
                    "doc_name",
                    "company",
                    "doc_type",
                    "metric",
                    "metric_name",
                )
            }
            for p in pairs
        ],
    }
    out_path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(docs)} documents, {n_eligible} eligible pairs, {len(excluded)} held-out/dev "
        f"pairs removed, {n_pool} in the pool"
    )
    for p in out["pairs"]:
        print(
            f"{p['order']:3d}{'r' if p['reserve'] else ' '} {p['doc_type']:8s}  "
            f"{p['doc_name']:42s}  {p['metric']}"
        )
    print(
        f"drawn {N_10K + N_OTHER} ({N_OTHER} non-10-K) + {len(reserve)} non-10-K reserve (r)"
        f" -> {out_path.relative_to(REPO_ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
