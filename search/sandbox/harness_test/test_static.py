"""guard.py's static check: what no honest solution needs is found, with
its line; honest programs have no finding."""
import pytest

FINDS = {
    "imports _pytest": ("import _pytest.python\n", "imports _pytest"),
    "imports pytest": ("import pytest\n", "imports pytest"),
    "from unittest import mock": ("from unittest import mock\n", "unittest.mock"),
    "imports gc": ("import gc\n", "imports gc"),
    "imports inspect": ("import inspect\n", "imports inspect"),
    "sys._getframe": ("import sys\nf = sys._getframe()\n", "_getframe"),
    "frame attribute": ("def f(tb):\n    return tb.tb_frame.f_back\n", "tb_frame"),
    "os._exit": ("import os\nos._exit(0)\n", "os._exit"),
    "from os import _exit": ("from os import _exit\n", "imports os._exit"),
    "sys.modules": ("import sys\nm = sys.modules\n", "sys.modules"),
    "__builtins__": ("x = __builtins__\n", "__builtins__"),
    "string naming the test file": ("p = 'test_solution.py'\n", "test_solution"),
    "string naming /proc": ("p = '/proc/self/fd'\n", "/proc/"),
    "string naming the comparison checks": ("g = globals()\ng['@triage_compare'] = 1\n", "@triage"),
    "__eq__ that ignores its argument": ("class A:\n    def __eq__(self, other):\n        return True\n", "__eq__ ignores"),
    "__eq__ lambda that ignores its argument": ("class A:\n    __eq__ = lambda self, other: True\n", "__eq__ ignores"),
    "comparison set from outside": ("class A:\n    pass\nsetattr(A, '__eq__', len)\n", "comparison set from outside"),
}

HONEST = [
    "def add(a, b):\n    return a + b\n",
    "import collections, functools, itertools, math, re\n\n@functools.lru_cache(None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    "class P:\n    def __init__(self, x):\n        self.x = x\n    def __eq__(self, other):\n        return isinstance(other, P) and self.x == other.x\n    def __hash__(self):\n        return hash(self.x)\n",
    "class W:\n    def __eq__(self, other):\n        return NotImplemented\n",
    '"""A docstring may name test_solution.py and /proc/."""\nimport sys\nsys.setrecursionlimit(5000)\n',
    "from dataclasses import dataclass\n\n@dataclass(order=True)\nclass V:\n    a: int\n",
    "def broken(:\n",  # does not parse: no finding, it fails to load
]


@pytest.mark.parametrize("name", sorted(FINDS))
def test_findings(load, name):
    src, want = FINDS[name]
    got = load("guard.py")["static_findings"](src)
    assert any(want in f for f in got), got
    assert all(f.startswith("line ") for f in got)


@pytest.mark.parametrize("src", HONEST)
def test_honest_programs_have_no_finding(load, src):
    assert load("guard.py")["static_findings"](src) == []


def test_findings_are_limited(load):
    src = "import gc\n" * 20
    assert len(load("guard.py")["static_findings"](src, limit=8)) == 8
