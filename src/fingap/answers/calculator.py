"""A safe calculator: arithmetic over named inputs, by walking Python's AST.

Allowed: numbers, input names, ``+ - * /``, unary ``+``/``-``, parentheses, and a power whose
exponent is a small constant (a compound annual rate's ``** (1 / 2)``). Anything else (calls,
attributes, subscripts, comparisons, lambdas, strings) is rejected before evaluation; ``eval``
is never used. Division by zero, unknown names and a root of a negative number raise
``CalcError``.
"""

from __future__ import annotations

import ast
import operator

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_EXPRESSION_CHARS = 2000
MAX_EXPONENT = 100


class CalcError(ValueError):
    """The expression is not allowed, or cannot be evaluated over the inputs."""


def parse_expression(expression: str) -> ast.expr:
    """Parse and check ``expression``; raise ``CalcError`` on anything but plain arithmetic."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalcError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError as e:
        raise CalcError(f"not an arithmetic expression: {expression!r} ({e.msg})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            # an exponent of numbers only, and small: no power can blow up the calculator
            if any(isinstance(n, ast.Name) for n in ast.walk(node.right)):
                raise CalcError(f"a power's exponent must be a number in {expression!r}")
            continue
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            continue
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            continue
        if isinstance(node, (ast.operator, ast.unaryop, ast.expr_context)):
            continue
        raise CalcError(f"{type(node).__name__} is not allowed in {expression!r}")
    return tree


def names_in(expression: str) -> list[str]:
    """Input names of an expression, in order of first appearance."""
    seen: dict[str, None] = {}
    for node in ast.walk(parse_expression(expression)):
        if isinstance(node, ast.Name):
            seen.setdefault(node.id, None)
    return list(seen)


def evaluate(expression: str, inputs: dict[str, float]) -> float:
    """Value of ``expression`` over ``inputs``."""
    tree = parse_expression(expression)

    def walk(node: ast.expr) -> float:
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in inputs:
                raise CalcError(f"no value for input {node.id!r}")
            return float(inputs[node.id])
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](walk(node.operand))
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise CalcError(f"division by zero in {expression!r}")
            if isinstance(node.op, ast.Pow):
                if abs(right) > MAX_EXPONENT:
                    raise CalcError(f"exponent {right} is out of range in {expression!r}")
                if left < 0 and right != int(right):
                    raise CalcError(f"a root of a negative number in {expression!r}")
                if left == 0 and right < 0:
                    raise CalcError(f"division by zero in {expression!r}")
                try:
                    return float(left ** right)
                except OverflowError:
                    raise CalcError(f"a power too large in {expression!r}") from None
            return _BINARY[type(node.op)](left, right)
        raise CalcError(f"{type(node).__name__} is not allowed")  # unreachable after the check

    return walk(tree)
