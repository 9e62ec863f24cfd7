"""Draw the (document, metric) pairs of the trust sets: the fresh set and the final set.

The fresh set (``annotations/fresh_questions.jsonl``) measures the verification gate on
questions written after the rules; the final set (``annotations/final_questions.jsonl``) is
written only at the end of the coverage work, on pairs drawn here now, so that nothing tuned
later can have seen them. Both follow one rule:

1. the candidate pool of ``annotations/draw_heldout_pairs.py``: documents whose PDF is present,
   each with the metrics that none of FinanceBench's 150 questions on that document mentions,
   plus three open kinds that no keyword excludes: ``other_line_item`` (a statement line item
   outside the standard metrics, as an analyst names it), ``share_of_total`` (one line item as a
   share of another, asked in plain English) and ``period_growth`` (growth of a line item between
   two periods, asked with a verb);
2. minus every pair drawn before, taken or not: the held-out and development pair files, and,
   for the final set, the fresh set's pairs;
3. ``N_10K`` pairs from 10-K documents and ``N_OTHER`` from the other documents (10-Q, 8-K,
   earnings releases), merged into one shuffled drawn order, then ``N_OTHER_RESERVE`` further
   non-10-K pairs (``"reserve": true``), with ``draw_stratum`` of the held-out script.

Deterministic: the fresh set uses ``random.Random(3401)``, the final set ``random.Random(3402)``.
A second fresh set (``fresh2``, ``random.Random(3403)``, excluding both) measures the gate
again, untouched, after the first fresh measurement had been looked at; a third (``fresh3``,
``random.Random(3404)``, excluding all three) after the second's. The final set's bars were
missed when it was measured (#36), so it became a development set; ``final2``
(``random.Random(3405)``, excluding all four) is the next acceptance set, written blind;
``final3`` (``random.Random(3406)``, excluding all five) the one after it, ``final4``
(``random.Random(3407)``, excluding all six) the next, and ``final5`` (``random.Random(3408)``,
excluding all seven) the one after that, and ``final6`` (``random.Random(3409)``, excluding all
eight) the next, and ``final7`` (``random.Random(3410)``, excluding all nine) the one after,
and ``final8`` (``random.Random(3411)``, excluding all ten) the next, and ``final9``
(``random.Random(3412)``, excluding all eleven) the one after, and ``final10``
(``random.Random(3413)``, excluding all twelve) the next, and ``final11``
(``random.Random(3414)``, excluding all thirteen) the one after, and ``final12``
(``random.Random(3415)``, excluding all fourteen) the next, and ``final13``
(``random.Random(3416)``, excluding all fifteen) the one after, and ``final14``
(``random.Random(3417)``, excluding all sixteen) the next, and ``final15``
(``random.Random(3418)``, excluding all seventeen) the one after, and ``final16``
(``random.Random(3419)``, excluding all eighteen) the next, and ``final17``
(``random.Random(3420)``, excluding all nineteen) the one after, and ``final18``
(``random.Random(3421)``, excluding all twenty) the next, and ``final19``
(``random.Random(3422)``, excluding all twenty-one) the one after, and ``final20``
(``random.Random(3423)``, excluding all twenty-two) the next, and ``final21``
(``random.Random(3424)``, excluding all twenty-three) the one after, and ``final22``
(``random.Random(3425)``, excluding all twenty-four) the next, and ``final23``
(``random.Random(3426)``, excluding all twenty-five) the one after, and ``final24``
(``random.Random(3427)``, excluding all twenty-six) the next, and ``final25``
(``random.Random(3428)``, excluding all twenty-seven) the one after, and ``final26``
(``random.Random(3429)``, excluding all twenty-eight) the next, and ``final27``
(``random.Random(3430)``, excluding all twenty-nine) the one after, and ``final28``
(``random.Random(3431)``, excluding all thirty) the next.

How the pairs are used (by hand, checked by ``annotations/verify_questions.py``): in drawn
order; a pair is skipped only when the document does not print what its metric needs, with the
reason in ``annotations/<set>_skipped.json``. The writer chooses the period (a six- or
nine-month column of a 10-Q, a 52/53-week year, a quarter of a release) and names every line
item as an analyst would, never with the label the page prints.

    python annotations/draw_trust_pairs.py --set fresh
    python annotations/draw_trust_pairs.py --set final
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

HERE = Path(__file__).resolve().parent
SETS = {"fresh": 3401, "final": 3402, "fresh2": 3403, "fresh3": 3404, "final2": 3405,
        "final3": 3406, "final4": 3407, "final5": 3408, "final6": 3409, "final7": 3410,
        "final8": 3411, "final9": 3412,
        "final10": 3413, "final11": 3414, "final12": 3415, "final13": 3416,
        "final14": 3417, "final15": 3418, "final16": 3419, "final17": 3420,
        "final18": 3421, "final19": 3422, "final20": 3423, "final21": 3424,
        "final22": 3425, "final23": 3426, "final24": 3427, "final25": 3428,
        "final26": 3429, "final27": 3430, "final28": 3431}
N_10K = 30
N_OTHER = 22
N_OTHER_RESERVE = 12
EARLIER = ["heldout_pairs.json", "dev_pairs.json", "dev2_pairs.json", "dev3_pairs.json",
           "dev4_pairs.json"]
OPEN_KINDS = {
    "other_line_item": "a statement line item outside the standard metrics",
    "share_of_total": "one line item as a share of another (plain English)",
    "period_growth": "growth of a line item between two periods (asked with a verb)",
}


def _heldout_module():
    spec = importlib.util.spec_from_file_location("draw_heldout_pairs",
                                                  HERE / "draw_heldout_pairs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def pairs_in(path: Path) -> set[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(p["doc_name"], p["metric"]) for p in data["pairs"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), required=True)
    args = parser.parse_args(argv)
    heldout = _heldout_module()
    for kind, name in OPEN_KINDS.items():
        heldout.METRICS[kind] = (name, [])
    root = heldout.corpus_dir()
    docs = heldout.load_documents(root)
    questions = heldout.read_jsonl(root / "data" / "financebench_open_source.jsonl")
    eligible = heldout.eligible_metrics(docs, questions)
    # each draw excludes every draw before it (SETS is in drawn order)
    order = list(SETS)
    later = [f"{name}_pairs.json" for name in order[:order.index(args.set)]]
    earlier = [HERE / f for f in EARLIER + later]
    used: set[tuple[str, str]] = set()
    for path in earlier:
        used |= pairs_in(path)
    for doc, metrics in eligible.items():
        eligible[doc] = [m for m in metrics if (doc, m) not in used]

    rng = random.Random(SETS[args.set])
    use: Counter = Counter()
    tenk_gen = heldout.draw_stratum(rng, [d for d in docs if d["doc_type"] == "10k"], eligible,
                                    use)
    other_gen = heldout.draw_stratum(rng, [d for d in docs if d["doc_type"] != "10k"],
                                     eligible, use)
    tenk = list(islice(tenk_gen, N_10K))
    other = list(islice(other_gen, N_OTHER))
    if len(tenk) < N_10K:
        raise SystemExit("not enough eligible 10-K pairs")
    if len(other) < N_OTHER:
        # the filings that are not 10-Ks are few (8-Ks, releases, 10-Qs): once every pair of
        # theirs has been drawn, a round takes what is left and says so
        print(f"only {len(other)} eligible non-10-K pairs left (of {N_OTHER}); all taken, "
              "no reserve", file=sys.stderr)
    pairs = tenk + other
    rng.shuffle(pairs)
    reserve = list(islice(other_gen, N_OTHER_RESERVE))
    for k, p in enumerate(pairs + reserve, 1):
        p["order"], p["reserve"] = k, k > len(pairs)
    out = {
        "set": args.set, "seed": SETS[args.set], "excluded_pair_files": [p.name for p in earlier],
        "n_pairs_excluded": len(used), "n_drawn_main": len(pairs),
        "n_drawn_main_non_10k": len(other),
        "n_drawn_reserve_non_10k": len(reserve),
        "pairs": [{k: p[k] for k in ("order", "reserve", "doc_name", "company", "doc_type",
                                     "metric", "metric_name")} for p in pairs + reserve],
    }
    out_path = HERE / f"{args.set}_pairs.json"
    out_path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for p in out["pairs"]:
        print(f"{p['order']:3d}{'r' if p['reserve'] else ' '} {p['doc_type']:8s}  "
              f"{p['doc_name']:42s}  {p['metric']}")
    print(f"-> {out_path.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
