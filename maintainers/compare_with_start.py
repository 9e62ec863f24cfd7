"""Rows of reports/retrieval.md paired with one fixed row of an earlier commit.

The retrieval issue asks for every part's row "with a paired bootstrap CI against fingap best
as it stands at the commit where this issue starts". evaluate's own comparisons pair rows of
the same run; this pairs today's per-question records (``reports/per_question``, the studies
pipeline's ``reports/studies/per_question``, or ``reports/studies/scripts/per_question`` for a
row a study script made: synthetic questions, evidence curation) with the baseline row's
records read from git, question by question, for PageRec@5 and DocRec@5, and writes
reports/against_start.json.

    python maintainers/compare_with_start.py --baseline 06b07eb:fingap_best \
        --methods fingap_best ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

from check_parity import old_records

from fingap.core.io import read_jsonl, write_json
from fingap.core.params import load_params
from fingap.evaluation.stats import paired_bootstrap

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("PageRec", "DocRec")
# the product's evaluate records, the studies pipeline's (which also scores the product rows
# its rows are compared with: the same records), then those of rows made by study scripts
RECORD_DIRS = (ROOT / "reports/per_question", ROOT / "reports/studies/per_question",
               ROOT / "reports/studies/scripts/per_question")


def records_path(method: str, cond: str) -> Path | None:
    """The first of RECORD_DIRS holding the row's records; a study script's row may not take
    the name of a pipeline row."""
    found = [d / f"{method}__{cond}.jsonl" for d in RECORD_DIRS
             if (d / f"{method}__{cond}.jsonl").exists()]
    if found and found[-1].parent == RECORD_DIRS[-1] and len(found) > 1:
        raise SystemExit(f"{method}: records under both {found[0].parent} and {found[-1].parent}")
    return found[0] if found else None


SLICE_KEYS = ("doc_type", "question_type")


def compare(new: list[dict], old: list[dict], resamples: int, seed: int,
            subset: bool = False) -> dict:
    """Means and paired CIs of new - old per metric, over the old row's questions (with
    ``subset``, over those of them the new row scored: a study row on part of the questions)."""
    new_by_id = {r["question_id"]: r for r in new}
    missing = [r["question_id"] for r in old if r["question_id"] not in new_by_id]
    if missing and not subset:
        raise ValueError(f"{len(missing)} baseline questions not scored now, e.g. {missing[:3]}")
    old = [r for r in old if r["question_id"] in new_by_id]
    out: dict[str, dict] = {}
    for m in METRICS:
        a = [new_by_id[r["question_id"]][m] for r in old]
        b = [r[m] for r in old]
        ci = paired_bootstrap(a, b, n_resamples=resamples, seed=seed)
        changed = sum(x != y for x, y in zip(a, b, strict=True))
        out[m] = {"new": sum(a) / len(a), "baseline": sum(b) / len(b), **ci,
                  "questions_changed": changed}
    # the weak slices the issue names, before and after (PageRec@5 means; n is small)
    for key in SLICE_KEYS:
        groups: dict[str, list[tuple[float, float]]] = {}
        for r in old:
            groups.setdefault(r[key], []).append((new_by_id[r["question_id"]]["PageRec"],
                                                  r["PageRec"]))
        out.setdefault("PageRec_by", {})[key] = {
            g: {"n": len(v), "new": sum(x for x, _ in v) / len(v),
                "baseline": sum(y for _, y in v) / len(v)} for g, v in sorted(groups.items())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="06b07eb:fingap_best",
                    help="REF:METHOD, the fixed row every method is paired with")
    ap.add_argument("--methods", nargs="+", required=True)
    ap.add_argument("--conditions", nargs="+", default=["standard", "oracle_doc"])
    ap.add_argument("--out", type=Path, default=ROOT / "reports/against_start.json")
    args = ap.parse_args()

    ref, _, base_method = args.baseline.partition(":")
    if not base_method:
        raise SystemExit(f"--baseline {args.baseline!r}: expected REF:METHOD")
    ev = load_params(ROOT / "params.yaml")["evaluate"]
    if int(ev["k"]) != 5:
        raise SystemExit(f"params.yaml: evaluate.k is {ev['k']}; this pairs @5 records")
    rows: dict[str, dict] = {}
    for cond in args.conditions:
        old = old_records(ref, base_method, cond)
        if old is None:
            raise SystemExit(f"{ref}: no reports/per_question/{base_method}__{cond}.jsonl")
        for method in args.methods:
            path = records_path(method, cond)
            if path is None:
                if any(RECORD_DIRS[1].glob(f"{method}__*.jsonl")):
                    print(f"{method}: a study row without {cond} records, skipped")
                    continue
                raise SystemExit(f"reports/per_question/{method}__{cond}.jsonl: missing; run "
                                 "`dvc repro evaluate` (or the row's study) first")
            rows.setdefault(method, {})[cond] = compare(
                read_jsonl(path), old, int(ev["bootstrap_resamples"]), int(ev["bootstrap_seed"]),
                subset=path.parent == RECORD_DIRS[1])
            pr = rows[method][cond]["PageRec"]
            print(f"{method:45s} {cond:10s} PageRec@5 {pr['new']:.3f} "
                  f"{pr['mean_diff']:+.3f} [{pr['ci_low']:+.3f}, {pr['ci_high']:+.3f}]")
    write_json(args.out, {"command": "python maintainers/compare_with_start.py --baseline "
                          f"{args.baseline} --methods {' '.join(args.methods)}",
                          "baseline": args.baseline, "k": 5, "rows": rows})


if __name__ == "__main__":
    main()
