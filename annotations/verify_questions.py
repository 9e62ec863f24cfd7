"""Check a question set of the trust work (paraphrase, fresh, final) against the PDFs.

Everything ``annotations/verify_heldout.py`` checks, read from PyMuPDF's page text and never
from fingap's tables or fact store:

* every input's value is printed on its cited page (0-based), with its sign;
* each input's page is an evidence page and each evidence text is on its page;
* ``formula`` over the inputs gives the gold answer, under StrictAcc's tolerance
  (``fingap.evaluation.strict_accuracy``: half a unit of the gold's last printed decimal or 1%,
  whichever is larger), since that is how an answer to it is graded;

and one rule of its own: **no question contains one of its inputs' printed labels word for
word**. Users and analysts rarely write the filing's label, so a set that copies labels measures
label lookup, not understanding. A label is compared after lower-casing, "&" -> "and" and
punctuation -> space, as a whole-word phrase, both as printed and without its parenthetical
remarks and trailing qualifiers (", net of ...", "(Note 6)"). Empty labels are skipped.

    python annotations/verify_questions.py annotations/paraphrase_questions.jsonl
"""

from __future__ import annotations

import ast
import importlib.util
import operator
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


base = _load("verify_heldout")

_PAREN = re.compile(r"\([^()]*\)")
_QUALIFIER = re.compile(r",\s*(?:net\s+of|less|excluding|including)\b.*$|\s*\(note\s+\d+\).*$",
                        re.I)


def _norm(text: str) -> str:
    text = text.lower().replace("&", " and ").replace("\u2019", "").replace("'", "")
    return " ".join(re.sub(r"[^a-z0-9%]+", " ", text).split())


def label_variants(label: str) -> set[str]:
    """The printed label as compared with a question (see the module docstring)."""
    out = {_norm(label), _norm(_PAREN.sub(" ", label)), _norm(_QUALIFIER.sub("", label)),
           _norm(_PAREN.sub(" ", _QUALIFIER.sub("", label)))}
    return {v for v in out if v}


def copied_labels(question: str, inputs: list[dict]) -> list[str]:
    """Printed labels of ``inputs`` that the question contains word for word."""
    q = f" {_norm(question)} "
    return sorted({inp["label"] for inp in inputs
                   for v in label_variants(inp.get("label") or "") if f" {v} " in q})


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}


def evaluate(formula: str, names: dict[str, float]) -> float:
    """Arithmetic over input names: + - * / and ** (a compound growth rate needs a root)."""
    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.Name):
            return float(names[node.id])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        raise ValueError(f"disallowed syntax in {formula!r}: {ast.dump(node)[:60]}")

    return ev(ast.parse(formula, mode="eval").body)


def strict_tolerance(gold: float, decimals: int) -> float:
    return max(0.5 * 10 ** (-decimals), 0.01 * abs(gold)) + 1e-9


def check(q: dict, pages) -> list[str]:
    errors = base.check_pages(q, pages)
    names = {inp["name"]: inp["value"] for inp in q["inputs"]}
    for label in copied_labels(q["question"], q["inputs"]):
        errors.append(f"the question copies the printed label {label!r}")
    try:
        computed = evaluate(q["formula"], names)
        gold, decimals, _ = base.parse_answer(q["answer"])
    except (ValueError, SyntaxError, ZeroDivisionError, KeyError) as exc:
        return errors + [str(exc)]
    # a gold printed with more decimals than the question asks for ("$0.40" for "one
    # decimal") is graded at the question's rounding: ``answer_decimals`` says so
    decimals = min(decimals, q.get("answer_decimals", decimals))
    if abs(computed - gold) > strict_tolerance(gold, decimals):
        errors.append(f"formula gives {computed:.6f}, gold {q['answer']}")
    return errors


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    return 1 if base.verify_files([Path(p) for p in argv[1:]], check) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
