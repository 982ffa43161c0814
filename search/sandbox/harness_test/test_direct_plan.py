"""worker.py's direct_plan: for a plain test file (test_file_shape) and the
ids pytest collects from it, which function and which parameter set each id
runs; None for any file the direct runner leaves to pytest."""
import pytest

SOLUTION = "def add(a, b):\n    return a + b\n"

DIRECT = {
    "functions": "from solution import add\n\ndef test_a():\n    assert add(1, 2) == 3\n\ndef test_b():\n    pass\n",
    "parametrize": '''import pytest
from solution import add


@pytest.mark.parametrize("a,b,want", [(1, 2, 3), (0, 0, 0), (-1, 1, 0)])
def test_add(a, b, want):
    assert add(a, b) == want


def test_plain():
    pass


@pytest.mark.parametrize("x", [1, "s", None, 2.5, [1, 2], {"k": 1}, (1,)])
def test_one_name(x):
    pass
''',
    "names as a list, ids, duplicate values": '''import pytest


@pytest.mark.parametrize(["a", "b"], [(1, 1), (1, 1), (2, 2)], ids=["x", "x", "y"])
def test_same(b, a):
    assert a == b
''',
    "builtin fixtures": "def test_a(tmp_path, capsys):\n    pass\n\ndef test_b(monkeypatch):\n    pass\n",
    "parameters and fixtures": "import pytest\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_a(tmp_path, x):\n    pass\n",
    "fixtures of the file": '''import pytest
from solution import add


@pytest.fixture
def base(tmp_path):
    return tmp_path


@pytest.fixture()
def pair(base):
    yield (base, 2)


def test_pair(pair, monkeypatch):
    assert pair[1] == 2
''',
    "test classes": '''import pytest


@pytest.fixture
def one():
    return 1


class TestA:
    """Docs."""

    def test_a(self):
        pass

    @pytest.mark.parametrize("x", [1, 2])
    def test_b(self, x, one):
        pass


def test_a():
    pass


class TestB:
    def test_a(self, capsys):
        pass
''',
    "values as a tuple display, docstring, main guard": '''"""Tests."""
import pytest


@pytest.mark.parametrize("n,sq", ((0, 0), (1, 1), (2, 4)))
def test_sq(n, sq):
    assert n * n == sq


if __name__ == "__main__":
    pytest.main([__file__])
''',
}

NOT_DIRECT = {
    "pytest.param": "import pytest\n\n@pytest.mark.parametrize('x', [pytest.param(1, marks=pytest.mark.skip)])\ndef test_a(x):\n    pass\n",
    "stacked": "import pytest\n\n@pytest.mark.parametrize('x', [1, 2])\n@pytest.mark.parametrize('y', [3])\ndef test_a(x, y):\n    pass\n",
    "indirect": "import pytest\n\n@pytest.mark.parametrize('x', [1], indirect=True)\ndef test_a(x):\n    pass\n",
    "comprehension at module level": "import pytest\nCASES = [i for i in range(3)]\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n",
    "values by name": "import pytest\nCASES = [1, 2]\n\n@pytest.mark.parametrize('x', CASES)\ndef test_a(x):\n    pass\n",
    "starred values": "import pytest\nA = [1]\n\n@pytest.mark.parametrize('x', [*A, 2])\ndef test_a(x):\n    pass\n",
    "empty values": "import pytest\n\n@pytest.mark.parametrize('x', [])\ndef test_a(x):\n    pass\n",
    "unknown fixture": "def test_a(caplog):\n    pass\n",
    "request": "def test_a(request):\n    pass\n",
    "fixture asks for its request": "import pytest\n\n@pytest.fixture\ndef f(request):\n    return 1\n\ndef test_a(f):\n    pass\n",
    "fixture with a scope": "import pytest\n\n@pytest.fixture(scope='module')\ndef f():\n    return 1\n\ndef test_a(f):\n    pass\n",
    "autouse fixture": "import pytest\n\n@pytest.fixture(autouse=True)\ndef f():\n    return 1\n\ndef test_a():\n    pass\n",
    "parametrized fixture": "import pytest\n\n@pytest.fixture(params=[1, 2])\ndef f(request):\n    return request.param\n\ndef test_a(f):\n    pass\n",
    "fixture overriding pytest's": "import pytest\n\n@pytest.fixture\ndef tmp_path():\n    return 1\n\ndef test_a(tmp_path):\n    pass\n",
    "fixtures asking for each other": "import pytest\n\n@pytest.fixture\ndef f(g):\n    return 1\n\n@pytest.fixture\ndef g(f):\n    return 1\n\ndef test_a(f):\n    pass\n",
    "fixture asking for itself": "import pytest\n\n@pytest.fixture\ndef f(f):\n    return 1\n\ndef test_a(f):\n    pass\n",
    "parameter named as a fixture": "import pytest\n\n@pytest.fixture\ndef x():\n    return 1\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n",
    "fixture with a default": "import pytest\n\n@pytest.fixture\ndef f(n=1):\n    return n\n\ndef test_a(f):\n    pass\n",
    "async fixture": "import pytest\n\n@pytest.fixture\nasync def f():\n    return 1\n\ndef test_a(f):\n    pass\n",
    "fixture not from pytest": "import functools\n\n@functools.cache\ndef f():\n    return 1\n\ndef test_a():\n    pass\n",
    "class with __init__": "class TestA:\n    def __init__(self):\n        pass\n\n    def test_a(self):\n        pass\n",
    "class with setup_method": "class TestA:\n    def setup_method(self, m):\n        pass\n\n    def test_a(self):\n        pass\n",
    "class with a base": "class Base:\n    pass\n\nclass TestA(Base):\n    def test_a(self):\n        pass\n",
    "class with an attribute": "class TestA:\n    x = 1\n\n    def test_a(self):\n        pass\n",
    "class with a mark": "import pytest\n\n@pytest.mark.skip\nclass TestA:\n    def test_a(self):\n        pass\n",
    "static method": "class TestA:\n    @staticmethod\n    def test_a():\n        pass\n",
    "method without self": "class TestA:\n    def test_a():\n        pass\n",
    "helper class": "class Helper:\n    pass\n\ndef test_a():\n    pass\n",
    "generator test": "def test_a():\n    yield 1\n",
    "default argument": "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(x=2):\n    pass\n",
    "other mark": "import pytest\n\n@pytest.mark.skip\ndef test_a():\n    pass\n",
    "mark imported from pytest": "from pytest import mark\n\n@mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n",
    "pytest imported under another name": "import pytest as pt\n\n@pt.mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n",
    "decorated helper": "import functools\n\n@functools.lru_cache\ndef helper():\n    return 1\n\ndef test_a():\n    pass\n",
    "repeated names": "import pytest\n\n@pytest.mark.parametrize('x,x', [(1, 1)])\ndef test_a(x):\n    pass\n",
    "ids from a function": "import pytest\n\n@pytest.mark.parametrize('x', [1], ids=str)\ndef test_a(x):\n    pass\n",
}


@pytest.fixture
def plan(worker):
    return lambda src, ids: worker["direct_plan"](src, ids, ("test",), ("Test",))


def collect(pytester, src):
    pytester.makepyfile(solution=SOLUTION, test_solution=src)
    pytester.syspathinsert()
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "test_solution.py")
    return items


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_plans_follow_pytest_collection(plan, pytester, name):
    src = DIRECT[name]
    items = collect(pytester, src)
    got = plan(src, [it.nodeid for it in items])
    assert got is not None
    assert [nodeid for nodeid, _, _, _ in got] == [it.nodeid for it in items]
    for (nodeid, func, index, cls), item in zip(got, items):
        assert item.originalname == func
        assert cls == (item.cls.__name__ if item.cls is not None else None)
        if index is None:
            assert not hasattr(item, "callspec")
        else:
            assert set(item.callspec.indices.values()) == {index}


@pytest.mark.parametrize("name", sorted(NOT_DIRECT))
def test_other_shapes_go_to_pytest(plan, pytester, name):
    src = NOT_DIRECT[name]
    items = collect(pytester, src)
    assert plan(src, [it.nodeid for it in items] or ["test_solution.py::test_a"]) is None


def test_ids_that_do_not_match_the_file(plan):
    src = DIRECT["parametrize"]
    good = ["test_solution.py::test_add[1-2-3]", "test_solution.py::test_add[0-0-0]", "test_solution.py::test_add[-1-1-0]",
            "test_solution.py::test_plain"] + ["test_solution.py::test_one_name[x%d]" % i for i in range(7)]
    assert plan(src, good) is not None
    assert plan(src, good[:-1]) is None  # one parameter set too few
    assert plan(src, good + ["test_solution.py::test_extra"]) is None
    assert plan(src, [good[3]] + good[:3] + good[4:]) is None  # out of order
    assert plan(src, []) is None
