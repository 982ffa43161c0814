"""direct.py's plain_funcargnames (pytest's getfuncargnames read from a plain
function's code) and the solution.py loader of a run's program process
(worker.compile_program, program.ProgramLoader): the code compiled by the
worker runs only while the file holds the bytes it was compiled from, and an
error at import shows the program's frames only."""
import itertools
import os
import sys
import traceback

import pytest
from _pytest.compat import getfuncargnames

import program


def signatures():
    """Parameter lists of every shape inspect.signature tells apart."""
    for npos, nposonly, ndef, star, kw, dstar in itertools.product(range(4), range(3), range(3), (False, True),
                                                                  ((), (False,), (True, False), (True, True)), (False, True)):
        if nposonly > npos or ndef > npos:
            continue
        parts = []
        for i in range(npos):
            parts.append("p%d" % i + ("=1" if i >= npos - ndef else ""))
            if nposonly and i == nposonly - 1:
                parts.append("/")
        if star:
            parts.append("*args")
        elif kw:
            parts.append("*")
        parts.extend("k%d" % j + ("=2" if d else "") for j, d in enumerate(kw))
        if dstar:
            parts.append("**kw")
        yield ", ".join(parts)


def test_argnames_match_getfuncargnames(worker):
    n = 0
    for params in signatures():
        for drop in (None, "__defaults__", "__kwdefaults__"):
            ns = {}
            exec("def f(%s):\n    pass\n" % params, ns)
            f = ns["f"]
            if drop:
                setattr(f, drop, None)
            for cls in (None, type("TestC", (), {"f": f})):
                got = worker["plain_funcargnames"](f, "f", cls, getfuncargnames)
                assert tuple(got) == getfuncargnames(f, name="f", cls=cls), (params, drop, cls)
                n += 1
    assert n > 1000


def test_argnames_of_what_is_not_plain_go_to_pytest(worker):
    import functools

    calls = []

    def spy(f, name, cls):
        calls.append(name)
        return getfuncargnames(f, name=name, cls=cls)

    def inner(x, y):
        pass

    @functools.wraps(inner)
    def wrapped(a):
        pass

    def signed(a, b):
        pass

    signed.__signature__ = None
    for f in (wrapped, signed, functools.partial(inner, 1)):
        worker["plain_funcargnames"](f, "f", None, spy)
    assert calls == ["f", "f", "f"]


@pytest.fixture
def run_folder(tmp_path):
    """A program folder; the finders the test installs and any module named
    solution are removed afterwards."""
    saved = list(sys.meta_path)
    sys.modules.pop("solution", None)
    yield tmp_path
    sys.meta_path[:] = saved
    sys.modules.pop("solution", None)


def write(folder, text):
    (folder / "solution.py").write_bytes(text.encode("utf-8"))


def path_in(folder):
    return os.path.join(str(folder), "solution.py")


def server_of(folder, compiled):
    return program.Server(None, path_in(folder), compiled, std_prefixes=())


def test_compiled_code_runs_while_the_file_is_unchanged(worker, run_folder):
    text = "VALUE = 1\n"
    compiled = worker["compile_program"](text, path_in(run_folder), {})
    assert compiled is not None and compiled[2] == path_in(run_folder)
    # A code object that tells itself apart from the file's.
    marked = (compile("VALUE = 'compiled by the worker'\n", compiled[2], "exec"), compiled[1], compiled[2])
    write(run_folder, text)
    mod = server_of(run_folder, marked).import_program()
    assert mod.VALUE == "compiled by the worker" and sys.modules["solution"] is mod
    assert mod.__file__ == path_in(run_folder) and mod.__spec__.name == "solution"


def test_a_changed_file_is_compiled_from_the_file(worker, run_folder):
    compiled = worker["compile_program"]("VALUE = 1\n", path_in(run_folder), {})
    write(run_folder, "VALUE = 2\n")
    assert server_of(run_folder, compiled).import_program().VALUE == 2


@pytest.mark.parametrize("text", ["x = '\\d'\n", "def f(:\n", "x = '\udc80'\n"])
def test_programs_the_worker_does_not_compile(worker, text):
    # A warning at compile time (the program process's compile shows it), a
    # syntax error, text that does not encode: the program process compiles
    # the file.
    assert worker["compile_program"](text, "/nowhere/solution.py", {}) is None


@pytest.mark.parametrize("precompiled", [False, True])
def test_an_error_at_import_shows_the_programs_frames_only(worker, run_folder, precompiled):
    text = "def f():\n    return 1\n\nraise ValueError('boom')\n"
    write(run_folder, text)
    compiled = worker["compile_program"](text, path_in(run_folder), {}) if precompiled else None
    server = server_of(run_folder, compiled)
    with pytest.raises(ValueError) as e:
        server.import_program()
    assert "solution" not in sys.modules
    frames, cut = server.frames_of(e.value)
    # This test's frame, then the program's module frame: no frame of
    # importlib or of the harness. The program's file is named as the
    # judge's copy of it, in the folder above the program's.
    assert [f[:2] for f in frames] == [[__file__, "test_an_error_at_import_shows_the_programs_frames_only"],
                                       [os.path.join(os.path.dirname(str(run_folder)), "solution.py"), "<module>"]]
    assert frames[1][3] == 4 and cut is None


def test_the_workers_spec_is_the_modules_where_it_names_the_file(run_folder):
    """A spec made before the fork (program_spec, once per worker) becomes
    the module's, loader and all, where it names the program's file; a spec
    of another file is not taken (the module gets one of its own)."""
    write(run_folder, "VALUE = 3\n")
    made = program.program_spec(path_in(run_folder))
    server = program.Server(None, path_in(run_folder), None, std_prefixes=(), spec=made)
    mod = server.import_program()
    assert mod.VALUE == 3 and mod.__spec__ is made and mod.__loader__ is made.loader
    assert made.has_location and made.origin == path_in(run_folder)
    assert mod.__loader__.get_source("solution") == "VALUE = 3\n"
    sys.modules.pop("solution", None)
    other = program.program_spec(os.path.join(str(run_folder), "elsewhere.py"))
    mod = program.Server(None, path_in(run_folder), None, std_prefixes=(), spec=other).import_program()
    assert mod.__spec__ is not other and mod.__spec__.origin == path_in(run_folder) and mod.VALUE == 3
