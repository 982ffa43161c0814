# triage sandbox harness: the judge's pytest, set up once in the worker and
# continued by each run's judge (see README.md, "One run").
#
# The Collector plugin streams collection and per-test results to the
# worker, one JSON line each; the judge alone writes that pipe (the
# program's process never holds it). Also here: pytest's warm-up run, the
# session every run continues, the stand-in program of a collection, and
# the assertion-rewritten test module the worker compiles once per test
# file.
import json
import os
import shutil
import struct
import sys
import time

def short_message(report):
    lr = report.longrepr
    if lr is None:
        return ""
    if isinstance(lr, tuple) and len(lr) == 3:
        return "SKIPPED: %s" % (lr[2],)
    crash = getattr(lr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message
    text = str(lr).strip().splitlines()
    return text[-1] if text else ""


# Messages are authenticated with keyed BLAKE2b (a MAC by design, one C
# call, cheaper than HMAC-SHA256 for these short lines).


class Collector:
    """pytest plugin: streams collection and per-test results to a pipe.
    emit is set per run, in the judge, to a closure holding that run's
    pipe."""

    def __init__(self):
        self.emit = lambda obj: None
        self.coverage = False
        self.tracing = False  # the lines of solution.py that run are the current test's (coverage)
        self.text_cap = 16000
        self.phases = {}
        self.lines = None
        self.cpu = None  # CPU marks (ns) of collection and the tests, when a benchmark asks

    def pytest_collectreport(self, report):
        if report.failed:
            self.emit({"t": "collect_error", "nodeid": report.nodeid, "text": report.longreprtext[: self.text_cap]})

    def pytest_collection_finish(self, session):
        if self.cpu is not None:
            self.cpu["collected"] = time.process_time_ns()
        self.emit({"t": "collected", "names": [it.nodeid for it in session.items]})
        map_source_files()

    def pytest_runtest_logreport(self, report):
        st = self.phases.setdefault(report.nodeid, {"dur": 0.0, "failed": False, "call": None, "msg": "", "text": []})
        st["dur"] += float(getattr(report, "duration", 0.0) or 0.0)
        if report.when == "call":
            st["call"] = report.outcome
            if hasattr(report, "wasxfail"):
                st["call"] = "xfail" if report.skipped else "passed"
        if report.failed:
            st["failed"] = True
        if (report.failed or report.skipped) and not st["msg"]:
            st["msg"] = short_message(report)
        if report.failed:
            prefix = "" if report.when == "call" else "[error at %s]\n" % report.when
            st["text"].append(prefix + report.longreprtext[: self.text_cap])
        if report.when == "teardown":
            self.phases.pop(report.nodeid, None)
            ev = {"t": "test", "name": report.nodeid, "passed": st["call"] == "passed" and not st["failed"],
                  "dur_ms": st["dur"] * 1000.0, "msg": st["msg"][:2000], "text": "\n".join(st["text"])[: self.text_cap]}
            if self.lines is not None:
                ev["lines"] = sorted(self.lines)
            self.emit(ev)


def map_source_files():
    """Record in inspect's cache which modules test_solution.py and
    solution.py are, exactly as its scan of sys.modules would on the first
    traceback of a failing test. That scan touches every module object of
    the worker, copying its pages into the child: about a tenth of a run's
    CPU on the bench mix. A module that does not go by its own name is left
    to the scan."""
    import inspect

    for name in ("test_solution", "solution"):
        mod = sys.modules.get(name)
        if not inspect.ismodule(mod) or getattr(mod, "__name__", None) != name or not isinstance(getattr(mod, "__file__", None), str):
            continue
        try:
            f = inspect.getabsfile(mod)
            inspect.modulesbyfile[f] = inspect.modulesbyfile[os.path.realpath(f)] = name
            inspect._filesbymodname[name] = mod.__file__
        except (TypeError, ValueError, OSError):
            pass




def make_emitter(wfd):
    """A closure that writes one event line on the result pipe wfd."""
    dumps, write = json.dumps, os.write

    def emit(obj):
        data = dumps(obj).encode() + b"\n"
        try:
            while data:
                n = write(wfd, data)
                data = data[n:]
        except OSError:
            pass

    return emit


def parse_lines(buf):
    """A run's events from its result pipe's bytes; a line that is not an
    event (the judge died while writing it) is left out."""
    events = []
    for line in bytes(buf).split(b"\n"):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if type(ev) is dict:
            events.append(ev)
    return events


def start_line_tracing(collector):
    """From now on the lines of solution.py the program process runs for
    the judge's requests go into a new collector.lines (judge.Client asks
    for them): the Coverage plugin around pytest's protocol of a test, and
    the direct runner around its own."""
    collector.lines = set()
    collector.tracing = True


def stop_line_tracing(collector):
    collector.tracing = False


def make_plugins(collector):
    import pytest

    class Coverage:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            if not collector.coverage:
                yield
                return
            start_line_tracing(collector)
            try:
                yield
            finally:
                stop_line_tracing(collector)

    class Phases:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            cpu = collector.cpu
            if cpu is None:
                yield
                return
            began = time.process_time_ns()
            try:
                yield
            finally:
                cpu["tests"] = cpu.get("tests", 0) + time.process_time_ns() - began

    return [collector, Coverage(), Phases()]


def pyc_stamp(st):
    """(modification time, size) of a source file's os.stat result as a
    pyc's header holds them (and pytest's _read_pyc checks them)."""
    return int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF


ARGS = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-p", "no:threadexception", "--tb=short",
        "test_solution.py"]

WARM_SOLUTION = '''
def add(a, b):
    return a + b

class Stack:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()
'''

WARM_TEST = '''
import pytest
from solution import add, Stack

@pytest.mark.parametrize("a,b,expected", [(1, 2, 3), (2, 2, 5), ("a", "b", "ab")])
def test_add(a, b, expected):
    assert add(a, b) == expected

def test_approx():
    assert add(0.1, 0.2) == pytest.approx(0.3)
    assert [add(0.1, 0.2)] == pytest.approx([0.3])

def test_raises():
    with pytest.raises(IndexError, match="empty"):
        Stack().pop()

@pytest.fixture
def stack():
    s = Stack()
    s.push(1)
    yield s

def test_fixture(stack, tmp_path, capsys, monkeypatch):
    print("hello")
    monkeypatch.setattr("os.sep", "/")
    (tmp_path / "f.txt").write_text("x")
    assert capsys.readouterr().out == "hello\\n"
    assert stack.pop() == 1

def test_diff():
    assert {"a": [1, 2, 3], "b": "xyz"} == {"a": [1, 2, 4], "b": "xyw"}

class TestCls:
    def test_m(self):
        assert "abc" in "xabcx"

@pytest.mark.skip(reason="warm")
def test_skip():
    pass

@pytest.mark.xfail
def test_xfail():
    assert 0
'''


def warm_up(wd):
    """Run pytest once in-process so every lazily imported module is loaded."""
    import pytest

    os.makedirs(wd, exist_ok=True)
    with open(os.path.join(wd, "solution.py"), "w") as f:
        f.write(WARM_SOLUTION)
    with open(os.path.join(wd, "test_solution.py"), "w") as f:
        f.write(WARM_TEST)
    # A test file whose import meets a syntax error: pytest's text of that
    # collection error shows frames of its own files, and the statement
    # ranges of those (a parse of each file) are learned here, once
    # (memoize_statement_ranges), instead of in every such run's child.
    with open(os.path.join(wd, "warm_broken.py"), "w") as f:
        f.write("def broken(:\n    pass\n")
    with open(os.path.join(wd, "test_warm_broken.py"), "w") as f:
        f.write("from warm_broken import broken\n\n\ndef test_broken():\n    broken()\n")
    cwd = os.getcwd()
    os.chdir(wd)
    c = Collector()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    try:
        pytest.main(ARGS[:-1] + ["--continue-on-collection-errors", ARGS[-1], "test_warm_broken.py"], plugins=make_plugins(c))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    os.chdir(cwd)
    for name in list(sys.modules):
        mod = sys.modules.get(name)
        f = getattr(mod, "__file__", None) or ""
        if name in ("solution", "test_solution") or f.startswith(wd):
            del sys.modules[name]
    sys.path[:] = [p for p in sys.path if not p.startswith(wd)]
    for k in list(sys.path_importer_cache):
        if k.startswith(wd):
            del sys.path_importer_cache[k]
    shutil.rmtree(wd, ignore_errors=True)
    # pytest's failure text finds a statement's end with tokenize, whose
    # patterns are compiled on first use: compiled here, once, not in every
    # run's child that reports a failure (about 7 ms each).
    import tokenize

    tokenize._compile(tokenize.PseudoToken)
    for pattern in set(tokenize.endpats.values()):
        if pattern:
            tokenize._compile(pattern)




def install_stub_solution(emit):
    """A module standing in for solution.py while the test file is collected
    without any program: every name imports, and any use of what was imported
    (a call, a public attribute, a comparison) marks the collected ids as
    unreliable (the test file computes parameters from the program)."""
    import types

    touched = []

    def touch(*a, **k):
        if not touched:
            touched.append(1)
            emit({"t": "stub_touched"})
        return None

    class Stub:
        __slots__ = ()

        def __getattr__(self, name):
            # pytest probes collected names for _private and dunder markers
            # (__test__, _pytestfixturefunction); a test file reading a public
            # attribute of the program at collection time is what counts.
            if not name.startswith("_"):
                touch()
            raise AttributeError(name)

    for dunder in ("__call__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
                   "__len__", "__iter__", "__getitem__", "__contains__", "__repr__", "__str__", "__format__",
                   "__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__neg__", "__index__",
                   "__int__", "__float__", "__mro_entries__", "__instancecheck__", "__subclasscheck__", "__enter__"):
        def meth(self, *a, _d=dunder, **k):
            touch()
            if _d in ("__hash__", "__len__", "__index__", "__int__"):
                return 0
            if _d in ("__repr__", "__str__", "__format__"):
                return "<stub>"
            if _d == "__bool__":
                return True
            if _d == "__iter__":
                return iter(())
            if _d == "__float__":
                return 0.0
            if _d == "__mro_entries__":
                return (object,)
            return NotImplemented if _d in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__") else None
        setattr(Stub, dunder, meth)

    class StubModule(types.ModuleType):
        def __getattr__(self, name):
            # No __all__: a star import brings nothing, so the ids are those
            # of the test file's own tests.
            if name.startswith("__"):
                raise AttributeError(name)
            return Stub()

    sys.modules["solution"] = StubModule("solution")



def start_session(config):
    """Everything of pytest's wrap_session before collection, done once in
    the worker: configure every plugin and start the session (fixture
    manager, setup state). Each run's child continues from this state."""
    from _pytest.main import Session
    from _pytest.config import ExitCode

    config._do_configure()
    # The terminal reporter only renders text nobody reads; its options stay.
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        config.pluginmanager.unregister(tr)
    session = Session.from_config(config)
    session.exitstatus = ExitCode.OK
    config.hook.pytest_sessionstart(session=session)
    return session


def run_session(config, session, collector):
    """The rest of pytest's wrap_session and _main: collect, run, finish."""
    from _pytest.config import ExitCode
    from _pytest.outcomes import Exit, Failed
    from _pytest.main import _main

    try:
        try:
            session.exitstatus = _main(config, session) or 0
        except Failed:
            session.exitstatus = ExitCode.TESTS_FAILED
        except (KeyboardInterrupt, Exit) as e:
            session.exitstatus = ExitCode.INTERRUPTED
            if isinstance(e, Exit) and e.returncode is not None:
                session.exitstatus = e.returncode
            collector.emit({"t": "internal", "text": "%s: %s" % (type(e).__name__, e)})
        except BaseException as e:  # noqa: BLE001 - pytest's own internal-error path
            session.exitstatus = ExitCode.INTERNAL_ERROR
            collector.emit({"t": "internal", "text": "%s: %s" % (type(e).__name__, e)})
    finally:
        try:
            config.hook.pytest_sessionfinish(session=session, exitstatus=session.exitstatus)
        except Exit as e:
            if e.returncode is not None:
                session.exitstatus = e.returncode
        except BaseException as e:  # noqa: BLE001
            collector.emit({"t": "internal", "text": "sessionfinish: %s: %s" % (type(e).__name__, e)})
    try:
        return int(session.exitstatus)
    except (TypeError, ValueError):
        return int(ExitCode.INTERNAL_ERROR)



def make_pyc_placer(config, work):
    """Give a run's judge pytest's assertion-rewritten test module, so a
    test file is parsed, rewritten and compiled once per worker rather than
    once per run: as the code object the direct runner executes, and as the
    cached pyc pytest's import reads (root's, in the run folder, which the
    program cannot write). The worker only parses and compiles, it never
    runs the file. The cache lives in this closure."""
    import hashlib
    import importlib.util
    import marshal
    import warnings
    from pathlib import Path
    from _pytest.assertion import rewrite

    cache = {}
    limit = 512
    fn = Path(work) / "test_solution.py"

    def code_of(tests):
        """(the rewritten module's code object or None where it does not
        compile, its marshalled form, the test file's digest)."""
        key = hashlib.sha256(tests.encode("utf-8", "surrogatepass")).hexdigest()
        entry = cache.get(key)
        if entry is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    co = rewrite._rewrite_test(fn, config)[1]
                entry = (co, marshal.dumps(co))
            except Exception:  # noqa: BLE001 - the judge reports the error itself
                entry = (None, None)
            if len(cache) >= limit:
                cache.pop(next(iter(cache)))
            entry = entry + (key,)
            cache[key] = entry
        return entry

    def place(tests):
        body = code_of(tests)[1]
        if body is None:
            return
        st = os.stat(fn)
        cache_dir = rewrite.get_cache_dir(fn)
        os.makedirs(cache_dir, mode=0o700, exist_ok=True)
        header = importlib.util.MAGIC_NUMBER + b"\x00\x00\x00\x00" + struct.pack("<LL", *pyc_stamp(st))
        with open(cache_dir / ("test_solution" + rewrite.PYC_TAIL), "wb") as f:
            f.write(header + body)

    def entry_of(tests):
        """(digest, marshalled code) for the fork server, or None."""
        _, body, key = code_of(tests)
        return (key, body) if body is not None else None

    place.code_of = lambda tests: code_of(tests)[0]
    place.entry_of = entry_of
    return place


def capture_fds(config):
    """The descriptors of pytest's global capture files (fd capture): every
    run's judge shares them with the process that forks it, which empties
    them after each run (forkserver.reset_files)."""
    capman = config.pluginmanager.getplugin("capturemanager")
    mc = getattr(capman, "_global_capturing", None)
    fds = []
    for cap in (getattr(mc, "out", None), getattr(mc, "err", None)):
        try:
            fds.append(cap.tmpfile.fileno())
        except Exception:  # noqa: BLE001 - sys capture, or no capture: nothing shared
            pass
    return tuple(fds)


def share_tmp_paths(uid):
    """Let the program process (uid) use the folders pytest's tmp_path and
    tmp_path_factory make for a test (the judge makes them as root, mode
    0700): each one made is the program's uid's, and the base folders above
    them are open to pass through (not to list)."""
    if uid < 0 or os.getuid() != 0:
        return
    from _pytest.tmpdir import TempPathFactory

    getbasetemp, mktemp = TempPathFactory.getbasetemp, TempPathFactory.mktemp

    def shared_basetemp(self):
        p = getbasetemp(self)
        for d in (p, p.parent):
            try:
                if d.stat().st_uid == 0:
                    os.chmod(d, 0o711)
            except OSError:
                pass
        return p

    def shared_mktemp(self, basename, numbered=True):
        p = mktemp(self, basename, numbered)
        try:
            os.chown(p, uid, uid)
        except OSError:
            pass
        return p

    shared_basetemp.__wrapped__, shared_mktemp.__wrapped__ = getbasetemp, mktemp
    TempPathFactory.getbasetemp, TempPathFactory.mktemp = shared_basetemp, shared_mktemp


def std_prefixes():
    """The folders of the interpreter's standard library and installed
    packages: a module or class from there crosses by name, each side using
    its own."""
    import sysconfig

    prefixes = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = paths.get(key)
        if p:
            prefixes.add(p.rstrip("/") + "/")
            prefixes.add(os.path.realpath(p).rstrip("/") + "/")
    for p in sys.path:
        if p.endswith("-packages") or p.endswith("lib-dynload"):
            prefixes.add(p.rstrip("/") + "/")
    return tuple(sorted(prefixes))
