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
}

NOT_PLAIN = {
    "decorator": "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n",
    "class": "class TestA:\n    def test_a(self):\n        pass\n",
    "fixture": "import pytest\n\n@pytest.fixture\ndef f():\n    return 1\n\ndef test_a(f):\n    pass\n",
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
def static_ids(worker):
    return lambda src: worker["static_test_ids"](src, ("test",), ("Test",))


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_files_match_pytest(static_ids, pytester, name):
    src = PLAIN[name]
    ids = static_ids(src)
    assert ids is not None
    pytester.makepyfile(solution=SOLUTION, test_solution=src)
    pytester.syspathinsert()
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "test_solution.py")
    assert ids == [it.nodeid for it in items]


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
