"""Gate quality: does the verification gate stop wrong numbers, and pass right ones?

For every question answered correctly (StrictAcc) by the structured path under Oracle-Page
*before* the gate is applied, one input is corrupted three ways, and the gate must flag each:
- ``x1.1``: the input's value times 1.1;
- ``wrong_year``: the value of another year's column of the same row;
- ``wrong_page``: the same value cited on another page of the document (the nearest page whose
  text does not contain the printed number).
What counts as a corruption is decided by construction and by a plain substring search of the
printed number in the page text, never by the gate's own number reader. The false-flag rate is
the share of the uncorrupted correct answers that the gate flags.

Questions: FinanceBench's metrics-generated questions with their PDF, and the project's own
held-out and development sets (annotations/*_questions.jsonl). Writes reports/gate_quality.json.

    python benchmarks/gate_quality.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from fingap.answers.agent import Agent
from fingap.answers.fact_store import FactStore
from fingap.answers.gate import gate_structured
from fingap.core.io import read_jsonl, write_json
from fingap.ingestion.extract import read_page_texts
from fingap.steps.answer import doc_type_of, gold_pages_of, record_value_matches

ROOT = Path(__file__).resolve().parents[1]


def questions() -> list[dict]:
    rows = []
    for q in read_jsonl(ROOT / "data/corpus/questions.jsonl"):
        if q["question_type"] == "metrics-generated" and q["status"] == "evaluated":
            rows.append({"id": q["id"], "question": q["question"], "answer": q["answer"],
                         "pages": [(e["doc"], e["page"]) for e in q["evidence"]],
                         "doc": q["doc"], "set": "financebench"})
    for path in sorted((ROOT / "annotations").glob("*_questions.jsonl")):
        name = path.name.removesuffix("_questions.jsonl")
        for r in read_jsonl(path):
            rows.append({"id": r["financebench_id"], "question": r["question"],
                         "answer": r["answer"], "pages": gold_pages_of(r), "doc": r["doc_name"],
                         "set": name})
    return rows


def corruptions(inp: dict, store: FactStore, texts: dict) -> dict[str, dict]:
    out = {"x1.1": inp | {"value": inp["value"] * 1.1}}
    row = [f for f in store.query(doc=inp["doc"], pages=[(inp["doc"], inp["page"])])
           if f["label"] == inp["label"] and f["fiscal_year"] != inp["fiscal_year"]
           and f["value"] != inp["value"]]
    if row:
        out["wrong_year"] = inp | {"value": row[0]["value"]}
    printed = inp["printed"].strip("()$% ")
    n_pages = max(p for d, p in texts if d == inp["doc"]) + 1
    for delta in (1, -1, 2, -2, 3, -3):
        page = inp["page"] + delta
        if 0 <= page < n_pages and printed not in texts.get((inp["doc"], page), printed):
            out["wrong_page"] = inp | {"page": page}
            break
    return out


def main() -> None:
    texts = read_page_texts(ROOT / "data/pages/pages.jsonl")
    result = {"clean": {"n": 0, "flagged": 0}, "corrupted": {}}
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        agent = Agent(store, texts)
        for q in questions():
            rec, _, _ = agent.structured(q["id"], q["question"], q["pages"], doc_hint=q["doc"],
                                         doc_type=doc_type_of(q["doc"]), enforce_gate=False)
            if rec is None:
                continue
            scale = [s for s in rec.steps if s.get("step") == "compute"][-1].get("scale")
            if not record_value_matches({"value": rec.value, "scale": scale}, q["answer"]):
                continue
            result["clean"]["n"] += 1
            result["clean"]["flagged"] += int(not rec.verified)
            for kind, bad in corruptions(rec.inputs[0], store, texts).items():
                inputs = copy.deepcopy(rec.inputs)
                inputs[0] = bad
                g = gate_structured(inputs, texts, rec.value, rec.value)
                c = result["corrupted"].setdefault(kind, {"n": 0, "flagged": 0})
                c["n"] += 1
                c["flagged"] += int(not g.passed)
    n = sum(c["n"] for c in result["corrupted"].values())
    flagged = sum(c["flagged"] for c in result["corrupted"].values())
    for c in [result["clean"], *result["corrupted"].values()]:
        c["rate"] = round(c["flagged"] / c["n"], 4) if c["n"] else None
    result["corrupted_flag_rate"] = round(flagged / n, 4) if n else None
    result["false_flag_rate"] = result["clean"]["rate"]
    result["n_corruptions"] = n
    write_json(ROOT / "reports/gate_quality.json", result)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
