"""Markdown tables in the shape of the paper's Table 1 (retrieval columns) and Table 2 (by
document type), plus a by-question-type table. Floats are rounded here, and only here."""

from __future__ import annotations

from ..retrieval.conditions import CONDITIONS

DISPLAY = {
    "bm25": "BM25",
    "dense": "Dense",
    "page_scorer": "Learned page scorer",
    "page_scorer_untrained": "Untrained page scorer (base model)",
    "splade": "SPLADE",
    "hybrid": "Hybrid (BM25 + Dense, RRF)",
    "parent_child": "Parent-Child",
    "query_expansion": "Query expansion (Dense)",
    "dense_reranker": "Dense + ReRanker",
    "dense_reranker_untrained": "Dense + untrained ReRanker",
    "page_scorer_reranker": "Learned page scorer + ReRanker",
    "page_scorer_bm25_hybrid": "Learned page scorer + BM25 (RRF)",
    "page_scorer_page_order": "Page scorer, ordered by page score",
    "page_scorer_linear": "Page scorer, linear page+chunk (w=0.5)",
    "page_scorer_rrf": "Page scorer, RRF of page and chunk ranks",
    "page_hybrid": "Page-level hybrid (page scorer + page BM25, RRF)",
    "page_hybrid_page_order": "Page-level hybrid, ordered by page score",
    "hyde": "HyDE (Dense)",
    "multi_hyde": "Multi-HyDE (Dense)",
    "dense_multi_hyde_reranker": "Dense + Multi-HyDE + ReRanker",
    "page_scorer_multi_hyde": "Learned page scorer + Multi-HyDE",
    "page_scorer_hn": "Hard-negative page scorer (Algorithm 1)",
    "page_scorer_hn_page_order": "Hard-negative page scorer, ordered by page score",
    "page_hybrid_hn": "Page-level hybrid, hard-negative scorer",
    "page_hybrid_hn_page_order": "Page-level hybrid, hard-negative scorer, page order",
    "page_ensemble": "Page scorer ensemble (in-batch + hard-negative, RRF)",
    "page_ensemble_page_order": "Page scorer ensemble, ordered by page score",
    "fingap_best": "fingap best (chosen per fold on the other folds)",
    "page_scorer_untrained_routed": "Untrained page scorer, routed to the top-D documents",
    "page_scorer_routed": "Learned page scorer, routed to the top-D documents",
    "page_scorer_hn_windows_maxp": "Hard-negative page scorer on whole pages, best window",
    "page_scorer_hn_windows_mean": "Hard-negative page scorer on whole pages, mean of windows",
    "page_scorer_hn_windows_maxp_routed": "Hard-negative page scorer on whole pages, best "
                                          "window, routed to the top-D documents",
    "page_scorer_hn_page_order_routed": "Hard-negative page scorer, page order, routed to the "
                                        "top-D documents",
    "page_scorer_hn_page_order_routed_hedged": "Hard-negative page scorer, page order, routed, "
                                               "last slot to the next document when unsure",
    "page_maxsim_routed": "Late interaction (MaxSim) over the routed hard-negative scorer's "
                          "top pages, that scorer's token vectors",
    "page_maxsim_untrained_routed": "Late interaction (MaxSim) over the routed hard-negative "
                                    "scorer's top pages, base model's token vectors",
    "page_reranker_routed": "Page reranker (cross-encoder) over the routed hard-negative "
                            "scorer's top pages",
    "page_reranker_untrained_routed": "Untrained page reranker over the routed hard-negative "
                                      "scorer's top pages",
}
# rows of the P ablation table (Annex C), not of Table 1: page_scorer_p5, page_scorer_p10, ...
ABLATION_PREFIX = "page_scorer_p"


def ablation_p(method: str) -> int | None:
    """P of a P-ablation method name, else None (page_scorer_page_order is not one)."""
    rest = method[len(ABLATION_PREFIX):]
    return int(rest) if method.startswith(ABLATION_PREFIX) and rest.isdigit() else None
CONDITION_DISPLAY = {"standard": "", "oracle_doc": "Oracle-Doc", "oracle_page": "Oracle-Page"}
DOC_TYPES = ("10K", "10Q", "8K", "EARNINGS")


def method_label(method: str, condition: str = "standard") -> str:
    name = DISPLAY.get(method, method)
    return name if condition == "standard" else f"{name} ({CONDITION_DISPLAY[condition]})"


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def render_retrieval_report(metrics: dict, breakdowns: dict, methods: list[str], k: int) -> str:
    q = metrics["questions"]
    align = metrics["extraction"]["gold_alignment"]
    lines = [
        "# Retrieval results",
        "",
        f"n evaluated = {q['n_evaluated']}, n missing doc = {q['n_missing_doc']} "
        f"(questions whose PDF is absent are not scored), n total = {q['n_total']}.",
        f"Documents whose extraction failed: {q.get('n_docs_failed', 0)}; questions on them "
        f"(unanswerable, not scored): {q.get('n_failed_extraction', 0)}. "
        + (f"Questions without gold evidence (retrieved and answered, not scored): "
           f"{q['n_no_gold']}. " if q.get("n_no_gold") else "")
        + "Each unscored question and its reason: `reports/unanswerable.jsonl`.",
        f"Gold alignment of extracted pages: {align['n_aligned']}/{align['n_evidence']}"
        f" = {_f(align['rate'])}. Chunks: {metrics['chunks']['n_chunks']} "
        f"(size {metrics['chunks']['size']}, overlap {metrics['chunks']['overlap']}).",
        "",
        "## Table 1: retrieval",
        "",
        f"| Method | DocRec@{k} | PageRec@{k} | BLEU@{k} | ROUGE-L@{k} | Oracle gap | "
        "Ans. ROUGE-L | Num. Match | n |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    main = [m for m in methods if ablation_p(m) is None]
    for cond in CONDITIONS:
        for m in main:
            row = metrics.get(m, {}).get(cond)
            if row is None:
                continue
            gap = metrics["oracle_gap"].get(m) if cond == "standard" else None
            lines.append(
                f"| {method_label(m, cond)} | {_f(row[f'DocRec@{k}'])} | {_f(row[f'PageRec@{k}'])}"
                f" | {_f(row[f'BLEU@{k}'])} | {_f(row[f'ROUGE-L@{k}'])} | {_f(gap)}"
                f" | {_f(row.get('AnsROUGE-L'))} | {_f(row.get('NumMatch'))} | {row['n']} |"
            )
    lines += [
        "",
        "Oracle gap = PageRec@k under Oracle-Doc minus PageRec@k in the standard condition. "
        "Ans. ROUGE-L and Num. Match (metrics-generated questions) are filled for the runs "
        "named in generate.runs; see the generation table below.",
        "",
        f"## Table 2: DocRec@{k} / PageRec@{k} by document type (standard condition)",
        "",
    ]
    lines += _by_group_table(breakdowns["doc_type"], main, k, DOC_TYPES)
    lines += ["", f"## DocRec@{k} / PageRec@{k} by question type (standard condition)", ""]
    qtypes = sorted({g for m in main for g in breakdowns["question_type"][m]["standard"]})
    lines += _by_group_table(breakdowns["question_type"], main, k, qtypes)
    lines += _generation_table(metrics, main)
    lines += _ablation_table(metrics, methods, k)
    lines += _comparison_table(metrics.get("comparisons", {}))
    return "\n".join(lines) + "\n"


def _ablation_table(metrics: dict, methods: list[str], k: int) -> list[str]:
    rows = sorted((ablation_p(m), m) for m in methods if ablation_p(m) is not None)
    if not rows:
        return []
    lines = ["", "## P ablation: learned page scorer with P candidate pages (standard condition)",
             "", f"| P | DocRec@{k} | PageRec@{k} | BLEU@{k} | ROUGE-L@{k} |",
             "|---|---|---|---|---|"]
    for p, m in rows:
        r = metrics[m]["standard"]
        lines.append(f"| {p} | {_f(r[f'DocRec@{k}'])} | {_f(r[f'PageRec@{k}'])} | "
                     f"{_f(r[f'BLEU@{k}'])} | {_f(r[f'ROUGE-L@{k}'])} |")
    return lines


def _generation_table(metrics: dict, methods: list[str]) -> list[str]:
    rows = [(m, c, metrics[m][c]) for c in CONDITIONS for m in methods
            if "AnsROUGE-L" in metrics.get(m, {}).get(c, {})]
    if not rows:
        return []
    lines = ["", "## Generation: answers from the top-k chunks of each generated run", "",
             "| Run | Ans. ROUGE-L | Num. Match, metrics-generated (n) | "
             "Num. Match, any numeric gold (n) | failed |", "|---|---|---|---|---|"]
    for m, c, r in rows:
        lines.append(f"| {method_label(m, c)} | {_f(r['AnsROUGE-L'])} | {_f(r['NumMatch'])} "
                     f"({r['n_metrics_generated']}) | {_f(r['NumMatch_numeric'])} "
                     f"({r['n_numeric']}) | {r['gen_failed']} |")
    return lines


def _comparison_table(comparisons: dict) -> list[str]:
    if not comparisons:
        return []
    lines = ["", "## Paired bootstrap 95% confidence intervals (same questions)", "",
             "| A - B | condition | metric | mean difference | 95% CI | n |",
             "|---|---|---|---|---|---|"]
    for name, by_cond in comparisons.items():
        a, b = name.split("_vs_")
        for cond, c in by_cond.items():
            lines.append(f"| {method_label(a)} - {method_label(b)} | {cond} | {c['metric']} | "
                         f"{c['mean_diff']:+.3f} | [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}] | "
                         f"{c['n']} |")
    return lines


def _by_group_table(groups: dict, methods: list[str], k: int, names) -> list[str]:
    first = next(iter(methods))
    ns = {g: groups[first]["standard"].get(g, {}).get("n", 0) for g in names}
    head = "| Method | " + " | ".join(f"{g} (n={ns[g]})" for g in names) + " |"
    lines = [head, "|---|" + "---|" * len(names)]
    for m in methods:
        cells = []
        for g in names:
            row = groups[m]["standard"].get(g)
            cells.append("-" if row is None else
                         f"{row[f'DocRec@{k}']:.3f} / {row[f'PageRec@{k}']:.3f}")
        lines.append(f"| {method_label(m)} | " + " | ".join(cells) + " |")
    return lines
