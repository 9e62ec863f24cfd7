"""Evidence curation (fingap.generation.curation) with the configured LLM, on a built project:
page precision / recall per round and the tokens spent (reports/curation_study.json).

The candidates are each question's top ``--top`` pages by the untrained page scorer, inside its
routed documents (routing.top_docs) when data/routing exists; a complementary query is
searched the same way. Tokens are counted with the LLM's own tokenizer when the backend has
one (the bundled model), else as whitespace-separated words (the report says which).

    dvc repro retrieve_pages_routed@page_scorer_untrained_routed
    python benchmarks/study_curation.py --n 20
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from fingap.core.io import read_json, update_json_section
from fingap.core.params import load_params
from fingap.generation.curation import curate, round_quality
from fingap.generation.llm import open_llm
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.ingestion.extract import read_page_texts
from fingap.retrieval.doc_routing import routed_documents
from fingap.retrieval.page_ranking import rank_pages

OUT = Path(__file__).resolve().parents[1] / "reports/curation_study.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--n", type=int, default=20, help="questions (every k-th by id)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--max-chars", type=int, default=1500, help="of each page in a prompt")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    root = args.root
    params = load_params(root / "params.yaml")
    tp = params["page_scorer_train"]
    allq = sorted((q for q in read_questions(root / "data/corpus")
                   if q.status == STATUS_EVALUATED), key=lambda q: q.id)
    questions = allq[:: max(1, len(allq) // args.n)][: args.n]
    texts = read_page_texts(root / "data/pages/pages.jsonl")
    routing = root / "data/routing/ranking.json"
    routed = None
    if routing.exists():
        ranking, d = read_json(routing), int(params["routing"]["top_docs"])
        routed = routed_documents(ranking, [q.id for q in allq], d)

    def ranked(qs, top):
        return rank_pages(root / "data/page_index/untrained", qs, {q.id: "base" for q in qs},
                          {"base": tp["model"]}, tp["max_seq_length"], tp["precision"],
                          "standard", top, root / "data/cache/embeddings.sqlite", routed)

    first = ranked(questions, args.top)
    t0 = time.perf_counter()
    with open_llm(params["llm"], root / "data/cache/llm_curation.sqlite") as llm:
        inner = getattr(llm, "llm", llm)
        curations = []
        for q in questions:
            def search(query, seen, q=q):
                hits = ranked([dataclasses.replace(q, question=query)], args.top + len(seen))
                return [k for k, _ in hits[q.id] if k not in seen]

            def count(text: str) -> int:
                tok = getattr(inner, "_tokenizer", None)
                return len(tok(text)["input_ids"]) if tok is not None else len(text.split())

            curations.append(curate(q.question, [k for k, _ in first[q.id]], texts, llm, search,
                                    count, max_rounds=args.rounds, top=args.top,
                                    max_chars=args.max_chars))
        counted_by = ("the LLM's tokenizer" if getattr(inner, "_tokenizer", None) is not None
                      else "whitespace words")
    result = {
        "llm": {k: params["llm"].get(k) for k in ("backend", "model")},
        "n_questions": len(questions), "top": args.top, "max_rounds": args.rounds,
        "routed_top_docs": None if routed is None else int(params["routing"]["top_docs"]),
        "tokens_counted_with": counted_by,
        "rounds": [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                   for r in round_quality(curations, [q.gold_pages for q in questions],
                                          [[k for k, _ in first[q.id]] for q in questions],
                                          args.rounds)],
        "rounds_used": {n: sum(len(c.rounds) == n for c in curations)
                        for n in range(1, args.rounds + 1)},
        "seconds": round(time.perf_counter() - t0, 1),
        "command": f"python benchmarks/study_curation.py --n {args.n}",
    }
    update_json_section(args.out, "curation", result)
    print(result)


if __name__ == "__main__":
    main()
