"""judge.py and program.py over a real socket, a program process forked per
test (no sandbox around it): what the test sees of the program's objects,
values, exceptions, mutations, output and warnings, and what the program
sees of the test's objects."""
import io
import os
import socket
import sys
import time
import traceback
import warnings

import pytest

import judge
import program


@pytest.fixture
def start(tmp_path, monkeypatch):
    """start(source) -> the judge's client, with `solution` importable as
    the program of that source running in a forked process."""
    started = []
    saved_meta = list(sys.meta_path)

    def go(source, room=False):
        folder = tmp_path / "program.d"
        folder.mkdir()
        (tmp_path / "solution.py").write_text(source)
        (folder / "solution.py").write_text(source)
        a, b = socket.socketpair()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                a.close()
                os.close(out_r)
                os.close(err_r)
                os.chdir(str(folder))
                # The program process of these tests is a fork of pytest's,
                # far deeper than the judge's caller: a bias makes room for
                # the padding.
                s = program.Server(b, str(folder / "solution.py"), None, room_bias=-300 if room else None,
                                   std_prefixes=STD)
                s.capture_output(out_w, err_w)
                s.capture_warnings()
                s.serve_forever()
            finally:
                os._exit(0)
        b.close()
        os.close(out_w)
        os.close(err_w)
        gone = []
        c = judge.Client(a, str(folder), str(tmp_path), STD, room_bias=0 if room else None,
                         on_gone=lambda: gone.append(1), output=(out_r, err_r))
        judge.install(c, str(tmp_path / "solution.py"))
        sys.modules.pop("solution", None)
        started.append((a, pid))
        return c

    yield go
    for a, pid in started:
        a.close()
        os.waitpid(pid, 0)
    sys.meta_path[:] = saved_meta
    sys.modules.pop("solution", None)


def _std():
    import harness

    return harness.std_prefixes()


STD = _std()


def test_data_crosses_as_the_judges_own_values(start):
    start("import collections\ndef f(x):\n    return x, [x] * 2, {'k': x}, collections.Counter('aab'), 2 ** 80\n")
    from solution import f

    got = f(3)
    assert got == (3, [3, 3], {"k": 3}, {"a": 2, "b": 1}, 2 ** 80)
    assert type(got[3]).__module__ == "collections"


def test_program_objects_are_handles_equal_only_to_themselves(start):
    start("class V:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, o):\n        return True\n"
          "    __hash__ = object.__hash__\n    def __len__(self):\n        return 7\n"
          "def make(v):\n    return V(v)\nONE = V(1)\ndef one():\n    return ONE\n")
    import solution

    a = solution.make(1)
    assert a != 1 and a != solution.make(1) and not (a == 1)
    assert a == a and solution.one() is solution.ONE
    assert a.v == 1 and len(a) == 7 and isinstance(a, solution.V)
    assert type(a).__name__ == "V" and repr(a).startswith("<solution.V object at ")
    with pytest.raises(TypeError):
        a < a  # noqa: B015 - ordering of the program's objects is not asked of them


def test_exceptions_keep_type_args_text_and_hierarchy(start):
    start("class Base(ValueError):\n    pass\n\nclass Mine(Base):\n    def __str__(self):\n        return 'mine!'\n\n"
          "def f(n):\n    if n == 1:\n        raise Mine('a', n)\n    if n == 2:\n        raise KeyError('k')\n"
          "    if n == 3:\n        try:\n            {}['x']\n        except KeyError as e:\n            raise Base('wrapped') from e\n"
          "    if n == 4:\n        raise SystemExit(3)\n    e = OSError(2, 'No such file', 'x')\n    e.extra = [1]\n    raise e\n")
    import solution

    with pytest.raises(solution.Base) as e:
        solution.f(1)
    assert type(e.value) is solution.Mine and isinstance(e.value, ValueError)
    assert e.value.args == ("a", 1) and str(e.value) == "mine!"
    assert type(e.value).__module__ == "solution" and type(e.value).__qualname__ == "Mine"
    with pytest.raises(KeyError) as e:
        solution.f(2)
    assert type(e.value) is KeyError and str(e.value) == "'k'"
    with pytest.raises(solution.Base) as e:
        solution.f(3)
    assert type(e.value.__cause__) is KeyError and e.value.__suppress_context__
    with pytest.raises(SystemExit) as e:
        solution.f(4)
    assert e.value.code == 3
    with pytest.raises(FileNotFoundError) as e:
        solution.f(5)
    assert e.value.errno == 2 and e.value.filename == "x" and e.value.extra == [1]


def test_a_programs_frames_read_as_its_own(start, tmp_path):
    start("def inner(x):\n    return 1 / x\n\ndef outer(x):\n    return inner(x)\n")
    from solution import outer

    with pytest.raises(ZeroDivisionError) as e:
        outer(0)
    frames = [(os.path.basename(f.filename), f.name, f.lineno, f.line) for f in traceback.extract_tb(e.value.__traceback__)
              if f.filename == str(tmp_path / "solution.py")]
    assert frames == [("solution.py", "outer", 5, "return inner(x)"), ("solution.py", "inner", 2, "return 1 / x")]


def test_recursion_cut_repeats_the_programs_repeat(start):
    start("def f(n):\n    return f(n)\n\ndef g(n):\n    return g(n + 1)\n")
    import solution
    from _pytest._code import ExceptionInfo

    for fn, cut in ((solution.f, True), (solution.g, False)):
        with pytest.raises(RecursionError) as e:
            fn(0)
        tb = ExceptionInfo.from_exc_info((type(e.value), e.value, e.value.__traceback__)).traceback
        ours = [i for i, entry in enumerate(tb) if entry.path.name == "solution.py"]
        index = tb.recursionindex()
        assert (index is not None) == cut and (index is None or index == ours[1])


def test_mutated_arguments_are_written_back(start):
    start("def move(nums):\n    nums.sort()\n    nums.append([9])\n    return nums\n"
          "def keep(nums):\n    return sorted(nums)\n"
          "def grid(g):\n    g[0][1] = 5\n")
    import solution

    nums = [3, 1, 2]
    out = solution.move(nums)
    assert out is nums and nums[:3] == [1, 2, 3] and nums[3] == [9]
    kept = [3, 1]
    assert solution.keep(kept) == [1, 3] and kept == [3, 1]
    g = [[0, 0], [0, 0]]
    row = g[0]
    assert solution.grid(g) is None and g[0] is row and row == [0, 5]


def test_the_tests_objects_are_handles_in_the_program(start):
    start("def merge(a, b):\n    return sorted(a + b)\n"
          "def apply(f, xs):\n    return [f(x) for x in xs]\n"
          "def walk(node):\n    out = []\n    while node is not None:\n        out.append(node.val)\n        node = node.next\n"
          "    return out\n"
          "def peek(f):\n    return f.__globals__\n")
    import solution

    class V(int):
        pass

    x, y = V(2), V(2)
    out = solution.merge([x], [y])
    assert out[0] is x and out[1] is y
    seen = []
    assert solution.apply(lambda v: seen.append(v) or v * 10, [1, 2]) == [10, 20] and seen == [1, 2]

    class Node:
        def __init__(self, val, next=None):
            self.val, self.next = val, next

    assert solution.walk(Node(1, Node(2))) == [1, 2]
    with pytest.raises(AttributeError, match="public attributes only"):
        solution.peek(lambda: 0)


def test_a_callbacks_exception_comes_back_as_itself(start):
    start("def call(f):\n    return f()\n")
    import solution

    class Mine(Exception):
        pass

    err = Mine("x")

    def raiser():
        raise err

    with pytest.raises(Mine) as e:
        solution.call(raiser)
    assert e.value is err


def test_output_reaches_the_tests_stdout_and_stderr(start, capsys):
    start("import os, sys\ndef greet(n):\n    print('Hello,', n)\n    print('oops', file=sys.stderr)\n"
          "    os.write(1, b'raw\\n')\n")
    from solution import greet

    greet("Ada")
    out = capsys.readouterr()
    assert out.out == "Hello, Ada\nraw\n" and out.err == "oops\n"


def test_warnings_are_raised_in_the_judge(start):
    start("import warnings\ndef w():\n    warnings.warn('careful', DeprecationWarning)\n    return 1\n")
    from solution import w

    with pytest.warns(DeprecationWarning, match="careful"):
        assert w() == 1


def test_star_import_and_module_attributes(start):
    start("import math\nX = [1, 2]\ndef f():\n    return X\n_private = 1\n")
    ns = {}
    exec("from solution import *", ns)
    assert ns["X"] == [1, 2] and callable(ns["f"]) and "_private" not in ns
    # The standard library's modules cross by name: the judge's own.
    assert ns["math"] is sys.modules["math"]
    import solution

    solution.X = [3]
    assert solution.f() == [3]


def test_the_modules_functions_come_with_its_import(start):
    c = start("X = [1]\ndef f():\n    return X\nclass K:\n    pass\ndef g(v):\n    global f\n    f = v\n")
    asked = []
    send = c.send
    c.send = lambda msg: (asked.append(msg.get("op")), send(msg))[1]
    from solution import f, K  # noqa: F401 - both answered with the import
    assert asked == ["import"]
    from solution import X  # data: asked for each time
    assert asked == ["import", "getattr"] and X == [1]
    import solution

    solution.g(1)
    # After a request the program may have rebound its names: asked again.
    assert solution.f == 1


def test_an_error_at_import_is_raised_at_the_import(start):
    start("x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(RuntimeError, match="boom") as e:
        import solution  # noqa: F401
    names = [f.name for f in traceback.extract_tb(e.value.__traceback__)]
    assert names[-1] == "<module>" and "exec_module" not in names


def test_coverage_lines_of_the_program(start):
    c = start("def f(x):\n    if x:\n        return 1\n    return 2\n")
    from solution import f

    lines = set()
    c.coverage = lambda: lines
    f(0)
    assert lines == {2, 4}
    c.coverage = None
    f(1)
    assert lines == {2, 4}


def test_values_over_the_limits_fail_with_a_clear_message(start):
    start("def deep():\n    x = []\n    for _ in range(500):\n        x = [x]\n    return x\n")
    from solution import deep

    with pytest.raises(judge.ProgramDataError, match="too large to judge"):
        deep()


def test_recursion_room_of_a_call_is_its_callers(start):
    start("import sys\ndef room(n=0):\n    try:\n        return room(n + 1)\n    except RecursionError:\n        return n\n",
          room=True)
    from solution import room

    def here(n=0):
        try:
            return here(n + 1)
        except RecursionError:
            return n

    # Uncalibrated biases: the program's room follows the caller's depth,
    # one frame deeper, one less.
    a = room()

    def deeper():
        return room()

    assert deeper() == a - 1


def test_standard_names_are_classes_and_functions_of_their_own_name(start):
    c = start("def f():\n    return 1\n")
    import wire

    dec = wire.Decoder(c.resolve)
    assert dec.decode(["S", "collections", "OrderedDict"]) is __import__("collections").OrderedDict
    assert dec.decode(["S", "math", ""]) is __import__("math")
    for form in (["S", "pytest", "mark"], ["S", "pytest", "mark.skip"], ["S", "os", "environ"],
                 ["S", "test_solution", "EXPECTED"], ["S", "solution", "f"], ["S", "json", "decoder"]):
        with pytest.raises(wire.DataError):
            dec.decode(form)


def test_a_program_objects_operations_are_its_class_s(start):
    start("class Node:\n    pass\n\nclass Box:\n    def __len__(self):\n        return 1\n\n"
          "def make():\n    return Node(), Box(), Node, len\n")
    from solution import make

    node, box, cls, fn = make()
    # pytest's assertion rewriting shows a global that is not callable by
    # its repr: an instance of a class without __call__ is not callable.
    assert not callable(node) and callable(cls) and callable(fn)
    assert not hasattr(type(node), "__len__") and len(box) == 1


def test_own_cpu_counted_only_when_asked(start):
    """A request marked timed (a trusted reference's run) has the program
    process count its own code's CPU, the call's body and not the serving
    around it, and report it with every answer; unmarked, nothing is
    counted or sent."""
    c = start("def work(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n    return s\n")
    from solution import work
    assert work(10) == 285
    assert c.own_ns is None
    c.timed = True
    t0 = time.thread_time_ns()
    assert work(300000) == sum(i * i for i in range(300000))
    judge_side = time.thread_time_ns() - t0
    assert c.own_ns is not None and c.own_ns > 0
    first = c.own_ns
    assert work(10) == 285
    assert first <= c.own_ns < first + 5_000_000
    # The sum in the program took about as long as the same sum here.
    assert c.own_ns > judge_side / 10


def test_own_cpu_count_is_data_only_when_asked(start):
    """What a program sends as its count is taken only when the judge asked
    for it, and only as a number a CPU time can be: a count too large for a
    float (which would stop the judge where it reports it) is dropped."""
    c = start("import gc\n"
              "def lie(n):\n"
              "    for o in gc.get_objects():\n"
              "        if type(o).__name__ == 'Server' and hasattr(o, 'own_ns'):\n"
              "            o.own_ns = n\n"
              "    return 1\n")
    from solution import lie
    assert lie(7) == 1
    assert lie(8) == 1
    assert c.own_ns is None  # not asked: the program's 7 and 8 are dropped
    c.timed = True
    assert lie(10 ** 400) == 1
    assert c.own_ns is None or c.own_ns < 1 << 62
    float(c.own_ns or 0)  # what the judge does with it at the end of a run


def test_type_ops_kept_for_the_interpreters_types_only():
    """The operations of a static type are found once (the worker's, before
    the fork) and kept; a class's are found again each time, since its dict
    may change."""
    import types

    fn = program.type_ops(types.FunctionType)
    assert "__call__" in fn and "__len__" not in fn and program.type_ops(types.FunctionType) is fn

    class K:
        def __len__(self):
            return 1

    ops = program.type_ops(K)
    assert "__len__" in ops and "__iter__" not in ops and program.type_ops(K) is not ops
    K.__iter__ = lambda self: iter(())
    assert "__iter__" in program.type_ops(K)


def test_pytests_fixture_probe_is_answered_here(start):
    """pytest's look for a fixture marker on a handle is answered in the
    judge, whatever the program set (it could only be a handle, never a
    marker of the judge's): no request, and the program's function is
    still called as before."""
    c = start("def f(x):\n    return x + 1\n\nf._pytestfixturefunction = 'not a marker'\n")
    from solution import f
    from _pytest.fixtures import getfixturemarker

    sent = []
    send = c.send
    c.send = lambda msg: (sent.append(msg.get("op")), send(msg))[1]
    assert getfixturemarker(f) is None
    assert sent == []
    assert f(1) == 2 and sent == ["call"]
