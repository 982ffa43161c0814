from solution import run_ledger
import pytest


@pytest.mark.parametrize("balances,ops,expected", [
    ([10, 0], [("transfer", 0, 1, 4), ("withdraw", 1, 5)], ([6, 4], 1)),
    ([5], [], ([5], 0)),
    ([0], [("deposit", 0, 7)], ([7], 0)),
    ([5], [("withdraw", 0, 5)], ([0], 0)),
    ([5], [("withdraw", 0, 6)], ([5], 1)),
    ([5, 5], [("deposit", 2, 1), ("deposit", -1, 1)], ([5, 5], 2)),
    ([5, 5], [("deposit", 0, 0), ("withdraw", 1, -3)], ([5, 5], 2)),
    ([3, 0, 0], [("transfer", 0, 1, 3), ("transfer", 1, 2, 3), ("transfer", 0, 2, 1)], ([0, 0, 3], 1)),
    ([1, 2], [("transfer", 1, 5, 1), ("transfer", 1, 0, 2)], ([3, 0], 1)),
])
def test_run_ledger(balances, ops, expected):
    assert run_ledger(balances, ops) == expected
