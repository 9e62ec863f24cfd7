"""Parser-regression fingerprint of page extraction.

A fingerprint holds, per document, the page count and a short hash of each page's normalised
text (whitespace collapsed; every other character counts), the gold-alignment rate, and, per
page with statement-table facts, a short hash of those facts (label, period, printed cell,
scale, statement), so a parser change that alters a fact shows up just as a text change
does. A fresh extraction is compared with the committed fingerprint: any changed page, page
count, set of facts or a drop in gold alignment is a regression to be looked at before numbers
are trusted.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping

FORMAT_VERSION = 1


def page_hash(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def facts_hash(facts: Iterable[Mapping]) -> str:
    rows = sorted((f["label"], f["year"], f["duration"] or "", f["printed"], f["scale"] or "",
                   f["statement"], f["table"], f["column"]) for f in facts)
    return hashlib.sha1(repr(rows).encode("utf-8")).hexdigest()[:16]


def fingerprint(pages: Iterable[tuple[str, int, str]], alignment: Mapping | None = None,
                parser: str = "", facts: Iterable[Mapping] | None = None) -> dict:
    """pages: (doc, 0-based page, text) triples; facts: fact dicts of the table parser."""
    docs: dict[str, dict[int, str]] = defaultdict(dict)
    for doc, page, text in pages:
        docs[doc][page] = page_hash(text)
    out = {
        "format": FORMAT_VERSION,
        "parser": parser,
        "docs": {d: {"n_pages": len(p), "pages": [p[i] for i in sorted(p)]}
                 for d, p in sorted(docs.items())},
    }
    if alignment is not None:
        out["alignment_by_doc"] = {d: list(v) for d, v in sorted(alignment.items())}
    if facts is not None:
        by_page: dict[str, dict[int, list]] = defaultdict(lambda: defaultdict(list))
        for f in facts:
            by_page[f["doc"]][f["page"]].append(f)
        out["facts"] = {d: {str(p): facts_hash(fs) for p, fs in sorted(pages_.items())}
                        for d, pages_ in sorted(by_page.items())}
    return out


def alignment_by_doc(records: Iterable[Mapping]) -> dict[str, list[int]]:
    """[n aligned, n evidence items] per document, from alignment records."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        out[r["doc"]][0] += int(bool(r["aligned"]))
        out[r["doc"]][1] += 1
    return dict(out)


def _rate(by_doc: Mapping[str, list[int]] | None, names: list[str]) -> float | None:
    if by_doc is None:
        return None
    aligned = sum(by_doc.get(d, [0, 0])[0] for d in names)
    total = sum(by_doc.get(d, [0, 0])[1] for d in names)
    return aligned / total if total else None


def compare(expected: dict, actual: dict, docs: Iterable[str] | None = None) -> dict:
    """Differences between two fingerprints, restricted to ``docs`` if given."""
    names = sorted(docs) if docs is not None else sorted(expected["docs"])
    report: dict = {"changed": {}, "missing": [], "n_docs": len(names), "n_pages_changed": 0}
    for d in names:
        e = expected["docs"].get(d)
        a = actual["docs"].get(d)
        if e is None:
            report.setdefault("not_in_fingerprint", []).append(d)
            continue
        if a is None:
            report["missing"].append(d)
            continue
        changed = [i for i, (x, y) in enumerate(zip(e["pages"], a["pages"], strict=False))
                   if x != y]
        if e["n_pages"] != a["n_pages"] or changed:
            report["changed"][d] = {"n_pages": [e["n_pages"], a["n_pages"]],
                                    "pages": changed}
            report["n_pages_changed"] += len(changed) + abs(e["n_pages"] - a["n_pages"])
    if "facts" in expected and "facts" in actual:
        report["facts_changed"] = {}
        for d in names:
            e, a = expected["facts"].get(d, {}), actual["facts"].get(d, {})
            pages = sorted({int(p) for p in set(e) | set(a) if e.get(p) != a.get(p)})
            if pages and d in actual["docs"]:
                report["facts_changed"][d] = pages
    ea = _rate(expected.get("alignment_by_doc"), names)
    aa = _rate(actual.get("alignment_by_doc"), names)
    report["gold_alignment"] = {"expected": ea, "actual": aa}
    report["alignment_dropped"] = ea is not None and aa is not None and aa < ea
    report["regression"] = bool(report["changed"] or report["missing"]
                                or report["alignment_dropped"] or report.get("facts_changed"))
    return report


def format_report(report: dict) -> str:
    lines = [f"checked {report['n_docs']} documents"]
    for d in report["missing"]:
        lines.append(f"  MISSING  {d}: not extracted")
    for d, c in report["changed"].items():
        e, a = c["n_pages"]
        shown = ", ".join(str(p) for p in c["pages"][:20])
        more = f" (+{len(c['pages']) - 20} more)" if len(c["pages"]) > 20 else ""
        lines.append(f"  CHANGED  {d}: pages {e} -> {a}; changed page texts (0-based): "
                     f"{shown or '-'}{more}")
    for d, pages in (report.get("facts_changed") or {}).items():
        shown = ", ".join(str(p) for p in pages[:20])
        lines.append(f"  FACTS    {d}: statement-table facts changed on pages (0-based): {shown}"
                     + (f" (+{len(pages) - 20} more)" if len(pages) > 20 else ""))
    ga = report["gold_alignment"]
    lines.append(f"gold alignment: expected {ga['expected']}, now {ga['actual']}"
                 + ("  <- DROPPED" if report["alignment_dropped"] else ""))
    lines.append("REGRESSION" if report["regression"] else "OK: extraction unchanged")
    return "\n".join(lines)
