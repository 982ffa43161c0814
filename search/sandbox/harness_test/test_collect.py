"""recheck.py's collection matches pytest's: the same test functions, each
as many times (parameters, fixture params, inherited methods, unittest
cases), for test files of the shapes the re-check supports; and what it does
not support is said, not guessed."""
import collections
import sys

import pytest

SOLUTION = "def add(a, b):\n    return a + b\n"

FILES = {
    "functions and parametrize": """
import pytest
from solution import add

def test_plain():
    assert add(1, 2) == 3

@pytest.mark.parametrize("a", [1, 2, pytest.param(3, id="three")])
@pytest.mark.parametrize("b", [10, 20])
def test_stacked(a, b):
    assert add(a, b) == a + b

@pytest.mark.parametrize("a,b", [])
def test_empty(a, b):
    pass

@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.xfail), 2])
def test_marked(x):
    assert x
""",
    "fixtures with params": """
import pytest

@pytest.fixture(params=[1, 2, 3])
def n(request):
    return request.param

@pytest.fixture(scope="module", params=["a", "b"])
def s(request):
    return request.param

def test_n(n):
    assert n

def test_both(n, s):
    assert s

@pytest.mark.parametrize("n", [7])
def test_direct(n):
    assert n == 7
""",
    "classes": """
class TestBase:
    def test_one(self):
        pass

class TestChild(TestBase):
    def test_two(self):
        pass

    class TestNested:
        def test_three(self):
            pass

class TestWithInit:
    def __init__(self):
        pass

    def test_never(self):
        pass

class Helper:
    def test_not_collected(self):
        pass

def helper_test():
    pass
""",
    "unittest": """
import unittest
from solution import add

class TestAdd(unittest.TestCase):
    def test_a(self):
        self.assertEqual(add(1, 2), 3)

    def test_b(self):
        self.assertIn(add(1, 1), [2])

    def helper(self):
        pass
""",
}


@pytest.fixture
def harness(recheck):
    return recheck


def recheck_names(harness, tmp_path, src):
    ns, compare = harness
    path = str(tmp_path / "test_solution.py")
    code = compare["compile_test"](src, path)
    check, assertion = compare["make_checker"](lambda why: None)
    sys.path.insert(0, str(tmp_path))
    try:
        mod, why = ns["load_test_module"](code, path, {compare["CHECK"]: check, compare["ASSERT"]: assertion})
        assert mod is not None, why
        items, _ = ns["collect_tests"](mod, ns["all_codes"](code, set()))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("solution", None)
    return collections.Counter(it.name for it in items)


@pytest.mark.parametrize("name", sorted(FILES))
def test_collection_matches_pytest(harness, pytester, tmp_path, name):
    src = FILES[name]
    (tmp_path / "solution.py").write_text(SOLUTION)
    ours = recheck_names(harness, tmp_path, src)
    pytester.makepyfile(solution=SOLUTION, test_solution=src)
    pytester.syspathinsert()
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "test_solution.py")
    theirs = collections.Counter(getattr(it, "originalname", it.name) for it in items)
    assert ours == theirs


@pytest.mark.parametrize("src,why", [
    ("def pytest_generate_tests(metafunc):\n    pass\n\ndef test_a():\n    pass\n", "pytest_generate_tests"),
    ("import functools\n\ndef deco(f):\n    @functools.wraps(f)\n    def w(*a):\n        return f(*a)\n    return w\n\n@deco\ndef test_a():\n    pass\n", "decorated"),
])
def test_unsupported_is_said(harness, tmp_path, src, why):
    ns, _ = harness
    with pytest.raises(ns["Unsupported"]) as e:
        recheck_names(harness, tmp_path, src)
    assert why in str(e.value)


def test_code_not_from_the_test_file_is_tamper(harness, tmp_path):
    """A test function whose code is not the test file's (replaced at load
    time) is tamper, not a test."""
    ns, compare = harness
    path = str(tmp_path / "test_solution.py")
    code = compare["compile_test"]("def test_a():\n    assert False\n", path)
    other = compile("def test_a():\n    pass\n", path, "exec")
    check, assertion = compare["make_checker"](lambda why: None)
    mod, why = ns["load_test_module"](other, path, {compare["CHECK"]: check, compare["ASSERT"]: assertion})
    with pytest.raises(ns["Tamper"]):
        ns["collect_tests"](mod, ns["all_codes"](code, set()))


def test_replaced_checks_are_tamper(harness, tmp_path):
    """A program that replaces the comparison checks through the test file's
    star import is tamper."""
    ns, compare = harness
    (tmp_path / "solution.py").write_text("globals()[%r] = lambda op, a, b: True\n" % compare["CHECK"])
    with pytest.raises(ns["Tamper"]):
        recheck_names(harness, tmp_path, "from solution import *\n\ndef test_a():\n    assert 1 == 2\n")
