"""Check ``annotations/heldout_questions.jsonl`` against the FinanceBench PDFs.

For every question:

* every input's ``value`` must appear, in printed form, on its cited page (``doc_name``,
  0-based ``page``) as PyMuPDF extracts it: numbers are compared after stripping thousands
  separators, a leading ``$`` and the parentheses/minus of negatives; a negative value must
  be printed as a negative ("(930)" or "-930"), a positive one as a non-negative;
* ``formula``, evaluated over the inputs with a small AST evaluator (numbers, input names,
  ``+ - * /``, unary minus and parentheses only; no ``eval``), must reproduce
  ``answer_value`` within the rounding of the ``answer`` string;
* ``answer`` (e.g. "$1577.00", "24.26", "1.9%") must parse to ``answer_value``;
* each input's page must be among the question's evidence pages, and every evidence
  text must be a substring of its page's text.

Prints one line per question (OK / FAIL with reasons) and exits non-zero if any fails.
Run from the repository root: ``python annotations/verify_heldout.py [questions.jsonl]``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from decimal import Decimal
from pathlib import Path

import pymupdf

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_QUESTIONS = REPO_ROOT / "annotations" / "heldout_questions.jsonl"

# An optional "(" or minus, an optional "$", digits with optional thousands separators
# and decimals, an optional ")".
NUMBER = re.compile(r"(\()?\s*([-\u2212\u2013])?\s*\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(\))?")
ANSWER = re.compile(r"^\s*(-)?\s*\$?\s*(-)?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(%)?\s*$")


def corpus_dir() -> Path:
    env = os.environ.get("FINANCEBENCH_DIR")
    return Path(env) if env else (REPO_ROOT / ".." / "shared" / "financebench").resolve()


def printed_numbers(text: str) -> list[Decimal]:
    """Signed numbers as printed on a page ("(1,577)" -> -1577, "$ 3,868,240" -> 3868240)."""
    out = []
    for m in NUMBER.finditer(text.replace("\xa0", " ")):
        lpar, minus, whole, frac, rpar = m.groups()
        value = Decimal(whole.replace(",", "") + (frac or ""))
        if (lpar and rpar) or minus:
            value = -value
        out.append(value)
    return out


def value_on_page(value: float, numbers: list[Decimal]) -> bool:
    target = Decimal(repr(value))
    for n in numbers:
        if abs(n) == abs(target) and (n < 0) == (target < 0):
            return True
    return False


def safe_eval(formula: str, names: dict[str, float]) -> float:
    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"unknown name {node.id!r}")
            return float(names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)
        ):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            return a / b
        raise ValueError(f"disallowed syntax: {ast.dump(node)[:60]}")

    return ev(ast.parse(formula, mode="eval"))


def parse_answer(answer: str) -> tuple[float, int, bool]:
    """'$1,577.00' -> (1577.0, 2, False); '-2.4%' -> (-2.4, 1, True)."""
    m = ANSWER.match(answer)
    if not m:
        raise ValueError(f"unparseable answer {answer!r}")
    neg = bool(m.group(1) or m.group(2))
    digits = m.group(3).replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value = float(digits)
    return (-value if neg else value), decimals, bool(m.group(4))


class PageCache:
    def __init__(self, root: Path):
        self.root = root
        self.docs: dict[str, pymupdf.Document] = {}

    def text(self, doc_name: str, page: int) -> str:
        if doc_name not in self.docs:
            self.docs[doc_name] = pymupdf.open(self.root / "pdfs" / f"{doc_name}.pdf")
        return self.docs[doc_name][page].get_text()


def check_pages(q: dict, pages: PageCache) -> list[str]:
    """The checks against the page text: each evidence text on its page, each input on an
    evidence page of the question's document and printed there with its sign."""
    errors: list[str] = []
    evidence_pages = {(e["doc_name"], e["evidence_page_num"]) for e in q["evidence"]}
    for e in q["evidence"]:
        if e["evidence_text"] not in pages.text(e["doc_name"], e["evidence_page_num"]):
            errors.append(f"evidence text not on {e['doc_name']} p{e['evidence_page_num']}")
    names: dict[str, float] = {}
    for inp in q["inputs"]:
        names[inp["name"]] = inp["value"]
        if (inp["doc_name"], inp["page"]) not in evidence_pages:
            errors.append(f"{inp['name']}: page {inp['page']} not among evidence pages")
        if inp["doc_name"] != q["doc_name"]:
            errors.append(f"{inp['name']}: doc {inp['doc_name']} is not the question's doc")
        numbers = printed_numbers(pages.text(inp["doc_name"], inp["page"]))
        if not value_on_page(inp["value"], numbers):
            errors.append(
                f"{inp['name']}={inp['value']} not printed on {inp['doc_name']} p{inp['page']}"
            )
    return errors


def check(q: dict, pages: PageCache) -> list[str]:
    errors = check_pages(q, pages)
    names = {inp["name"]: inp["value"] for inp in q["inputs"]}
    try:
        computed = safe_eval(q["formula"], names)
    except (ValueError, SyntaxError, ZeroDivisionError) as exc:
        return errors + [f"formula: {exc}"]
    try:
        parsed, decimals, is_percent = parse_answer(q["answer"])
    except ValueError as exc:
        return errors + [str(exc)]
    if abs(parsed - q["answer_value"]) > 1e-9:
        errors.append(f"answer {q['answer']!r} != answer_value {q['answer_value']}")
    if is_percent != (q["answer_unit"] == "percent"):
        errors.append(f"answer {q['answer']!r} vs unit {q['answer_unit']}")
    tolerance = 0.5 * 10 ** (-decimals) + 1e-9
    if abs(computed - q["answer_value"]) > tolerance:
        errors.append(
            f"formula gives {computed:.6f}, answer_value {q['answer_value']} (tol {tolerance:g})"
        )
    return errors


def verify_files(paths: list[Path], check_one=None) -> int:
    """Print OK / FAIL per question of every file; the number that fail. ``check_one`` (q,
    pages) -> errors defaults to ``check``."""
    check_one = check_one or check
    pages = PageCache(corpus_dir())
    n_fail = n = 0
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            q = json.loads(line)
            n += 1
            errors = check_one(q, pages)
            if errors:
                n_fail += 1
                print(f"FAIL {q['financebench_id']} {q['doc_name']}: " + "; ".join(errors))
            else:
                print(f"OK   {q['financebench_id']} {q['doc_name']}: {q['answer']}")
    print(f"{n - n_fail}/{n} OK")
    return n_fail


def main(argv: list[str]) -> int:
    return 1 if verify_files([Path(argv[1]) if len(argv) > 1 else DEFAULT_QUESTIONS]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
