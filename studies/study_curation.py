"""Evidence curation (fingap.generation.curation) with the configured LLM over fingap best's
first stage: page precision / recall per round, the tokens spent, and the curated ranking as a
row with its paired CI (reports/curation_study.json; per-question records in
reports/studies/scripts/per_question/, read by maintainers/compare_with_start.py).

The candidates are each question's top ``--top`` pages by the routed hard-negative page scorer
(each question scored by its held-out fold's model, inside its routed documents): the ranking
``page_scorer_hn_page_order_routed`` takes its chunks from, and the study checks that it
rebuilds that row's run exactly. A complementary query is searched the same way. The row
``page_curated_routed`` puts the kept pages first and every other page after them (a dropped
page is demoted, not removed), then takes its chunks as the routed row does, so its paired CI
against the routed row is curation's own effect. Standard condition only: under Oracle-Doc the
candidates are already the gold document's. Tokens are counted as whitespace-separated words,
the same for a cached reply as for a generated one.

    dvc repro retrieve_zoo@page_scorer_hn_page_order_routed evaluate
    python studies/study_curation.py            # every evaluated question
    python studies/study_curation.py --n 40     # the first 40 questions by id
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path

from fingap.core.io import update_json_section, write_jsonl
from fingap.core.params import load_params
from fingap.core.runs import read_run
from fingap.evaluation.scoring import ChunkLookup, aggregate, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.generation.curation import curate, curated_ranking, round_quality
from fingap.generation.llm import open_llm
from fingap.ingestion.extract import read_page_texts
from fingap.retrieval.page_ranking import fold_models, rank_pages
from fingap.steps.zoo import Context
from fingap.training.page_scorer import TrainConfig

ROOT = Path(__file__).resolve().parents[1]
BASE_ROW = "page_scorer_hn_page_order_routed"
ROW = "page_curated_routed"
COND = "standard"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--n", type=int, default=0, help="the first n questions by id (0: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--max-chars", type=int, default=1500, help="of each page in a prompt")
    args = ap.parse_args()
    os.chdir(args.root)  # the pipeline's paths are relative to the project root
    params = load_params(Path("params.yaml"))
    ctx = Context(params)
    allq = sorted(ctx.questions, key=lambda q: q.id)
    # the first n by id: a contiguous subset, so a longer run reuses every cached reply
    questions = allq if args.n <= 0 else allq[: args.n]

    ranked = ctx.ranked_pages(COND, variant="hn", routed=True)
    base_run = ctx.page_scorer_final(COND, "page_score", ranked=ranked)
    stored = Path(f"data/runs/{BASE_ROW}/{COND}.json")
    if not stored.exists() or _ids(base_run) != _ids(read_run(stored)):
        raise SystemExit(f"{stored}: the study's first stage does not rebuild this row; "
                         f"run `dvc repro retrieve_zoo@{BASE_ROW}` first")
    # a question routed to a short filing (an 8-K, a release) has fewer candidate pages
    short = sum(len(ranked[q.id]) < args.top for q in questions)

    cfg = TrainConfig.from_params(params["page_scorer_train"])
    model_of, model_paths = fold_models("trained", ctx.fold_of(), ctx.questions, cfg.model,
                                        ctx.paths["page_models_hn"])
    routed = ctx.routed_docs()
    texts = read_page_texts(ctx.paths["pages"])

    t0 = time.perf_counter()
    with open_llm(params["llm"], Path("data/cache/llm_curation.sqlite")) as llm:
        curations = []
        for q in questions:
            def search(query, seen, q=q):
                asked = [dataclasses.replace(q, question=query)]
                hits = rank_pages(ctx.paths["page_index_hn"], asked, model_of, model_paths,
                                  cfg.max_seq_length, cfg.precision, COND,
                                  args.top + len(seen), ctx.paths["cache"], routed)
                return [k for k, _ in hits[q.id] if k not in seen]

            curations.append(curate(q.question, [k for k, _ in ranked[q.id]], texts, llm, search,
                                    _words, max_rounds=args.rounds, top=args.top,
                                    max_chars=args.max_chars))
    seconds = time.perf_counter() - t0

    result = {
        "llm": {k: params["llm"].get(k) for k in ("backend", "model")},
        "first_stage": BASE_ROW, "condition": COND,
        "n_questions": len(questions), "top": args.top, "max_rounds": args.rounds,
        "questions_with_fewer_candidates": short,
        "max_chars": args.max_chars,
        "tokens_counted_with": "whitespace words",
        "rounds": [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                   for r in round_quality(curations, [q.gold_pages for q in questions],
                                          [[k for k, _ in ranked[q.id][:args.top]]
                                           for q in questions], args.rounds)],
        "rounds_used": {n: sum(len(c.rounds) == n for c in curations)
                        for n in range(1, args.rounds + 1)},
        "tokens": sum(c.tokens for c in curations),
        "seconds": round(seconds, 1),
        "command": "python studies/study_curation.py" + (f" --n {args.n}" if args.n else ""),
    }
    result["row"] = _row(ctx, params, ranked, base_run, questions, curations)
    update_json_section(ROOT / "reports/curation_study.json", "curation", result)
    print(result)


def _words(text: str) -> int:
    """Tokens spent, as whitespace-separated words: the same count whether a reply is cached
    or generated (the LLM's own tokenizer is only loaded with the model)."""
    return len(text.split())


def _ids(run: dict) -> dict[str, list[str]]:
    return {q: [c for c, _ in hits] for q, hits in run.items()}


def _row(ctx: Context, params: dict, ranked: dict, base_run: dict, questions: list,
         curations: list) -> dict:
    """Score the curated ranking as a row, paired with the routed row it starts from."""
    curated = dict(ranked)
    for q, c in zip(questions, curations, strict=True):
        curated[q.id] = curated_ranking(ranked[q.id], c.pages)
    run = ctx.page_scorer_final(COND, "page_score", ranked=curated)
    ev = params["evaluate"]
    k = int(ev["k"])
    lookup = ChunkLookup.of_chunks(ctx.chunks)
    # scored on the curated questions only (all of them, or the first --n), each paired with
    # the routed row's record of the same question
    new, old = (score_run(questions, r, lookup, k) for r in (run, base_run))
    write_jsonl(Path(f"reports/studies/scripts/per_question/{ROW}__{COND}.jsonl"), new)
    ci = paired_bootstrap([r["PageRec"] for r in new], [r["PageRec"] for r in old],
                          n_resamples=int(ev["bootstrap_resamples"]),
                          seed=int(ev["bootstrap_seed"]))
    return {"method": ROW, "metrics": {m: round(v, 4) for m, v in aggregate(new, k).items()},
            "baseline": {BASE_ROW: {m: round(v, 4)
                                    for m, v in aggregate(old, k).items()}},
            f"PageRec@{k}_vs_{BASE_ROW}": {m: round(v, 4) for m, v in ci.items()},
            "questions_changed": sum(a["PageRec"] != b["PageRec"]
                                     for a, b in zip(new, old, strict=True))}


if __name__ == "__main__":
    main()
