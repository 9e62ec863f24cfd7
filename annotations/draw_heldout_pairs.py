"""Draw held-out (document, metric) pairs for FinanceBench-style metrics questions.

The rule-based numeric path (statement tables + fact store + formulas + calculator) was
built while looking at FinanceBench's 150 questions. To measure it honestly, this script
draws (document, metric) pairs that none of the 150 questions touches, so that questions
written on them (``annotations/heldout_questions.jsonl``) are independent of those rules.

What it does (deterministic: ``random.Random(2026)``):

1. lists the documents whose PDF is present in the corpus (``$FINANCEBENCH_DIR`` if set,
   else ``../shared/financebench`` relative to the repository root), with ``doc_type``
   from ``financebench_document_information.jsonl`` (deduplicated by ``doc_name``: that
   file lists FOOTLOCKER_2023_annualreport twice);
2. for every document and every metric in ``METRICS``, excludes the pair when any of the
   150 FinanceBench questions on that document mentions one of the metric's keywords
   (case-insensitive, whole words) in its question text;
3. draws ``N_10K`` pairs from 10-K documents and ``N_OTHER`` pairs from the other documents
   (10-Q, 8-K, earnings releases), cycling through a shuffled list of documents so that the
   pairs spread across documents, and preferring, for each document, the metrics drawn
   least often so far (ties broken at random); the two strata are merged into one shuffled
   drawn order (orders 1-45). ``N_OTHER / (N_10K + N_OTHER)`` is well above 30% because
   non-10-K documents (8-Ks without statements, bank 10-Qs) are more often unanswerable.
   Then ``N_OTHER_RESERVE`` further non-10-K pairs are drawn from the same stream (orders
   46+, ``"reserve": true``); they are drawn after the main order, so they do not change it;
4. writes ``annotations/heldout_pairs.json`` and prints the drawn pairs.

How the pairs are used (the questions step, done by hand and checked by
``annotations/verify_heldout.py``): pairs are taken in drawn order, and a pair is skipped
only when the document does not print the line items its metric needs (e.g. an 8-K with
no financial statements, an inventory metric for a bank); each skipped pair and the reason
is recorded in ``annotations/heldout_skipped.json``. Taking stops once at least 26
answerable pairs are written with at least 30% of them from non-10-K documents; if the
30% share is not reached at the 26th answerable pair, only the next non-10-K pairs (still
in drawn order, continuing into the reserve) are taken until it is.

Run from the repository root: ``python annotations/draw_heldout_pairs.py``.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

SEED = 2026
N_10K = 25
N_OTHER = 20
N_OTHER_RESERVE = 10

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT_PATH = REPO_ROOT / "annotations" / "heldout_pairs.json"

# metric id -> (display name, keywords). A pair (doc, metric) is excluded when any of the
# 150 questions on doc mentions any keyword. Keywords are deliberately broad (a question
# that names a component, e.g. "operating income", also excludes the margin built on it).
METRICS: dict[str, tuple[str, list[str]]] = {
    "revenue": ("revenue", ["revenue", "revenues", "net sales", "sales", "top line"]),
    "cogs": (
        "cost of goods sold",
        ["cost of goods sold", "cogs", "cost of sales", "cost of revenue", "cost of revenues"],
    ),
    "gross_margin": (
        "gross margin",
        ["gross margin", "gross profit", "cogs", "cost of goods sold"],
    ),
    "operating_income": (
        "operating income",
        ["operating income", "operating profit", "income from operations", "ebit"],
    ),
    "operating_margin": (
        "operating margin",
        ["operating margin", "operating income", "operating profit"],
    ),
    "net_income": (
        "net income",
        ["net income", "net earnings", "net profit", "profit attributable"],
    ),
    "net_margin": (
        "net margin",
        ["net margin", "net profit margin", "net income margin", "profit margin", "net income"],
    ),
    "total_assets": ("total assets", ["total assets"]),
    "total_current_assets": ("total current assets", ["current assets", "working capital"]),
    "total_current_liabilities": (
        "total current liabilities",
        ["current liabilities", "working capital"],
    ),
    "current_ratio": (
        "current ratio",
        ["current ratio", "working capital ratio", "working capital"],
    ),
    "quick_ratio": ("quick ratio", ["quick ratio", "acid test", "acid-test"]),
    "cash": (
        "cash and equivalents",
        [
            "cash and cash equivalents",
            "cash and equivalents",
            "cash position",
            "cash on hand",
            "cash balance",
        ],
    ),
    "inventory": ("inventory", ["inventory", "inventories"]),
    "accounts_receivable": (
        "accounts receivable",
        ["accounts receivable", "receivable", "receivables", "ar"],
    ),
    "accounts_payable": ("accounts payable", ["accounts payable", "payable", "payables", "ap"]),
    "long_term_debt": ("long-term debt", ["long-term debt", "long term debt", "debt"]),
    "total_equity": (
        "total shareholders' equity",
        [
            "shareholders' equity",
            "stockholders' equity",
            "shareholders equity",
            "stockholders equity",
            "total equity",
            "book value",
        ],
    ),
    "operating_cash_flow": (
        "operating cash flow",
        [
            "operating cash flow",
            "cash from operations",
            "cash flow from operating activities",
            "operating activities",
        ],
    ),
    "capex": (
        "capital expenditures",
        ["capital expenditure", "capital expenditures", "capex", "purchases of property"],
    ),
    "free_cash_flow": ("free cash flow", ["free cash flow", "fcf"]),
    "capex_pct_revenue": (
        "capex as % of revenue",
        ["capex", "capital expenditure", "capital expenditures"],
    ),
    "depreciation_amortization": (
        "depreciation and amortization",
        ["depreciation", "amortization", "d&a"],
    ),
    "ebitda": ("EBITDA", ["ebitda"]),
    "interest_expense": ("interest expense", ["interest expense"]),
    "interest_coverage": ("interest coverage", ["interest coverage", "times interest earned"]),
    "income_tax_expense": (
        "income tax expense",
        ["income tax", "income taxes", "tax expense", "provision for taxes"],
    ),
    "effective_tax_rate": ("effective tax rate", ["effective tax rate", "tax rate"]),
    "dividends_paid": ("dividends paid", ["dividend", "dividends"]),
    "dividend_payout_ratio": (
        "dividend payout ratio",
        ["payout ratio", "retention ratio", "dividend", "dividends"],
    ),
    "diluted_eps": ("diluted EPS", ["eps", "earnings per share", "per share"]),
    "return_on_assets": ("return on assets", ["return on assets", "roa"]),
    "return_on_equity": ("return on equity", ["return on equity", "roe"]),
    "asset_turnover": ("asset turnover", ["asset turnover"]),
    "inventory_turnover": ("inventory turnover", ["inventory turnover"]),
    "days_sales_outstanding": ("days sales outstanding", ["days sales outstanding", "dso"]),
    "days_inventory_outstanding": (
        "days inventory outstanding",
        ["days inventory outstanding", "days in inventory", "dio"],
    ),
    "days_payable_outstanding": ("days payable outstanding", ["days payable outstanding", "dpo"]),
    "cash_conversion_cycle": ("cash conversion cycle", ["cash conversion cycle", "ccc"]),
    "revenue_growth": (
        "revenue growth (YoY)",
        ["revenue growth", "sales growth", "revenue", "revenues"],
    ),
    "net_income_growth": (
        "net income growth (YoY)",
        ["net income growth", "earnings growth", "net income", "net earnings"],
    ),
    "operating_cash_flow_ratio": ("operating cash flow ratio", ["operating cash flow ratio"]),
}


def corpus_dir() -> Path:
    env = os.environ.get("FINANCEBENCH_DIR")
    return Path(env) if env else (REPO_ROOT / ".." / "shared" / "financebench").resolve()


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(keyword) + r"(?!\w)", re.IGNORECASE)


def mentions(text: str, keywords: list[str]) -> bool:
    return any(keyword_pattern(k).search(text) for k in keywords)


def load_documents(root: Path) -> list[dict]:
    """Present documents (PDF exists), one row per doc_name, sorted by name."""
    present = {p.stem for p in (root / "pdfs").glob("*.pdf")}
    docs: dict[str, dict] = {}
    for row in read_jsonl(root / "data" / "financebench_document_information.jsonl"):
        name = row["doc_name"]
        if name in present and name not in docs:  # dedupe (FOOTLOCKER row listed twice)
            docs[name] = {
                "doc_name": name,
                "company": row["company"],
                "doc_type": row["doc_type"].lower(),
            }
    missing_meta = present - docs.keys()
    if missing_meta:
        raise SystemExit(f"PDFs without metadata: {sorted(missing_meta)}")
    return [docs[k] for k in sorted(docs)]


def eligible_metrics(docs: list[dict], questions: list[dict]) -> dict[str, list[str]]:
    by_doc: dict[str, list[str]] = {}
    for q in questions:
        by_doc.setdefault(q["doc_name"], []).append(q["question"])
    out = {}
    for d in docs:
        texts = by_doc.get(d["doc_name"], [])
        out[d["doc_name"]] = [
            m for m, (_, kws) in METRICS.items() if not any(mentions(t, kws) for t in texts)
        ]
    return out


def draw_stratum(
    rng: random.Random, docs: list[dict], eligible: dict[str, list[str]], use: Counter
) -> Iterator[dict]:
    """Yield pairs from one stratum: cycle through the shuffled documents, for each pick a
    not-yet-drawn eligible metric among the least used so far (ties at random)."""
    order = [d for d in docs if eligible[d["doc_name"]]]
    rng.shuffle(order)
    taken: set[tuple[str, str]] = set()
    misses = 0
    i = 0
    while order and misses < len(order):
        d = order[i % len(order)]
        i += 1
        options = [m for m in eligible[d["doc_name"]] if (d["doc_name"], m) not in taken]
        if not options:
            misses += 1
            continue
        misses = 0
        least = min(use[m] for m in options)
        m = rng.choice([m for m in options if use[m] == least])
        use[m] += 1
        taken.add((d["doc_name"], m))
        yield {**d, "metric": m, "metric_name": METRICS[m][0]}


def main() -> int:
    root = corpus_dir()
    docs = load_documents(root)
    questions = read_jsonl(root / "data" / "financebench_open_source.jsonl")
    eligible = eligible_metrics(docs, questions)
    n_pairs = len(docs) * len(METRICS)
    n_eligible = sum(len(v) for v in eligible.values())

    rng = random.Random(SEED)
    use: Counter = Counter()
    tenk_gen = draw_stratum(rng, [d for d in docs if d["doc_type"] == "10k"], eligible, use)
    other_gen = draw_stratum(rng, [d for d in docs if d["doc_type"] != "10k"], eligible, use)
    tenk = list(islice(tenk_gen, N_10K))
    other = list(islice(other_gen, N_OTHER))
    if len(tenk) < N_10K or len(other) < N_OTHER:
        raise SystemExit("not enough eligible pairs")
    pairs = tenk + other
    rng.shuffle(pairs)
    # Reserve: further non-10-K pairs from the same stream, drawn after (so they do not
    # change) the main order; used only to reach the 30% non-10-K share (see docstring).
    reserve = list(islice(other_gen, N_OTHER_RESERVE))
    for p in pairs:
        p["reserve"] = False
    for p in reserve:
        p["reserve"] = True
    pairs += reserve
    for k, p in enumerate(pairs, 1):
        p["order"] = k

    out = {
        "seed": SEED,
        "n_documents": len(docs),
        "n_metrics": len(METRICS),
        "n_pairs_total": n_pairs,
        "n_pairs_eligible": n_eligible,
        "n_drawn_main": N_10K + N_OTHER,
        "n_drawn_main_non_10k": N_OTHER,
        "n_drawn_reserve_non_10k": len(reserve),
        "metrics": {m: {"name": name, "keywords": kws} for m, (name, kws) in METRICS.items()},
        "pairs": [
            {
                k: p[k]
                for k in (
                    "order",
                    "reserve",
                    "doc_name",
                    "company",
                    "doc_type",
                    "metric",
                    "metric_name",
                )
            }
            for p in pairs
        ],
    }
    OUT_PATH.parent.mkdir(parents=True, exist_ok=True)
    OUT_PATH.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"{len(docs)} documents, {len(METRICS)} metrics, {n_eligible}/{n_pairs} pairs eligible")
    for p in out["pairs"]:
        print(
            f"{p['order']:3d}{'r' if p['reserve'] else ' '} {p['doc_type']:8s}  "
            f"{p['doc_name']:42s}  {p['metric']}"
        )
    print(
        f"drawn {N_10K + N_OTHER} ({N_OTHER} non-10-K) + {len(reserve)} non-10-K reserve (r)"
        f" -> {OUT_PATH.relative_to(REPO_ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
