"""worker.py's statement_range_memo: pytest's getstatementrange_ast, with
repeats answered from the first call, gives pytest's answer for every line
of every file, in any order, with or without the AST handed back."""
import random

import pytest
from _pytest._code.source import Source, getstatementrange_ast

FILES = {
    "test file": '''import pytest
from solution import add


@pytest.mark.parametrize("a,b,want", [
    (1, 2, 3),
    (0, 0, 0),
])
def test_add(a, b, want):
    # a comment
    assert add(a, b) == want


def test_multi_line():
    assert add(1, 2) == [
        1,
        3,
    ]

    x = 1
''',
    "program": '''class Queue:
    def __init__(self):
        self.items = []

    @property
    def size(self):
        return len(self.items)

    def pop(self):
        try:
            return self.items.pop(0)
        except IndexError:
            raise
        else:
            pass
        finally:
            self.items = list(
                self.items)


def nested(n):
    def inner(k):
        if k:
            return inner(k - 1)
        return 0
    return inner(n)
''',
    "one line": "x = 1",
}


def source_of(text):
    """The Source pytest's traceback builds for a file (findsource)."""
    src = Source()
    src.lines = [line.rstrip() for line in text.splitlines(True)]
    return src


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("seed", [1, 2])
def test_memo_answers_as_pytest(worker, name, seed):
    memo = worker["statement_range_memo"](getstatementrange_ast)
    text = FILES[name]
    calls = [(lineno, assertion) for lineno in range(len(source_of(text).lines)) for assertion in (False, True)]
    calls = calls * 2  # every call once more, answered from the memo
    random.Random(seed).shuffle(calls)
    node = None
    for i, (lineno, assertion) in enumerate(calls):
        src = source_of(text)  # a fresh Source, as each traceback entry makes
        want = getstatementrange_ast(lineno, src, assertion)
        handed = node if i % 3 == 0 else None  # as a repr's astcache hands it back
        got = memo(lineno, src, assertion, handed)
        assert got[1:] == want[1:], (lineno, assertion)
        node = got[0]


def test_foreign_ast_goes_to_pytest(worker):
    calls = []

    def original(lineno, source, assertion=False, astnode=None):
        calls.append(astnode)
        return getstatementrange_ast(lineno, source, assertion, astnode)

    memo = worker["statement_range_memo"](original)
    text = FILES["program"]
    first = memo(2, source_of(text))
    other = getstatementrange_ast(2, source_of(text))[0]  # the same text, another parse
    assert memo(5, source_of(text), False, other)[1:] == getstatementrange_ast(5, source_of(text))[1:]
    assert calls[-1] is other
    n = len(calls)
    assert memo(2, source_of(text), False, first[0]) == first  # a repeat: no call
    assert len(calls) == n


def test_syntax_error_is_not_remembered(worker):
    memo = worker["statement_range_memo"](getstatementrange_ast)
    src = source_of("def f(:\n    pass\n")
    for _ in range(2):
        with pytest.raises(SyntaxError):
            memo(0, src)
