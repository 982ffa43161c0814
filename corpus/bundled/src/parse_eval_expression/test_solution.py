from solution import evaluate
import pytest


@pytest.mark.parametrize("expr,expected", [
    ("3+2*2", 7),
    ("(1+(4+5+2)-3)+(6+8)", 23),
    ("7-10/3", 4),
    ("42", 42),
    (" 12 - 3 - 4 ", 5),
    ("100/10/5", 2),
    ("2*(3+4)*5", 70),
    ("(2-9)/2", -3),
    ("0*123+((7))", 7),
    ("1-(2-(3-4))", -2),
    ("14/3*3", 12),
])
def test_evaluate(expr, expected):
    assert evaluate(expr) == expected
