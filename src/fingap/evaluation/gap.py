"""Where each missed gold page was lost, for a page-then-chunk pipeline (the paper's retrieval
gap decomposition, made operational).

For every gold (doc, page) not among the pages of the final top-k chunks:
- ``wrong_document``: none of the page scorer's top-P pages is from the gold document;
- ``not_in_top_P``: the right document is among the top-P pages, but not this gold page;
- ``not_in_final_k``: the gold page was among the top-P pages, but the final step dropped it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from ..ingestion.corpus import Question

STAGES = ("wrong_document", "not_in_top_P", "not_in_final_k")


def classify(gold: tuple[str, int], top_pages: Sequence[tuple[str, int]]) -> str:
    if gold in set(top_pages):
        return "not_in_final_k"
    if any(d == gold[0] for d, _ in top_pages):
        return "not_in_top_P"
    return "wrong_document"


def gap_records(questions: Sequence[Question], final_pages: Mapping[str, set],
                top_pages: Mapping[str, Sequence[tuple[str, int]]]) -> list[dict]:
    """One record per gold page: found, or the stage where it was lost."""
    out = []
    for q in questions:
        for gold in q.gold_pages:
            found = gold in final_pages.get(q.id, set())
            out.append({"question_id": q.id, "question_type": q.question_type,
                        "doc_type": q.doc_type, "gold": list(gold),
                        "outcome": "found" if found else classify(gold, top_pages[q.id])})
    return out


def summarise(records: Sequence[dict]) -> dict:
    def count(rs):
        c = Counter(r["outcome"] for r in rs)
        return {k: c.get(k, 0) for k in ("found", *STAGES)} | {"n_gold_pages": len(rs)}

    out = {"overall": count(records)}
    for key in ("question_type", "doc_type"):
        groups = defaultdict(list)
        for r in records:
            groups[r[key]].append(r)
        out[key] = {g: count(rs) for g, rs in sorted(groups.items())}
    return out


def render(summary: dict, method: str, P: int) -> str:
    head = "| group | gold pages | found | wrong document | right doc, not in top P | " \
           "in top P, not in final k |"
    lines = [f"# Retrieval gap of `{method}` (P = {P}, standard condition)", "",
             "Each gold page not among the final top-k chunks' pages is attributed to the first "
             "step that lost it (see `fingap.evaluation.gap`).", "", head,
             "|---|---|---|---|---|---|"]

    def row(name, c):
        return (f"| {name} | {c['n_gold_pages']} | {c['found']} | {c['wrong_document']} | "
                f"{c['not_in_top_P']} | {c['not_in_final_k']} |")

    lines.append(row("all", summary["overall"]))
    for key in ("question_type", "doc_type"):
        for g, c in summary[key].items():
            lines.append(row(f"{key}: {g}", c))
    return "\n".join(lines) + "\n"
