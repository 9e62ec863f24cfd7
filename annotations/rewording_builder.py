"""Build one rewording of the 45 public metrics-generated questions (those whose PDF is here):
each question's new wording, FinanceBench's gold answer and gold pages, and the inputs and
formula of ``annotations/numeric_inputs.jsonl`` (the line items the gold was computed from);
evidence is each gold page's PyMuPDF text, so the checker reads the same pages. Used by
``make_paraphrase_set.py`` (the first rewording) and ``make_rewording_set.py`` (the later
ones)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from verify_heldout import corpus_dir  # noqa: E402

# golds printed with more decimals than they were rounded to: the rewording asks for the
# rounding the gold has, and the checker grades at it
COARSER = {"financebench_id_05718": 1}


def build(reworded: dict[str, str], prefix: str, out: Path) -> int:
    """Write the 45 questions with ``reworded``'s wording (by FinanceBench id), FinanceBench's
    gold answers and gold pages, ids ``<prefix>_NNNNN``, to ``out``; the number written."""
    root = corpus_dir()
    public = {r["financebench_id"]: r for r in map(json.loads, (root / "data" /
              "financebench_open_source.jsonl").read_text(encoding="utf-8").splitlines())}
    annotated = [json.loads(line) for line in (HERE / "numeric_inputs.jsonl")
                 .read_text(encoding="utf-8").splitlines() if line.strip()]
    missing = {a["financebench_id"] for a in annotated} ^ set(reworded)
    if missing:
        raise SystemExit(f"rewordings and numeric_inputs.jsonl differ: {sorted(missing)}")
    docs: dict[str, pymupdf.Document] = {}
    rows = []
    for a in annotated:
        q = public[a["financebench_id"]]
        evidence = []
        for doc, page in dict.fromkeys((e["doc_name"], e["evidence_page_num"])
                                       for e in q["evidence"]):
            if doc not in docs:
                docs[doc] = pymupdf.open(root / "pdfs" / f"{doc}.pdf")
            evidence.append({"doc_name": doc, "evidence_page_num": page,
                             "evidence_text": docs[doc][page].get_text()})
        rows.append({
            "financebench_id": f"{prefix}_" + a["financebench_id"].rsplit("_", 1)[1],
            "source_id": a["financebench_id"], "company": q["company"],
            "doc_name": q["doc_name"], "question_type": q["question_type"],
            "question_reasoning": q["question_reasoning"],
            "question": reworded[a["financebench_id"]], "answer": q["answer"],
            "answer_unit": a["answer_unit"], "evidence": evidence, "formula": a["formula"],
            "inputs": a["inputs"]} | ({"answer_decimals": COARSER[a["financebench_id"]]}
                                     if a["financebench_id"] in COARSER else {}))
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    print(f"{len(rows)} questions -> {out.relative_to(HERE.parent)}")
    return len(rows)
