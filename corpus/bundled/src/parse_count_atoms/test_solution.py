from solution import count_atoms
import pytest


@pytest.mark.parametrize("formula,expected", [
    ("H2O", {"H": 2, "O": 1}),
    ("Mg(OH)2", {"Mg": 1, "O": 2, "H": 2}),
    ("He", {"He": 1}),
    ("C12", {"C": 12}),
    ("K4(ON(SO3)2)2", {"K": 4, "O": 14, "N": 2, "S": 4}),
    ("NaCl", {"Na": 1, "Cl": 1}),
    ("HOH", {"H": 2, "O": 1}),
    ("(H)", {"H": 1}),
    ("Fe2(SO4)3", {"Fe": 2, "S": 3, "O": 12}),
    ("((CH3)2)10", {"C": 20, "H": 60}),
])
def test_count_atoms(formula, expected):
    assert count_atoms(formula) == expected
