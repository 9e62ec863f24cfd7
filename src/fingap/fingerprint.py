"""Parser-regression fingerprint of page extraction.

A fingerprint holds, per document, the page count and a short hash of each page's normalised
text (whitespace collapsed; every other character counts), plus the gold-alignment rate. A fresh
extraction is compared with the committed fingerprint: any changed page, page count or a drop in
gold alignment is a regression to be looked at before numbers are trusted.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping

FORMAT_VERSION = 1


def page_hash(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def fingerprint(pages: Iterable[tuple[str, int, str]], alignment: Mapping | None = None,
                parser: str = "") -> dict:
    """pages: (doc, 0-based page, text) triples."""
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
    ea = _rate(expected.get("alignment_by_doc"), names)
    aa = _rate(actual.get("alignment_by_doc"), names)
    report["gold_alignment"] = {"expected": ea, "actual": aa}
    report["alignment_dropped"] = ea is not None and aa is not None and aa < ea
    report["regression"] = bool(report["changed"] or report["missing"]
                                or report["alignment_dropped"])
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
    ga = report["gold_alignment"]
    lines.append(f"gold alignment: expected {ga['expected']}, now {ga['actual']}"
                 + ("  <- DROPPED" if report["alignment_dropped"] else ""))
    lines.append("REGRESSION" if report["regression"] else "OK: extraction unchanged")
    return "\n".join(lines)
