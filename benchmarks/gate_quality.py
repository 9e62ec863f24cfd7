"""Gate quality: does the verification gate stop wrong numbers, and pass right ones?

For every question the structured path answers correctly (StrictAcc) under Oracle-Page *before*
the gate acts, each input is corrupted in the ways seen in real failures, and the gate (the
text checks and the meaning checks, ``fingap.answers.meaning``) must flag each corrupted answer:
- ``neighbouring_row``: the row printed just above or below the input's row in the same table
  and column, as if the chooser had preferred it (the meaning gate's label check);
- ``other_duration``: the same row's value in a column of another period length, on the same
  page where it prints one (a three-month column for a six-month question), else on another
  page of the document (a 10-K's quarterly table for a full-year question);
- ``other_statement``: a row with a similar label on another statement of the same document
  ("Inventories" on the cash-flow statement is the change, not the balance);
- ``x1.1``: the input's value times 1.1; ``wrong_year``: another year's column of the same row;
  ``wrong_page``: the same value cited on a nearby page that does not print it.
A corruption counts only when its value differs from the input's. What counts as a corruption
is decided by construction from the fact store and the page text, never by the gate. The false
flag rate is the share of the correct answers' inputs that the gate flags (an input-level reason
names it), and, apart, of the correct answers it flags at all.

Question sets: FinanceBench's metrics-generated questions with their PDF (``public``), and any
of the project's sets named with ``--sets`` (``fresh``, ``paraphrase``, ...). Each set is
reported apart. Writes reports/gate_quality.json.

    python benchmarks/gate_quality.py --sets public fresh
"""

from __future__ import annotations

import argparse
import copy
import json
from dataclasses import asdict
from pathlib import Path

from fingap.answers.agent import Agent
from fingap.answers.fact_store import FactStore
from fingap.answers.labels import normalise_label
from fingap.answers.question import parse_question
from fingap.core.io import read_jsonl, write_json
from fingap.core.params import load_params
from fingap.ingestion.extract import read_page_texts
from fingap.steps.answer import doc_type_of, gate_params, gold_pages_of, record_value_matches

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("neighbouring_row", "other_duration", "other_statement", "x1.1", "wrong_year",
         "wrong_page")
PRIMARY = {"income", "balance_sheet", "cash_flow"}


def questions(name: str) -> list[dict]:
    if name == "public":
        return [{"id": q["id"], "question": q["question"], "answer": q["answer"],
                 "pages": [(e["doc"], e["page"]) for e in q["evidence"]], "doc": q["doc"]}
                for q in read_jsonl(ROOT / "data/corpus/questions.jsonl")
                if q["question_type"] == "metrics-generated" and q["status"] == "evaluated"]
    return [{"id": r["financebench_id"], "question": r["question"], "answer": r["answer"],
             "pages": gold_pages_of(r), "doc": r["doc_name"]}
            for r in read_jsonl(ROOT / "annotations" / f"{name}_questions.jsonl")]


def _as_input(inp: dict, f: dict) -> dict:
    return inp | {k: f[k] for k in ("label", "printed", "value", "scale", "fiscal_year", "year",
                                    "duration", "statement", "page")}


def _words(label_norm: str) -> set[str]:
    return {w for w in label_norm.split() if w not in {"total", "net", "and", "of", "the"}}


def corruptions(inp: dict, store: FactStore, texts: dict) -> dict[str, dict]:
    """The corrupted copies of one input that exist for it (see the module docstring)."""
    out: dict[str, dict] = {}
    page = store.query(doc=inp["doc"], pages=[(inp["doc"], inp["page"])])
    same = [f for f in page if f["label"] == inp["label"] and f["value"] == inp["value"]
            and f["year"] == inp["year"]]
    if same:
        f0 = same[0]
        table = [f for f in page if f["tbl"] == f0["tbl"] and f["col"] == f0["col"]]
        labels = list(dict.fromkeys(f["label"] for f in table))
        at = labels.index(f0["label"])
        for k in (at - 1, at + 1):
            cand = [f for f in table if 0 <= k < len(labels) and f["label"] == labels[k]
                    and f["value"] != inp["value"] and f["label"]]
            if cand:
                out["neighbouring_row"] = _as_input(inp, cand[0])
                break
    # the same line item and year in a column of another period length: on the same page
    # first (a 10-Q's three- and six-month columns), else on another page of the document
    # (a 10-K's quarterly table)
    other = sorted((f for f in store.query(doc=inp["doc"])
                    if f["label_norm"] == normalise_label(inp["label"]) or
                    f["label"] == inp["label"]),
                   key=lambda f: f["page"] != inp["page"])
    other = [f for f in other if f["year"] == inp["year"] and f["duration"] and
             f["duration"] != (inp.get("duration") or "12M") and f["value"] != inp["value"]
             and inp["statement"] != "balance_sheet"]
    if other:
        out["other_duration"] = _as_input(inp, other[0])
    words = _words(" ".join(inp["label"].lower().split()))
    stmt = [f for f in store.query(doc=inp["doc"], fiscal_year=inp["fiscal_year"])
            if f["statement"] in PRIMARY and f["statement"] != inp["statement"]
            and f["value"] != inp["value"] and not f["percent"] and words and
            len(words & _words(f["label_norm"])) / len(words | _words(f["label_norm"])) >= 0.5]
    if stmt:
        out["other_statement"] = _as_input(inp, stmt[0])
    out["x1.1"] = inp | {"value": inp["value"] * 1.1}
    row = [f for f in page if f["label"] == inp["label"] and f["fiscal_year"] != inp["fiscal_year"]
           and f["value"] != inp["value"]]
    if row:
        out["wrong_year"] = inp | {"value": row[0]["value"]}
    printed = inp["printed"].strip("()$% ")
    n_pages = max(p for d, p in texts if d == inp["doc"]) + 1
    for delta in (1, -1, 2, -2, 3, -3):
        p = inp["page"] + delta
        if 0 <= p < n_pages and printed not in texts.get((inp["doc"], p), printed):
            out["wrong_page"] = inp | {"page": p}
            break
    return out


def _flags_input(gate, name: str) -> bool:
    return any(r.startswith(f"{name}:") for r in gate.reasons)


def evaluate_set(name: str, agent: Agent, store: FactStore, texts: dict) -> dict:
    result = {"answers": {"n": 0, "flagged": 0}, "inputs": {"n": 0, "flagged": 0},
              "corrupted": {k: {"n": 0, "flagged": 0} for k in KINDS}}
    for q in questions(name):
        rec, _, _ = agent.structured(q["id"], q["question"], q["pages"], doc_hint=q["doc"],
                                     doc_type=doc_type_of(q["doc"]), enforce_gate=False)
        if rec is None:
            continue
        scale = [s for s in rec.steps if s.get("step") == "compute"][-1].get("scale")
        if not record_value_matches({"value": rec.value, "scale": scale}, q["answer"]):
            continue
        # the question as the agent answered it: restated, with its described line items named
        question = next((s["question"] for s in reversed(rec.steps)
                         if s.get("step") in ("restate", "name_described")), q["question"])
        pq = parse_question(question, agent.vocab, doc_type_of(q["doc"]))
        clean = agent.meaning.check(question, pq, rec.inputs, rec.value, rec.value)
        result["answers"]["n"] += 1
        result["answers"]["flagged"] += int(not clean.passed)
        for k, inp in enumerate(rec.inputs):
            result["inputs"]["n"] += 1
            result["inputs"]["flagged"] += int(_flags_input(clean, inp["name"]))
            for kind, bad in corruptions(inp, store, texts).items():
                inputs = copy.deepcopy(rec.inputs)
                inputs[k] = bad
                g = agent.meaning.check(question, pq, inputs, rec.value, rec.value)
                c = result["corrupted"][kind]
                c["n"] += 1
                c["flagged"] += int(not g.passed)
    for c in [result["answers"], result["inputs"], *result["corrupted"].values()]:
        c["rate"] = round(c["flagged"] / c["n"], 4) if c["n"] else None
    result["false_flag_rate_inputs"] = result["inputs"]["rate"]
    result["false_flag_rate_answers"] = result["answers"]["rate"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["public"])
    args = parser.parse_args()
    texts = read_page_texts(ROOT / "data/pages/pages.jsonl")
    params = load_params(ROOT / "params.yaml")["answer"]
    out = {"gate": asdict(gate_params(params)), "sets": {}}
    with FactStore(ROOT / "data/facts/facts.sqlite") as store:
        agent = Agent(store, texts, gate="flag", gate_params=gate_params(params))
        for name in args.sets:
            out["sets"][name] = evaluate_set(name, agent, store, texts)
            print(name, json.dumps(out["sets"][name]))
    path = ROOT / "reports/gate_quality.json"
    if path.exists():  # keep the sets measured before (the fresh set is measured once)
        old = json.loads(path.read_text())
        out["sets"] = {**old.get("sets", {}), **out["sets"]}
    write_json(path, out)


if __name__ == "__main__":
    main()
