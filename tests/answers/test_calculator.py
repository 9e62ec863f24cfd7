import pytest

from fingap.answers.calculator import CalcError, evaluate, names_in


def test_arithmetic_over_named_inputs():
    assert evaluate("(a + b) / 2", {"a": 3, "b": 5}) == 4
    assert evaluate("-a * 100 / b", {"a": 1, "b": 4}) == -25
    assert evaluate("365 * x / y", {"x": 10, "y": 365}) == 10
    assert names_in("(rev__fy2019 - cogs__fy2019) / rev__fy2019") == ["rev__fy2019",
                                                                     "cogs__fy2019"]


@pytest.mark.parametrize("hostile", [
    "__import__('os').system('echo hi')", "a.__class__", "open('/etc/passwd')", "a ** 1000000",
    "[a for a in range(10)]", "lambda: 1", "a if b else c", "a < b", "'text'", "a[0]",
    "(lambda x: x)(1)", "a; b", "a = 1", "",
])
def test_hostile_expressions_are_rejected(hostile):
    with pytest.raises(CalcError):
        evaluate(hostile, {"a": 1, "b": 2, "c": 3})


def test_a_power_takes_a_small_numeric_exponent_only():
    assert evaluate("(a / b) ** (1 / 2) - 1", {"a": 121, "b": 100}) == pytest.approx(0.1)
    with pytest.raises(CalcError, match="exponent must be a number"):
        evaluate("a ** b", {"a": 2, "b": 3})
    with pytest.raises(CalcError, match="out of range"):
        evaluate("a ** 1000", {"a": 2})
    with pytest.raises(CalcError, match="too large"):
        evaluate("a ** 100", {"a": 1e300})
    with pytest.raises(CalcError, match="negative number"):
        evaluate("a ** (1 / 2)", {"a": -4})


def test_errors_name_the_problem():
    with pytest.raises(CalcError, match="no value for input 'b'"):
        evaluate("a / b", {"a": 1})
    with pytest.raises(CalcError, match="division by zero"):
        evaluate("a / b", {"a": 1, "b": 0})
    with pytest.raises(CalcError, match="longer than"):
        evaluate("a + " * 1000 + "a", {"a": 1})
