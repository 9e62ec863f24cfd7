"""Check ``annotations/numeric_inputs.jsonl`` against the FinanceBench PDFs.

Each line of that file hand-annotates one of the 45 evaluable FinanceBench
``metrics-generated`` questions (the 50 of that type, less the 5 whose PDF is not in the
corpus): a ``formula`` over named ``inputs``, each input being one number as printed on one
(0-based, PyMuPDF) page of the filing, plus the gold answer, the formula's value
(``computed``) and whether the two agree (``agrees``, with a ``note`` when something is off).

For every line this script checks that:

1. the record has the expected fields and types, and every input's ``doc_name`` is the
   question's document;
2. every input's ``value`` is printed on its ``page``: the page text is read again with
   PyMuPDF and its numbers are parsed in printed form (``$`` and thousands commas dropped,
   ``(1,577)`` read as -1577); the value must be one of them;
3. every input's ``label`` (when not empty) is printed on that page, compared with all
   whitespace removed and case-folded (PyMuPDF glues some words with no-break spaces, and
   some labels wrap onto two lines);
4. ``formula`` evaluates, with a tiny safe evaluator (an ``ast`` walk allowing numbers,
   input names, ``+ - * /``, unary minus and parentheses, plus ``**`` with a numeric
   constant exponent for CAGR-style roots; no ``eval``), to ``computed``; each input is
   used by the formula.

It prints ``OK <id>`` or ``FAIL <id>: <reasons>`` per line and exits 1 on any FAIL.

Corpus directory: ``$FINANCEBENCH_DIR`` if set, else ``../shared/financebench`` relative to
the repository root. Run from anywhere: ``python annotations/check_numeric_inputs.py``.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANNOTATIONS = ROOT / "annotations" / "numeric_inputs.jsonl"
SCALES = {"units", "thousands", "millions", "billions"}
NUMBER = re.compile(r"(\(\s*)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s*\))?")


def corpus_dir() -> Path:
    env = os.environ.get("FINANCEBENCH_DIR")
    return Path(env) if env else ROOT.parent / "shared" / "financebench"


def safe_eval(expr: str, names: dict[str, float]) -> float:
    """Evaluate an arithmetic expression over ``names`` without ``eval``."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"unknown name {node.id!r}")
            return float(names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = walk(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                exp = node.right
                if isinstance(exp, ast.UnaryOp) and isinstance(exp.op, ast.USub):
                    exp = exp.operand
                if not (isinstance(exp, ast.Constant) and type(exp.value) in (int, float)):
                    raise ValueError("** needs a numeric constant exponent")
                return walk(node.left) ** walk(node.right)
            ops = {
                ast.Add: float.__add__,
                ast.Sub: float.__sub__,
                ast.Mult: float.__mul__,
                ast.Div: float.__truediv__,
            }
            for op_type, fn in ops.items():
                if isinstance(node.op, op_type):
                    return fn(walk(node.left), walk(node.right))
        raise ValueError(f"disallowed syntax: {ast.dump(node)[:60]}")

    return walk(ast.parse(expr, mode="eval"))


def formula_names(expr: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def printed_numbers(text: str) -> set[float]:
    """Numbers on a page in printed form: no $, no thousands commas, (x) read as -x."""
    out = set()
    for m in NUMBER.finditer(text.replace("$", " ")):
        opened, whole, frac, closed = m.groups()
        v = float(whole.replace(",", "") + (frac or ""))
        out.add(round(-v if opened and closed else v, 6))
    return out


def squash(s: str) -> str:
    return re.sub(r"\s+", "", s).casefold()


class Pages:
    def __init__(self, pdf_dir: Path):
        import pymupdf

        self.pymupdf = pymupdf
        self.pdf_dir = pdf_dir
        self.docs: dict[str, object] = {}

    def text(self, doc_name: str, page: int) -> str:
        if doc_name not in self.docs:
            self.docs[doc_name] = self.pymupdf.open(self.pdf_dir / f"{doc_name}.pdf")
        doc = self.docs[doc_name]
        if not 0 <= page < len(doc):
            raise IndexError(f"page {page} out of range (0..{len(doc) - 1})")
        return doc[page].get_text()


def check_record(rec: dict, pages: Pages) -> list[str]:
    errors = []
    for key, typ in (
        ("financebench_id", str),
        ("doc_name", str),
        ("formula", str),
        ("answer_unit", str),
        ("inputs", list),
        ("gold_answer", str),
        ("computed", (int, float)),
        ("agrees", bool),
    ):
        if not isinstance(rec.get(key), typ):
            errors.append(f"field {key!r} missing or not {typ}")
    if errors:
        return errors
    if not rec["agrees"] and not rec.get("note"):
        errors.append("agrees is false but there is no note")
    names: dict[str, float] = {}
    for inp in rec["inputs"]:
        name = inp.get("name")
        where = f"{name}@{inp.get('doc_name')}:p{inp.get('page')}"
        if not isinstance(name, str) or not name.isidentifier() or name in names:
            errors.append(f"bad or duplicate input name {name!r}")
            continue
        value = inp.get("value")
        if type(value) not in (int, float):
            errors.append(f"{where}: value {value!r} is not a number")
            continue
        names[name] = value
        if inp.get("scale") not in SCALES:
            errors.append(f"{where}: scale {inp.get('scale')!r} not in {sorted(SCALES)}")
        if not isinstance(inp.get("period"), str) or not inp.get("period"):
            errors.append(f"{where}: missing period")
        if inp.get("doc_name") != rec["doc_name"]:
            errors.append(f"{where}: doc_name differs from the question's {rec['doc_name']}")
        if not isinstance(inp.get("page"), int) or not isinstance(inp.get("label"), str):
            errors.append(f"{where}: page must be an int and label a string")
            continue
        try:
            text = pages.text(inp["doc_name"], inp["page"])
        except Exception as exc:  # missing PDF, bad page
            errors.append(f"{where}: cannot read page: {exc}")
            continue
        if round(float(value), 6) not in printed_numbers(text):
            errors.append(f"{where}: value {value} not printed on the page")
        if inp["label"] and squash(inp["label"]) not in squash(text):
            errors.append(f"{where}: label {inp['label']!r} not on the page")
    if errors:
        return errors
    try:
        value = safe_eval(rec["formula"], names)
    except Exception as exc:
        return [f"formula {rec['formula']!r}: {exc}"]
    if not math.isclose(value, rec["computed"], rel_tol=1e-9, abs_tol=1e-12):
        errors.append(f"formula gives {value!r}, computed says {rec['computed']!r}")
    unused = set(names) - formula_names(rec["formula"])
    if unused:
        errors.append(f"inputs not used by the formula: {sorted(unused)}")
    return errors


def main() -> int:
    pages = Pages(corpus_dir() / "pdfs")
    n_fail = n = 0
    with open(ANNOTATIONS) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            n += 1
            try:
                rec = json.loads(line)
                errors = check_record(rec, pages)
                fid = rec.get("financebench_id", f"line {lineno}")
            except json.JSONDecodeError as exc:
                fid, errors = f"line {lineno}", [f"invalid JSON: {exc}"]
            if errors:
                n_fail += 1
                print(f"FAIL {fid}: " + "; ".join(errors))
            else:
                print(f"OK {fid}")
    print(f"{n - n_fail}/{n} OK")
    return 1 if n_fail or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
