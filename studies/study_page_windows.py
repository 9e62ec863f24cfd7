"""The whole page for the page scorer (#14 part 1), measured on a built project before it
becomes a stage: does the scorer rank pages better when it reads all of each page?

Variants, for one encoder (the base model by default: the untrained scorer):
- ``first``: today's index input, the first max_chars characters, truncated at
  max_seq_length tokens (read from data/page_index/untrained when it is the base model);
- ``first_normalised``: the same cut of the normalised page text (fingap.retrieval.page_windows);
- ``windows_maxp`` / ``windows_mean``: windows over the whole normalised page, the page scored
  by its best window or by the token-weighted mean of its windows.

Per variant and condition (standard, standard routed to the top routing.top_docs documents,
oracle_doc): the page ranking's PageRec@5/@20 and MRR@20, and Table 1's PageRec@5 of the top-5
chunks after Algorithm 1 (page_scorer.P pages, dense chunks), with a paired bootstrap 95% CI
against ``first``. Encoding seconds and windows per page are reported too.

    dvc repro route_docs page_index@untrained index@dense
    python studies/study_page_windows.py        # -> reports/page_windows_study.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from fingap.core.io import read_json, read_jsonl, update_json_section
from fingap.core.params import load_params
from fingap.evaluation.scoring import ChunkLookup, score_run
from fingap.evaluation.stats import paired_bootstrap
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.ingestion.extract import read_page_texts
from fingap.retrieval.conditions import allowed_rows
from fingap.retrieval.doc_routing import routed_documents
from fingap.retrieval.loading import load_retriever
from fingap.retrieval.page_ranking import (
    PageRows,
    encode_pages,
    load_bi_encoder,
    page_recall_at,
    page_text,
    reciprocal_rank,
)
from fingap.retrieval.page_then_chunk import page_then_chunk
from fingap.retrieval.page_windows import normalise_page_text, page_scores, page_windows

OUT = Path(__file__).resolve().parents[1] / "reports/page_windows_study.json"
K = 5
CONDITIONS = ("standard", "standard_routed", "oracle_doc")


def encode_variants(root: Path, model_name: str, max_chars: int, max_seq_length: int,
                    precision: str, keys: list, pages: dict, overlap: int, model
                    ) -> tuple[dict, dict]:
    """{variant: (window matrix, window page row, window tokens)} and the cost of each."""
    tok = model.tokenizer
    n = len(keys)
    rows = np.arange(n)
    out, cost = {}, {}
    stored = root / "data/page_index/untrained/base.npy"
    keys_file = root / "data/page_index/untrained/keys.json"
    t0 = time.perf_counter()
    if stored.exists() and [tuple(k) for k in read_json(keys_file)] == keys and \
            model_name == load_params(root / "params.yaml")["page_scorer_train"]["model"]:
        first = np.load(stored)
        cost["first"] = {"seconds": None, "note": "read from data/page_index/untrained"}
    else:
        first = encode_pages(model, [page_text(pages[k], max_chars) for k in keys], precision)
        cost["first"] = {"seconds": round(time.perf_counter() - t0, 1)}
    out["first"] = (first, rows, np.ones(n))
    normalised = [normalise_page_text(pages[k]) for k in keys]
    t0 = time.perf_counter()
    out["first_normalised"] = (encode_pages(model, normalised, precision), rows, np.ones(n))
    cost["first_normalised"] = {"seconds": round(time.perf_counter() - t0, 1)}
    size = max_seq_length - 2  # [CLS] and [SEP]
    texts, page_of, n_tok = [], [], []
    for r, text in enumerate(normalised):
        for w in page_windows(text, tok, size, size - overlap):
            texts.append(w.text)
            page_of.append(r)
            n_tok.append(w.n_tokens)
    t0 = time.perf_counter()
    emb = encode_pages(model, texts, precision)
    secs = round(time.perf_counter() - t0, 1)
    for how in ("maxp", "mean"):
        out[f"windows_{how}"] = (emb, np.array(page_of), np.array(n_tok, dtype=float))
        cost[f"windows_{how}"] = {"seconds": secs, "windows": len(texts),
                                  "windows_per_page": round(len(texts) / n, 2)}
    raw_tokens = [len(tok(pages[k], add_special_tokens=False)["input_ids"]) for k in keys]
    norm_tokens = [len(tok(t, add_special_tokens=False)["input_ids"]) for t in normalised]
    cost["tokens_per_page"] = {"raw": round(float(np.mean(raw_tokens)), 1),
                               "normalised": round(float(np.mean(norm_tokens)), 1)}
    return out, cost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--model", default=None, help="encoder (default: page_scorer_train.model)")
    ap.add_argument("--overlap", type=int, default=32, help="tokens shared by two windows")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    root = args.root
    params = load_params(root / "params.yaml")
    tp = params["page_scorer_train"]
    model_name = args.model or tp["model"]
    P, top_docs = int(params["page_scorer"]["P"]), int(params["routing"]["top_docs"])
    questions = [q for q in read_questions(root / "data/corpus") if q.status == STATUS_EVALUATED]
    pages = read_page_texts(root / "data/pages/pages.jsonl")
    keys = sorted(pages)
    model = load_bi_encoder(model_name, tp["max_seq_length"])
    variants, cost = encode_variants(root, model_name, tp["max_chars"], tp["max_seq_length"],
                                     tp["precision"], keys, pages, args.overlap, model)
    qv = encode_pages(model, [q.question for q in questions], tp["precision"],
                      show_progress=False)
    page_rows = PageRows(keys)
    routed = routed_documents(read_json(root / "data/routing/ranking.json"),
                              [q.id for q in questions], top_docs)
    chunks = read_jsonl(root / "data/chunks/chunks.jsonl")
    chunk_keys = [(c["doc"], c["page"]) for c in chunks]
    lookup = ChunkLookup.of_chunks(chunks)
    retriever = load_retriever("dense", params["dense"], root / "data/indexes/dense",
                               root / "data/cache/embeddings.sqlite")
    queries = {q.id: q.question for q in questions}
    result: dict = {"model": model_name, "overlap": args.overlap, "P": P, "top_docs": top_docs,
                    "cost": cost, "variants": {}, "comparisons": {}}
    per_q: dict = {}
    for name, (emb, page_of, n_tok) in variants.items():
        how = "mean" if name.endswith("_mean") else "maxp"
        window_scores = emb @ qv.T  # windows x questions
        ranked: dict[str, dict] = {c: {} for c in CONDITIONS}
        for j, q in enumerate(questions):
            scores = page_scores(window_scores[:, j], page_of, n_tok, len(keys), how)
            for cond in CONDITIONS:
                rows = page_rows.allowed("oracle_doc" if cond == "oracle_doc" else "standard", q,
                                         routed[q.id] if cond == "standard_routed" else None)
                cand = np.arange(len(keys)) if rows is None else rows
                order = cand[np.argsort(-scores[cand], kind="stable")][:max(P, 20)]
                ranked[cond][q.id] = [(keys[r], float(scores[r])) for r in order]
        row = {}
        for cond in CONDITIONS:
            lists = {q.id: [k for k, _ in ranked[cond][q.id]] for q in questions}
            run = page_then_chunk(ranked[cond], P, retriever, queries, K, chunk_keys,
                                  allowed_rows("oracle_doc" if cond == "oracle_doc"
                                               else "standard", questions,
                                               [d for d, _ in chunk_keys],
                                               [p for _, p in chunk_keys]))
            recs = score_run(questions, run, lookup, K)
            per_q[(name, cond)] = [r["PageRec"] for r in recs]
            row[cond] = {
                "pages_PageRec@5": round(float(np.mean([page_recall_at(q.gold_pages,
                                                                       lists[q.id], 5)
                                                        for q in questions])), 4),
                "pages_PageRec@20": round(float(np.mean([page_recall_at(q.gold_pages,
                                                                        lists[q.id], 20)
                                                         for q in questions])), 4),
                "pages_MRR@20": round(float(np.mean([reciprocal_rank(q.gold_pages,
                                                                     lists[q.id][:20])
                                                     for q in questions])), 4),
                f"PageRec@{K}": round(float(np.mean(per_q[(name, cond)])), 4),
                f"DocRec@{K}": round(float(np.mean([r["DocRec"] for r in recs])), 4)}
        result["variants"][name] = row
    for name in variants:
        if name == "first":
            continue
        for cond in CONDITIONS:
            ci = paired_bootstrap(per_q[(name, cond)], per_q[("first", cond)])
            result["comparisons"][f"{name}_vs_first.{cond}"] = {
                k: round(v, 4) if isinstance(v, float) else v for k, v in ci.items()}
    result["command"] = f"python studies/study_page_windows.py --overlap {args.overlap}" + (
        f" --model {args.model}" if args.model else "")
    update_json_section(args.out, "page_windows", result)
    print(result)


if __name__ == "__main__":
    main()
