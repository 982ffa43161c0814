from solution import eval_rpn
import pytest


@pytest.mark.parametrize("tokens,expected", [
    (["4", "13", "5", "/", "+"], 6),
    (["2", "1", "+", "3", "*"], 9),
    (["7"], 7),
    (["-3"], -3),
    (["5", "8", "-"], -3),
    (["7", "-2", "/"], -3),
    (["-7", "2", "/"], -3),
    (["10", "6", "9", "3", "+", "-11", "*", "/", "*", "17", "+", "5", "+"], 22),
    (["3", "4", "*", "2", "5", "*", "-"], 2),
])
def test_eval_rpn(tokens, expected):
    assert eval_rpn(tokens) == expected
