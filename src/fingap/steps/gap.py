"""Stage ``gap``: where the ``gap.method`` pipeline lost each missed gold page (reports/gap.*)."""

from __future__ import annotations

from pathlib import Path

from ..core.io import write_json, write_jsonl
from .zoo import PATHS, Context


def run_gap(method: str, params: dict, runs_dir: Path, out_json: Path, out_md: Path,
            paths: dict = PATHS) -> dict:
    """Gap report for a page-then-chunk method's standard-condition run."""
    from ..core.io import write_text
    from ..core.runs import read_run
    from ..evaluation.gap import gap_records, render, summarise

    ctx = Context(params, paths)
    P = ctx._P()
    ranked = ctx.method_pages(method, "standard")
    run = read_run(runs_dir / method / "standard.json")
    where = {c["chunk_id"]: (c["doc"], c["page"]) for c in ctx.chunks}
    final = {q: {where[c] for c, _ in hits[:ctx.k]} for q, hits in run.items()}
    records = gap_records(ctx.questions, final, {q: [k for k, _ in r] for q, r in ranked.items()})
    summary = summarise(records)
    write_jsonl(out_json.with_suffix(".jsonl"), records)
    write_json(out_json, {"method": method, "P": P, **summary})
    write_text(out_md, render(summary, method, P))
    return summary
