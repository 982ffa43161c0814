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


@pytest.mark.parametrize("name", sorted(FILES))
def test_frozen_memo_answers_as_pytest(worker, name):
    # Half the lines learned before freeze() (the worker's start-up), all of
    # them asked after, in a child: the learned ones from the answers kept,
    # the others parsed again; the tree handed back is whatever the memo gave.
    memo = worker["statement_range_memo"](getstatementrange_ast)
    text = FILES[name]
    n = len(source_of(text).lines)
    for lineno in range(0, n, 2):
        memo(lineno, source_of(text))
    memo.freeze()
    node = None
    for i, lineno in enumerate(list(range(n)) * 2):
        want = getstatementrange_ast(lineno, source_of(text))
        got = memo(lineno, source_of(text), False, node if i % 2 else None)
        assert got[1:] == want[1:], lineno
        node = got[0]


def test_traceback_frames_cached_only_while_pytest_writes_a_failure(worker):
    # A recursion's failure text with the cache as without it; the entries'
    # frames read once each inside _repr_failure_py, afresh outside it.
    from _pytest import nodes
    from _pytest._code import code as pytest_code
    from _pytest._code import ExceptionInfo

    def recurse(n):
        return recurse(n + 1)

    try:
        recurse(0)
    except RecursionError:
        excinfo = ExceptionInfo.from_current()
    plain = str(excinfo.getrepr(style="short"))
    saved = (inspect_static(pytest_code.TracebackEntry, "frame"), nodes.Node._repr_failure_py)
    try:
        worker["cache_traceback_frames"]()
        entry = excinfo.traceback[-1]
        assert entry.frame is not entry.frame  # outside: pytest's own
        seen = []

        def probe(self, excinfo, style=None):
            # Stands for pytest's _repr_failure_py: the text, as its getrepr writes it.
            e = excinfo.traceback[-1]
            seen.append(e.frame is e.frame)
            return str(excinfo.getrepr(style=style))

        # The installed wrapper, its inner function (pytest's) swapped for probe.
        cached = nodes.Node._repr_failure_py
        cells = tuple(type(c)(probe if c.cell_contents is cached.__wrapped__ else c.cell_contents)
                      for c in cached.__closure__)
        wrapped = type(cached)(cached.__code__, cached.__globals__, "wrapped", cached.__defaults__, cells)
        text = wrapped(None, excinfo, "short")
        assert seen == [True]
        assert text == plain
        assert entry.frame is not entry.frame  # dropped after
    finally:
        pytest_code.TracebackEntry.frame, nodes.Node._repr_failure_py = saved


def inspect_static(cls, name):
    import inspect

    return inspect.getattr_static(cls, name)
