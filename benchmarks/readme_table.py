"""README's results table, rendered from reports/ and the paper's figures.

fingap's figures come from ``reports/metrics.json`` (the ``evaluate`` stage: DocRec@5 and
PageRec@5 by method and condition, paired bootstrap CIs under ``comparisons``); the paper's from
``docs/paper_figures.yaml``, which cites it. README.md holds the table between the markers
``<!-- results-table:start -->`` and ``<!-- results-table:end -->``; ``tests/test_docs.py``
checks that it is what this script renders.

    python benchmarks/readme_table.py           # print the block
    python benchmarks/readme_table.py --write   # rewrite the block in README.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
START = "<!-- results-table:start -->"
END = "<!-- results-table:end -->"
K = 5

# (label, methods joined by " / ", condition, comparison shown or None, thesis figure key)
ROWS: tuple[tuple[str, tuple[str, ...], str, str | None, str | None], ...] = (
    ("BM25 (bm25s, finance tokenizer)", ("bm25",), "standard", None, "bm25"),
    ("SPLADE (SPLADE-tiny)", ("splade",), "standard", None, "splade"),
    ("Dense (all-MiniLM-L6-v2, mean-pooled windows)", ("dense",), "standard", None, "dense"),
    ("Hybrid RRF (BM25 + dense)", ("hybrid",), "standard", None, "hybrid"),
    ("Parent-child (children: 254-token embedder windows)", ("parent_child",), "standard", None,
     "parent_child"),
    ("Query expansion (dense)", ("query_expansion",), "standard", None, "query_expansion"),
    ("HyDE (SmolLM2-135M passages)", ("hyde",), "standard", "hyde_vs_dense", "hyde"),
    ("Multi-HyDE (SmolLM2-135M passages)", ("multi_hyde",), "standard", None, "multi_hyde"),
    ("Dense + reranker (MiniLM cross-encoder trained per fold)", ("dense_reranker",),
     "standard", None, "dense_reranker"),
    ("Learned page scorer (Algorithm 1, 5-fold MNR, P = 20)", ("page_scorer",), "standard",
     "page_scorer_vs_dense", "page_scorer"),
    ("Untrained page scorer (same pipeline, base model)", ("page_scorer_untrained",),
     "standard", "page_scorer_untrained_vs_dense", None),
    ("**fingap best** (routed hard-negative page scorer, chosen per fold)", ("fingap_best",),
     "standard", "fingap_best_vs_page_scorer", None),
    ("Dense / page scorer / fingap best, Oracle-Doc", ("dense", "page_scorer", "fingap_best"),
     "oracle_doc", None, "oracle_doc"),
)
# how a comparison's second row reads in the table
VS = {"dense": "dense", "page_scorer": "Algorithm 1"}


def _f3(x: float) -> str:
    return f"{x:.3f}"


def _joined(values: list[str]) -> str:
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def _ci(comparisons: dict, key: str) -> str:
    c = comparisons[key]["standard"]
    other = key.split("_vs_", 1)[1]
    return (f"{c['mean_diff']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}] "
            f"vs {VS.get(other, other)}")


def _paper(entry: dict | None) -> str:
    if entry is None:
        return "-"
    note = f" ({entry['note']})" if entry.get("note") else ""
    return f"{entry['value']:.2f}{note}"


def _records(methods: tuple[str, ...], cond: str) -> str:
    return ", ".join(f"[{m}](reports/per_question/{m}__{cond}.jsonl)" for m in methods)


def render_table(root: Path = ROOT) -> str:
    """The README block, markers included, from ``root``'s reports and paper figures."""
    metrics = json.loads((root / "reports/metrics.json").read_text())
    paper = yaml.safe_load((root / "docs/paper_figures.yaml").read_text())
    thesis = paper["thesis_page_rec_at_5"]
    article = paper["paper_page_rec_at_5"]
    q = metrics["questions"]
    lines = [
        START,
        "<!-- rendered by `python benchmarks/readme_table.py --write`: do not edit by hand -->",
        "",
        f"| method | DocRec@{K} | PageRec@{K} | paired 95% CI | paper (thesis) PageRec@{K} "
        "| per-question records |",
        "|---|---|---|---|---|---|",
    ]
    for label, methods, cond, comparison, paper_key in ROWS:
        doc = _joined([_f3(metrics[m][cond][f"DocRec@{K}"]) for m in methods])
        page = _joined([_f3(metrics[m][cond][f"PageRec@{K}"]) for m in methods])
        if label.startswith("**"):
            doc, page = f"**{doc}**", f"**{page}**"
        ci = _ci(metrics["comparisons"], comparison) if comparison else "-"
        lines.append(f"| {label} | {doc} | {page} | {ci} | "
                     f"{_paper(thesis.get(paper_key) if paper_key else None)} | "
                     f"{_records(methods, cond)} |")
    lines += [
        "",
        f"n = {q['n_evaluated']} of {q['n_total']} questions (the {q['n_missing_doc']} without "
        f"a PDF are not scored), k = {K}, standard condition unless named; CIs: paired bootstrap "
        "over questions ([reports/metrics.json](reports/metrics.json) `comparisons`); all rows: "
        "[reports/retrieval.md](reports/retrieval.md). Paper: the authors' thesis table "
        f"({paper['setting']}); the paper itself reports {article['best_baseline']:.2f} for its "
        f"best baseline, {article['page_scorer']:.2f} for the page scorer and "
        f"{article['oracle_doc']:.2f} under Oracle-Doc "
        "([docs/paper_figures.yaml](docs/paper_figures.yaml)).",
        END,
    ]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """``text`` with its marked block replaced by ``block`` (which carries the markers)."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} block")
    return text[:start] + block + text[end + len(END):]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite the block in README.md")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = ap.parse_args(argv)
    block = render_table()
    if not args.write:
        print(block)
        return 0
    text = args.readme.read_text()
    new = replace_block(text, block)
    if new != text:
        args.readme.write_text(new)
        print(f"rewrote the results table in {args.readme}")
    else:
        print(f"{args.readme}: the results table is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
