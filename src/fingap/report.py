"""Markdown tables in the shape of the paper's Table 1 (retrieval columns) and Table 2 (by
document type), plus a by-question-type table. Floats are rounded here, and only here."""

from __future__ import annotations

from .conditions import CONDITIONS

DISPLAY = {
    "bm25": "BM25",
    "dense": "Dense",
}
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
        f"Gold alignment of extracted pages: {align['n_aligned']}/{align['n_evidence']}"
        f" = {_f(align['rate'])}. Chunks: {metrics['chunks']['n_chunks']} "
        f"(size {metrics['chunks']['size']}, overlap {metrics['chunks']['overlap']}).",
        "",
        "## Table 1: retrieval",
        "",
        f"| Method | DocRec@{k} | PageRec@{k} | BLEU@{k} | ROUGE-L@{k} | Oracle gap | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for cond in CONDITIONS:
        for m in methods:
            row = metrics.get(m, {}).get(cond)
            if row is None:
                continue
            gap = metrics["oracle_gap"].get(m) if cond == "standard" else None
            lines.append(
                f"| {method_label(m, cond)} | {_f(row[f'DocRec@{k}'])} | {_f(row[f'PageRec@{k}'])}"
                f" | {_f(row[f'BLEU@{k}'])} | {_f(row[f'ROUGE-L@{k}'])} | {_f(gap)} | {row['n']} |"
            )
    lines += [
        "",
        "Oracle gap = PageRec@k under Oracle-Doc minus PageRec@k in the standard condition.",
        "",
        f"## Table 2: DocRec@{k} / PageRec@{k} by document type (standard condition)",
        "",
    ]
    lines += _by_group_table(breakdowns["doc_type"], methods, k, DOC_TYPES)
    lines += ["", f"## DocRec@{k} / PageRec@{k} by question type (standard condition)", ""]
    qtypes = sorted({g for m in methods for g in breakdowns["question_type"][m]["standard"]})
    lines += _by_group_table(breakdowns["question_type"], methods, k, qtypes)
    return "\n".join(lines) + "\n"


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
