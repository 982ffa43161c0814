"""worker.py's static_test_ids: the ids of a plain test file, read from its
text, are the ids pytest collects from it; any other shape gets None (the
file is then collected by pytest)."""
import pytest

SOLUTION = "def add(a, b):\n    return a + b\n\nclass Box:\n    pass\n\nVALUE = 3\n"

PLAIN = {
    "functions": "from solution import add\n\ndef test_a():\n    assert add(1, 2) == 3\n\ndef test_b():\n    pass\n",
    "star import, docstring, main guard": '''"""Tests."""
from solution import *
import pytest


def helper(x):
    return add(x, 0)


def test_one():
    assert helper(2) == 2


def testing_is_collected_too():
    pass


if __name__ == "__main__":
    pytest.main([__file__])
''',
    "assignments and fixtures as parameters": '''import math as m
from solution import add as plus, VALUE
EPS = 1e-9
CASES = [(1, 2, 3), (0, 0, 0)]
SAME = CASES
LIMIT: int = 10


def test_cases():
    for a, b, c in CASES:
        assert plus(a, b) == c


def test_with_fixture(tmp_path):
    assert tmp_path.exists()


def test():
    def inner():
        return 1
    assert inner() == 1
''',
    "no tests": "from solution import add\n\nX = 1\n",
    "inert dunders": "__all__ = ['test_a']\n__version__ = '1.0'\n\ndef test_a():\n    pass\n",
    "empty": "",
    "unicode names": "from solution import add\n\ndef test_ünïcode():\n    assert add(1, 1) == 2\n",
    "class": "class TestA:\n    def test_a(self):\n        pass\n\n    def test_b(self):\n        pass\n",
    "classes and functions in definition order": '''import pytest


def test_first():
    pass


class TestMiddle:
    """Doc."""

    @pytest.mark.parametrize("x", [1, 2])
    def test_m(self, x):
        pass


def test_last():
    pass


class TestEnd:
    def test_e(self):
        pass
''',
    "fixture": "import pytest\n\n@pytest.fixture\ndef f():\n    return 1\n\n@pytest.fixture()\ndef g(f, tmp_path):\n"
               "    yield f\n\ndef test_a(f, g):\n    pass\n",
    "parametrize ints": "import pytest\n\n@pytest.mark.parametrize('x', [1, -2, 0, 7])\ndef test_a(x):\n    pass\n",
    "parametrize several names": '''import pytest


@pytest.mark.parametrize("a, b, expected", [(1, 2, 3), (-1, 1, 0), (2.5, 0.5, 3.0), (None, True, False)])
def test_add(a, b, expected):
    pass


@pytest.mark.parametrize(("s", "n"), [("abc", 3), ("", 0), ("héllo wörld", 11), ("tab\\tnew\\nline", 2)])
def test_len(s, n):
    pass
''',
    "parametrize duplicates and containers": '''import pytest


@pytest.mark.parametrize("x", [1, 1, "1", [1, 2], (3,), {"k": 1}, {4}, b"by\\xfftes", 1j, -0.0, 1e400])
def test_a(x):
    pass


@pytest.mark.parametrize(["y"], [(1,), ("a",)])
def test_b(y):
    pass


@pytest.mark.parametrize("z", ((1, 2), (3, 4)))
def test_c(z):
    pass
''',
    "parametrize and fixtures": "import pytest\n\n@pytest.fixture\ndef f():\n    return 1\n\n"
                                "@pytest.mark.parametrize('x', ['a', 'b'])\ndef test_a(f, x, tmp_path):\n    pass\n",
    "odd strings": "import pytest\n\n@pytest.mark.parametrize('s', ['xxx', 'a b', '::', '[1]', '\\x00', 'ß', '😀', ''])\n"
                   "def test_a(s):\n    pass\n",
}

NOT_PLAIN = {
    "other decorator": "import pytest\n\n@pytest.mark.skip\ndef test_a():\n    pass\n",
    "parametrize over a name": "import pytest\nCASES = [1, 2]\n\n@pytest.mark.parametrize('x', CASES)\ndef test_a(x):\n    pass\n",
    "parametrize over the program's name": "import pytest\nfrom solution import *\n\n@pytest.mark.parametrize('x', [VALUE, 2])\n"
                                           "def test_a(x):\n    pass\n",
    "parametrize with ids": "import pytest\n\n@pytest.mark.parametrize('x', [1, 2], ids=['a', 'b'])\ndef test_a(x):\n    pass\n",
    "parametrize with a call": "import pytest\n\n@pytest.mark.parametrize('x', [len('ab')])\ndef test_a(x):\n    pass\n",
    "parametrize with too few values": "import pytest\n\n@pytest.mark.parametrize('a, b', [(1, 2), (3,)])\n"
                                      "def test_a(a, b):\n    pass\n",
    "parametrize of request": "import pytest\n\n@pytest.mark.parametrize('request', [1])\ndef test_a(request):\n    pass\n",
    "parametrize of a name the test lacks": "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(y):\n    pass\n",
    "class with a base": "import unittest\n\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    "class with a helper": "class TestA:\n    def helper(self):\n        pass\n\n    def test_a(self):\n        pass\n",
    "class with __init__": "class TestA:\n    def __init__(self):\n        pass\n\n    def test_a(self):\n        pass\n",
    "fixture with a scope": "import pytest\n\n@pytest.fixture(scope='module')\ndef f():\n    return 1\n\ndef test_a(f):\n    pass\n",
    "helper class": "class Helper:\n    pass\n\ndef test_a():\n    pass\n",
    "generator test": "def test_a():\n    yield 1\n",
    "async test": "async def test_a():\n    pass\n",
    "await inside": "def test_a():\n    async def f():\n        await g()\n",
    "pytestmark": "import pytest\npytestmark = pytest.mark.skip\n\ndef test_a():\n    pass\n",
    "__test__": "__test__ = False\n\ndef test_a():\n    pass\n",
    "defined twice": "def test_a():\n    pass\n\ndef test_a():\n    pass\n",
    "rebound test name": "def test_a():\n    pass\n\ntest_b = test_a\n",
    "star import from elsewhere": "from os.path import *\n\ndef test_a():\n    pass\n",
    "relative star import": "from .solution import *\n\ndef test_a():\n    pass\n",
    "import of a test name": "from solution import test_helper\n\ndef test_a():\n    pass\n",
    "import of a Test name": "from unittest import TestCase\n\ndef test_a():\n    pass\n",
    "call at module level": "from solution import add\nX = add(1, 2)\n\ndef test_a():\n    pass\n",
    "expression at module level": "print('x')\n\ndef test_a():\n    pass\n",
    "if block": "import sys\nif sys.version_info > (3,):\n    def test_a():\n        pass\n",
    "try block": "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n\ndef test_a():\n    pass\n",
    "setup_module": "def setup_module():\n    pass\n\ndef test_a():\n    pass\n",
    "pytest_generate_tests": "def pytest_generate_tests(metafunc):\n    pass\n\ndef test_a(x):\n    pass\n",
    "attribute target": "def test_a():\n    pass\n\ntest_a.__test__ = False\n",
    "tuple target": "a, b = 1, 2\n\ndef test_a():\n    pass\n",
    "del": "def test_a():\n    pass\n\ndel test_a\n",
    "syntax error": "def test_a(:\n    pass\n",
    "main guard with else": "if __name__ == '__main__':\n    pass\nelse:\n    def test_b():\n        pass\n",
    "__name__ rebound": "__name__ = '__main__'\n\nif __name__ == '__main__':\n    def test_b():\n        pass\n",
    "module __getattr__": "def __getattr__(name):\n    return False\n\ndef test_a():\n    pass\n",
}


@pytest.fixture
def static_ids(worker, pytester):
    """static_test_ids as the worker calls it: parameter sets' ids from
    pytest's own id maker under a session's config."""
    ids = worker["make_parameter_ids"](pytester.parseconfigure("-p", "no:cacheprovider"))
    assert ids is not None
    return lambda src: worker["static_test_ids"](src, ("test",), ("Test",), ids)


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_files_match_pytest(static_ids, pytester, name):
    src = PLAIN[name]
    ids = static_ids(src)
    assert ids is not None
    pytester.makepyfile(solution=SOLUTION, test_solution=src)
    pytester.syspathinsert()
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "test_solution.py")
    assert ids == [it.nodeid for it in items]


def test_parametrized_files_need_the_id_maker(worker):
    """Without pytest's id maker a parametrized file is collected; classes
    and fixtures are still read from the text."""
    assert worker["static_test_ids"](PLAIN["parametrize ints"], ("test",), ("Test",)) is None
    assert worker["static_test_ids"](PLAIN["class"], ("test",), ("Test",)) == [
        "test_solution.py::TestA::test_a", "test_solution.py::TestA::test_b"]


@pytest.mark.parametrize("name", sorted(NOT_PLAIN))
def test_other_shapes_are_collected(static_ids, name):
    assert static_ids(NOT_PLAIN[name]) is None


def test_other_prefixes(worker):
    src = "def check_a():\n    pass\n\ndef test_b():\n    pass\n"
    assert worker["static_test_ids"](src, ("check",), ("Test",)) == ["test_solution.py::check_a"]

    class Config:
        def __init__(self, functions):
            self.ini = {"python_functions": functions, "python_classes": ["Test"]}

        def getini(self, name):
            return self.ini[name]

    assert worker["make_static_ids"](Config(["test"]))(src) == ["test_solution.py::test_b"]
    # A glob is matched by pytest with fnmatch: such files are collected.
    assert worker["make_static_ids"](Config(["*_check"]))(src) is None
