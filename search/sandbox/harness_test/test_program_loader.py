"""worker.py's plain_funcargnames (pytest's getfuncargnames read from a plain
function's code) and the solution.py loader of a run's child
(compile_program, install_program_loader): the code compiled by the worker
runs only while the file holds the bytes it was compiled from, and an error
at import reads as after a plain import."""
import itertools
import os
import sys
import traceback

import pytest
from _pytest.compat import getfuncargnames


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
def run_folder(worker, tmp_path, monkeypatch):
    """worker.py's WORK pointed at tmp_path, on sys.path, with no module
    named solution loaded; the finders the test installs are removed."""
    monkeypatch.setitem(worker, "WORK", str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    saved = list(sys.meta_path)
    sys.modules.pop("solution", None)
    yield tmp_path
    sys.meta_path[:] = saved
    sys.modules.pop("solution", None)


def write(folder, text):
    (folder / "solution.py").write_bytes(text.encode("utf-8"))


class Clock:
    def __init__(self):
        self.events = []

    def enter(self):
        self.events.append("enter")

    def leave(self, kind):
        self.events.append(kind)


def test_compiled_code_runs_while_the_file_is_unchanged(worker, run_folder):
    text = "VALUE = 1\n"
    program = worker["compile_program"](text, {})
    assert program is not None and program[2] == os.path.join(str(run_folder), "solution.py")
    # A code object that tells itself apart from the file's.
    marked = (compile("VALUE = 'compiled by the worker'\n", program[2], "exec"), program[1], program[2])
    write(run_folder, text)
    clock = Clock()
    worker["install_program_loader"](clock, marked)
    import solution

    assert solution.VALUE == "compiled by the worker"
    assert clock.events == ["enter", "import"]


def test_a_changed_file_is_compiled_from_the_file(worker, run_folder):
    program = worker["compile_program"]("VALUE = 1\n", {})
    write(run_folder, "VALUE = 2\n")
    worker["install_program_loader"](None, program)
    import solution

    assert solution.VALUE == 2


@pytest.mark.parametrize("text", ["x = '\\d'\n", "def f(:\n", "x = '\udc80'\n"])
def test_programs_the_worker_does_not_compile(worker, text):
    # A warning at compile time (the child's compile shows it to pytest), a
    # syntax error, text that does not encode: the child compiles the file.
    assert worker["compile_program"](text, {}) is None


@pytest.mark.parametrize("precompiled", [False, True])
def test_an_error_at_import_reads_as_a_plain_import(worker, run_folder, precompiled):
    text = "def f():\n    return 1\n\nraise ValueError('boom')\n"
    write(run_folder, text)
    worker["install_program_loader"](Clock(), worker["compile_program"](text, {}) if precompiled else None)
    with pytest.raises(ValueError) as e:
        import solution  # noqa: F401
    files = [fr.filename for fr in traceback.extract_tb(e.value.__traceback__)]
    # This test's frame, then the program's: no frame of importlib or of the harness.
    assert files == [__file__, os.path.join(str(run_folder), "solution.py")]


def test_import_module_shows_importlibs_frames_only(worker, run_folder):
    import importlib

    text = "raise ValueError('boom')\n"
    write(run_folder, text)
    worker["install_program_loader"](None, worker["compile_program"](text, {}))
    with pytest.raises(ValueError) as e:
        importlib.import_module("solution")
    frames = traceback.extract_tb(e.value.__traceback__)
    assert not any("worker.py" in fr.filename for fr in frames)
    loader = [fr for fr in frames if fr.name == "exec_module"]
    # The exec line where importlib's own exec_module has it.
    import importlib._bootstrap_external as ibe

    code = ibe._LoaderBasics.exec_module.__code__
    assert [(fr.filename, fr.lineno) for fr in loader] == [(code.co_filename, code.co_firstlineno + 6)]
