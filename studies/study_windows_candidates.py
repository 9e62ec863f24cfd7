"""What indexing the whole-page (windows) scorer only on candidate pages would change
(reports/windows_candidates_study.json): a cost lever of the compute issue (#15).

`page_index_windows` encodes every window of every page with each of the five fold models
(about 35k windows a model), the most expensive index of a full run. A cheaper design encodes,
for each fold model, only the windows of the pages its own test questions can reach: the
hard-negative scorer's top N pages (`data/page_index/hn`, one vector a page) under each
condition. This study measures, exactly and without encoding a page, what that restriction
would change, from the two indexes a full run already holds:
- for every question, condition and N, whether the windows scorer's top 20 pages (the most any
  row reads: P and the reports' @20) stay the same list, in the same order; a question whose
  top 20 is unchanged gets a byte-identical run;
- PageRec@5 of the page ranking with and without the restriction;
- the windows each fold model would encode: the union of its test questions' candidate pages.

    python studies/study_windows_candidates.py            # needs a full dvc repro
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import yaml

from fingap.core.io import read_json, update_json_section
from fingap.ingestion.corpus import STATUS_EVALUATED, read_questions
from fingap.retrieval.doc_routing import routed_documents
from fingap.retrieval.page_ranking import (
    PageIndex,
    PageRows,
    encode_queries,
    fold_models,
    page_recall_at,
)
from fingap.retrieval.page_windows import WindowPageIndex
from fingap.training.folds import fold_of_question

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports/windows_candidates_study.json"
TOP = 20
CANDIDATES = (20, 50, 100, 200)
CONDITIONS = ("standard", "routed", "oracle_doc")
AGGREGATIONS = ("maxp", "mean")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    args = ap.parse_args()
    root = args.root
    params = yaml.safe_load((root / "params.yaml").read_text())
    train = params["page_scorer_train"]
    questions = [q for q in read_questions(root / "data/corpus")
                 if q.status == STATUS_EVALUATED]
    fold_of = fold_of_question(read_json(root / "data/folds.json"))
    routed = routed_documents(read_json(root / "data/routing/ranking.json"),
                              [q.id for q in questions], params["routing"]["top_docs"])
    cache = root / "data/cache/embeddings.sqlite"
    hn_dir, win_dir = root / "data/page_index/hn", root / "data/page_index/hn_windows"
    keys = [tuple(k) for k in read_json(hn_dir / "keys.json")]
    if [tuple(k) for k in read_json(win_dir / "keys.json")] != keys:
        raise SystemExit(f"{hn_dir} and {win_dir} index different pages; rerun their stages")
    rows = PageRows(keys)
    window_page = np.load(win_dir / "window_page.npy")
    window_tokens = np.load(win_dir / "window_tokens.npy")
    windows_of_page = np.bincount(window_page, minlength=len(keys))
    model_of, _ = fold_models("hn", fold_of, questions, train["model"], root / "models")

    by_model: dict[str, list] = {}
    for q in questions:
        by_model.setdefault(model_of[q.id], []).append(q)
    # per (aggregation, condition, N): unchanged top-20 lists and PageRec@5 sums (N None: the
    # full index); per (N, model): the candidate rows that model would encode
    cells = [(a, c) for a in AGGREGATIONS for c in CONDITIONS]
    same = {(a, c, n): 0 for a, c in cells for n in CANDIDATES}
    rec = {(a, c, n): 0.0 for a, c in cells for n in (*CANDIDATES, None)}
    union: dict[tuple[int, str], set[int]] = {(n, m): set() for n in CANDIDATES for m in by_model}
    for name, qs in sorted(by_model.items()):
        hn_index = PageIndex(keys, np.load(hn_dir / f"{name}.npy"))
        win_emb = np.load(win_dir / f"{name}.npy")
        index = {a: WindowPageIndex(keys, win_emb, window_page, window_tokens, a)
                 for a in AGGREGATIONS}
        hn_q = encode_queries(str(root / "models/page_scorer_hn" / name),
                              [q.question for q in qs], train["max_seq_length"],
                              train["precision"], cache)
        win_q = encode_queries(str(root / "models/page_scorer_hn_windows" / name),
                               [q.question for q in qs], train["max_seq_length"],
                               train["precision"], cache)
        for q, hv, wv in zip(qs, hn_q, win_q, strict=True):
            for cond in CONDITIONS:
                allowed = rows.allowed("standard" if cond == "routed" else cond, q,
                                       routed[q.id] if cond == "routed" else None)
                hn_order = np.array([rows.row_of[k] for k, _ in
                                     hn_index.rank(hv, max(CANDIDATES), allowed)])
                for n in CANDIDATES:
                    union[(n, name)].update(int(r) for r in hn_order[:n])
                for agg, win in index.items():
                    full = [k for k, _ in win.rank(wv, TOP, allowed)]
                    rec[(agg, cond, None)] += page_recall_at(q.gold_pages, full, 5)
                    for n in CANDIDATES:
                        restricted = [k for k, _ in win.rank(wv, TOP, np.sort(hn_order[:n]))]
                        same[(agg, cond, n)] += restricted == full
                        rec[(agg, cond, n)] += page_recall_at(q.gold_pages, restricted, 5)

    n_q = len(questions)
    full_windows = int(windows_of_page.sum()) * len(by_model)
    result = {
        "questions": n_q, "top": TOP, "fold_models": len(by_model),
        "windows_full_index": full_windows,
        "page_rec_at_5_full": {f"{a}/{c}": round(rec[(a, c, None)] / n_q, 4) for a, c in cells},
        "candidates": {
            str(n): {
                "windows_encoded": (w := sum(int(windows_of_page[sorted(union[(n, m)])].sum())
                                             for m in by_model)),
                "fraction_of_full_index": round(w / full_windows, 4),
                "top20_unchanged": {f"{a}/{c}": f"{same[(a, c, n)]}/{n_q}" for a, c in cells},
                "page_rec_at_5": {f"{a}/{c}": round(rec[(a, c, n)] / n_q, 4) for a, c in cells},
            } for n in CANDIDATES},
        "command": "python studies/study_windows_candidates.py",
    }
    update_json_section(OUT, "windows_candidates", result)
    print(result)


if __name__ == "__main__":
    main()
