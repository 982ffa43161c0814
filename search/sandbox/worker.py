# triage sandbox worker: a warm pytest process that forks one child per run.
#
# Started by search/sandbox (Go) as `python3 -s worker.py CONFIG_JSON`, in an
# environment of Go's own with PYTHONHASHSEED=0 (hash order is the same in
# every run), with
# fd 3 = requests (Go -> worker) and fd 4 = responses (worker -> Go); each
# message is a 4-byte big-endian length and a JSON object. guard.py,
# confine.py, compare.py and recheck.py lie beside this file; they are loaded
# into private namespaces (not modules), so nothing in sys.modules leads to
# them.
#
# Start-up, as PID 1 of fresh pid/net/mount/ipc/uts namespaces when Go could
# create them: install the audit hook (inert until a run arms it), import and
# warm pytest, build the new root from what was imported and pivot into it
# (confine.py), build one pytest Config and Session for /sandbox, install the
# worker's seccomp filter, say hello.
#
# Requests (see pool.go):
#   run      the pytest harness: write solution.py and test_solution.py (plus
#            the cached assertion-rewritten pyc), fork a child that drops
#            privileges, sets rlimits, adds the no-signal-handler filter, arms
#            the audit hook, statically checks the program and continues the
#            warm Session; per-test reports stream back on a pipe, each line
#            signed with a per-run key (keyed BLAKE2b over a sequence number
#            and the line) and checked here; lines that fail the check are
#            counted as forged.
#   collect  the same, with a stand-in for solution.py and --collect-only: the
#            test ids of the test file, taken without running any program.
#   recheck  the independent harness of recheck.py in a fresh child, for runs
#            that passed every test.
# After each child every other process of the namespace is killed and reaped.
# Inside its pid namespace the worker has its children forked by a fork
# server, a copy of itself made once after start-up (see "fork server"
# below), so that the worker's own pages are never shared with a child's.
import os
import sys

# This file's folder is not a place to import from (what -I's -P does): the
# harness files beside it are loaded privately, never as modules.
if sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]


# Each fork copies the page-table entries of the forking process's pages and
# each child's exit unmaps them: with 4 KiB pages that was about 9,000
# entries and about 3 ms of CPU a run on these VMs (perf). The fork server makes its
# memory 2 MiB huge pages (see "fork server"), one entry for 512, but only
# whole, aligned 2 MiB of one mapping can become one, and Python's objects
# live in 1 MiB arenas, each its own mapping, which interleave with the
# libraries imported later. So, before any import, this makes the arenas the
# worker's objects will need in one run of address space, and keeps each by
# one small object (an arena with a live object is never given back): the
# worker's objects then fill these first.
ARENA_RESERVE_MB = 24


def reserve_arenas(mb):
    """Objects that keep about mb MiB of object arenas made in a row: one
    per 512 KiB of the blocks that filled them (an arena spans 1 MiB)."""
    blocks = [bytes(400) for _ in range(mb * 2400)]  # 448-byte blocks, about 1.07 MB per 2400
    keep = {}
    for b in blocks:
        keep.setdefault(id(b) >> 19, b)
    return list(keep.values())


ARENA_PINS = reserve_arenas(ARENA_RESERVE_MB)

import builtins
import fcntl
import gc
import hashlib
import hmac
import inspect
import json
import marshal
import mmap
import resource
import select
import shutil
import signal
import _signal
import socket
import struct
import tempfile
import threading
import time
import types
import warnings as _warnings

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = json.loads(sys.argv[1])
WORK = CFG["workdir"]
UID = int(CFG.get("uid", -1))
PID1 = os.getpid() == 1
ISOLATE = bool(CFG.get("mountns"))
# Layers switched off by the package's benchmarks (see options.go).
DISABLE = frozenset(CFG.get("disable") or ())
# unraisableexception/threadexception only turn exceptions in __del__ or
# threads into warnings (never into failures) and cost a context manager per
# test phase; cacheprovider would write .pytest_cache. Verdicts do not change.
ARGS = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-p", "no:threadexception", "--tb=short", "test_solution.py"]
MAX_EVENT_BYTES = 32 << 20
MAX_RECHECK_BYTES = 1 << 20

protections = []
warnings = []


def load_private(name, snapshot):
    """Execute a harness file beside this one into a fresh namespace with its
    own copy of the builtins."""
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        src = f.read()
    ns = {"__name__": "triage_" + name.rsplit(".", 1)[0], "__file__": path, "__builtins__": dict(snapshot)}
    exec(compile(src, path, "exec"), ns)
    return ns


def write_msg(fd, obj):
    data = json.dumps(obj).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_msg(fd):
    head = read_exact(fd, 4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    body = read_exact(fd, n)
    if body is None:
        return None
    return json.loads(body)


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
def sign_line(key, seq, data):
    return hashlib.blake2b(b"%d:" % seq + data, key=key, digest_size=16).hexdigest().encode()


def mac32(key, data):
    return hashlib.blake2b(data, key=key, digest_size=32).digest()


class Collector:
    """pytest plugin: streams collection and per-test results to a pipe.
    emit is set per run, in the child, to a closure holding that run's pipe
    and key."""

    def __init__(self):
        self.emit = lambda obj: None
        self.coverage = False
        self.text_cap = 16000
        self.phases = {}
        self.lines = None
        self.cpu = None  # CPU marks (ns) of collection, when a benchmark asks
        self.clock = None  # ProgramClock: the program's own CPU, when counted

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


def make_emitter(wfd, key):
    """A closure that signs and writes one event line; the key and the
    sequence number live only in its cells."""
    seq = [0]
    dumps, write, blake = json.dumps, os.write, hashlib.blake2b

    def emit(obj):
        data = dumps(obj).encode()
        mac = blake(b"%d:" % seq[0] + data, key=key, digest_size=16).hexdigest().encode()
        seq[0] += 1
        data = mac + b" " + data + b"\n"
        try:
            while data:
                n = write(wfd, data)
                data = data[n:]
        except OSError:
            pass

    return emit


def verify_lines(buf, key):
    """Split a run's event stream into the events whose signature and
    sequence number check out, and the count and a sample of lines that do
    not (forged)."""
    events, forged, sample = [], 0, ""
    seq = 0
    for line in bytes(buf).split(b"\n"):
        if not line.strip():
            continue
        mac, _, data = line.partition(b" ")
        if mac and hmac.compare_digest(mac, sign_line(key, seq, data)):
            try:
                events.append(json.loads(data))
                seq += 1
                continue
            except ValueError:
                pass
        forged += 1
        if not sample:
            sample = line[:200].decode("utf-8", "replace")
    return events, forged, sample


def _make_tracer(lines):
    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def glob(frame, event, arg):
        if os.path.basename(frame.f_code.co_filename) == "solution.py":
            return local
        return None

    return glob


def start_line_tracing(collector):
    """Record into a new collector.lines the lines of solution.py that run
    from now on, in this thread and in threads started later. It and
    stop_line_tracing are the only harness code the audit hook lets set a
    tracer; the Coverage plugin (pytest's protocol of a test) and the
    direct runner both go through them."""
    collector.lines = set()
    tr = _make_tracer(collector.lines)
    sys.settrace(tr)
    threading.settrace(tr)


def stop_line_tracing():
    sys.settrace(None)
    threading.settrace(None)


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
                stop_line_tracing()

    class Phases:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            clock = collector.clock
            if clock is None:
                yield
                return
            clock.enter()
            try:
                yield
            finally:
                clock.leave("tests")

    return [collector, Coverage(), Phases()]


class ProgramClock:
    """Counts the CPU of the program's own code in a run's child: executing
    solution.py's module code (its import) and the test bodies (pytest's
    call phase), a nested one (an import inside a test) once. With shared,
    an mmap the worker reads, it also publishes the count there: [0:8] the
    CPU of the finished phases, [8:16] the child's CPU clock when the open
    phase began (0: none is open), so that the worker can stop a loop at the
    program's own budget (program_cpu_limit_s) instead of at the whole
    count's limit, most of which is pytest's allowance. The program can
    write that memory too, so the budget can only end a run sooner: the
    whole count's limit holds whatever it says."""

    def __init__(self, shared=None):
        self.shared = shared
        self.depth = 0
        self.began = 0
        self.used = {"import": 0, "tests": 0}
        self._now = time.process_time_ns
        self._pack = struct.pack_into

    def enter(self):
        if self.depth == 0:
            self.began = self._now()
            self._publish(8, self.began)
        self.depth += 1

    def leave(self, kind):
        self.depth = max(0, self.depth - 1)
        if self.depth:
            return
        self.used[kind] += self._now() - self.began
        # The open mark goes first: a worker reading between the two writes
        # undercounts for a moment, never counts the phase twice.
        self._publish(8, 0)
        self._publish(0, self.used["import"] + self.used["tests"])

    def pause(self):
        """Stop counting inside an open phase (pytest's own work within a
        test body); returns what resume needs, None when nothing was open."""
        if self.depth == 0:
            return None
        depth, self.depth = self.depth, 1
        self.leave("tests")
        return depth

    def resume(self, depth):
        if depth:
            self.enter()
            self.depth = depth

    def _publish(self, offset, value):
        if self.shared is not None:
            try:
                self._pack("<q", self.shared, offset, value)
            except (ValueError, TypeError, struct.error):
                pass


def _import_frames_layout():
    """The first line of importlib's _LoaderBasics.exec_module when its
    statements sit where this Python's (3.11) do: the def, the docstring,
    get_code, the None check over three lines and the exec; else None."""
    try:
        import importlib._bootstrap_external as ibe

        code = ibe._LoaderBasics.exec_module.__code__
        lines = sorted({line for _, _, line in code.co_lines() if line})
    except (ImportError, AttributeError):
        return None
    first = code.co_firstlineno
    if lines != [first, first + 2, first + 3, first + 4, first + 5, first + 6] or \
            code.co_filename != "<frozen importlib._bootstrap_external>":
        return None
    return first


def _make_exec_module_factory():
    """The factory of solution.py's exec_module in a run's child (see
    install_program_loader). Its code carries importlib's file name, and
    where this Python's layout is known, importlib's line numbers: CPython
    trims from the traceback of an error at import each chunk of importlib
    frames that ends in _call_with_frames_removed, and this frame belongs to
    that chunk, so the program's error reads as after a plain import (no
    frame of the harness in pytest's collection error); where nothing trims
    (importlib.import_module), the frame reads as importlib's own."""
    body = (
        "def exec_module(module):\n"
        "    try:\n"
        "        _enter(); code = _pick() or _get_code(module.__name__)\n"
        "        if code is None:\n"
        "            raise ImportError('cannot load module {!r} when get_code() '\n"
        "                              'returns None'.format(module.__name__))\n"
        "        _call_removed(_exec, code, module.__dict__)\n"
        "    finally:\n"
        "        _leave()\n"
    )
    head = "def make(_enter, _leave, _pick, _get_code, _call_removed, _exec):\n"
    first = _import_frames_layout()
    pad = "\n" * (first - 2) if first is not None and first >= 2 else ""
    text = pad + head + "".join("    " + line + "\n" for line in body.splitlines()) + "    return exec_module\n"
    ns = {"__builtins__": builtins}
    exec(compile(text, "<frozen importlib._bootstrap_external>", "exec", dont_inherit=True), ns)
    return ns["make"]


make_exec_module = _make_exec_module_factory()


def pyc_stamp(st):
    """(modification time, size) of a source file's os.stat result as a
    pyc's header holds them (and pytest's _read_pyc checks them)."""
    return int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF


def read_file_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def compile_program(program, ctx):
    """solution.py's code object as the import system would compile the file
    write_run_files writes, compiled here once (a run's child and its
    re-check then skip the compiler, whose allocations cost a forked child
    about a hundred page copies): (code, bytes, path), or None where the
    child compiles it itself (a syntax error, a warning at compile time,
    text that does not encode)."""
    cached = ctx.get("program_code")
    if cached is not None and cached[0] == program:
        return cached[1]
    out = None
    try:
        data = program.encode("utf-8")
        path = os.path.join(WORK, "solution.py")
        with _warnings.catch_warnings(record=True) as seen:
            _warnings.simplefilter("always")
            code = compile(data, path, "exec", dont_inherit=True, optimize=-1)
        if not seen:
            out = (code, data, path)
    except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError, OverflowError):
        out = None
    ctx["program_code"] = (program, out)
    return out


class ProgramFinder:
    """The meta path finder of solution.py in a run's child (see
    install_program_loader); one class for every child, an instance each."""

    def __init__(self, enter, leave, program):
        import importlib._bootstrap as bootstrap
        import importlib.machinery

        self.enter, self.leave, self.program = enter, leave, program
        self.path_finder, self.loader_type = importlib.machinery.PathFinder, importlib.machinery.SourceFileLoader
        self.call_removed = bootstrap._call_with_frames_removed

    def find_spec(self, name, path=None, target=None):
        if name != "solution":
            return None
        spec = self.path_finder.find_spec(name, path)
        loader = spec.loader if spec is not None else None
        if type(loader) is not self.loader_type:
            return spec
        program = self.program

        def pick(origin=spec.origin):
            if program is not None and origin == program[2] and read_file_bytes(origin) == program[1]:
                return program[0]
            return None

        loader.exec_module = make_exec_module(self.enter, self.leave, pick, loader.get_code, self.call_removed, exec)
        return spec


def install_program_loader(clock, program):
    """Load solution.py in this child with program's code object (from
    compile_program) where the file still holds the bytes it was compiled
    from, else as the import system does; count the CPU of executing its
    module code (its import) on clock, if any."""
    if clock is None and program is None:
        return
    noop = lambda: None  # noqa: E731
    enter = clock.enter if clock is not None else noop
    leave = (lambda: clock.leave("import")) if clock is not None else noop
    sys.meta_path.insert(0, ProgramFinder(enter, leave, program))


def phase_ms(cpu, clock):
    """The phases a benchmark reports, in ms, from the child's counters."""
    start = cpu["start"]
    collected = cpu.get("collected") or time.process_time_ns()
    imp = clock.used["import"]
    return {"import": imp / 1e6, "collection": max(0, collected - start - imp) / 1e6, "tests": clock.used["tests"] / 1e6}


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


def memoize_statement_ranges():
    """Make pytest's getstatementrange_ast remember its answers for the
    life of a run's child (statement_range_memo). A failing test's text
    parses the whole file of every frame it shows and walks its tree to
    find the failing statement; a run with many failing tests parsed the
    same test file and program again for each (about a sixth of a failing
    run's CPU). The worker forks with the memo empty: what a child adds
    dies with it."""
    from _pytest._code import code as pytest_code

    memo = statement_range_memo(pytest_code.getstatementrange_ast)
    pytest_code.getstatementrange_ast = memo
    return memo


def cache_traceback_frames():
    """While pytest writes a failure's text (Node._repr_failure_py), give
    each traceback entry's frame (TracebackEntry.frame) once and the same
    Frame after: an entry's tb_frame never changes, and pytest reads it
    again and again (cut, filter, the recursion check, each line), each
    read an audit event the sandbox's hook checks against the stack. A
    recursion's failure made some 4,000 entries and 20,000 reads per test.
    Outside that call, and after it (the cache is dropped), frame is
    pytest's own. Installed before the audit hook's spec is built: the
    hook lets pytest's code read tb_frame by code identity, and this getter
    is counted as pytest's as a property of its class (module_code_ids)."""
    from _pytest import nodes
    from _pytest._code import code as pytest_code

    entry_type, frame_type = pytest_code.TracebackEntry, pytest_code.Frame
    inner = getattr(nodes.Node, "_repr_failure_py", None)
    if not isinstance(inspect.getattr_static(entry_type, "frame", None), property) or inner is None:
        return
    cache = {}  # id(raw entry) -> (raw entry, Frame); the entry held so its id stays its own
    active = [0]

    def frame(self):
        raw = self._rawentry
        if not active[0]:
            return frame_type(raw.tb_frame)
        hit = cache.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1]
        f = frame_type(raw.tb_frame)
        cache[id(raw)] = (raw, f)
        return f

    def _repr_failure_py(self, excinfo, style=None):
        active[0] += 1
        try:
            return inner(self, excinfo, style)
        finally:
            active[0] -= 1
            if not active[0]:
                cache.clear()

    frame.__doc__ = inspect.getattr_static(entry_type, "frame").__doc__
    entry_type.frame = property(frame)
    _repr_failure_py.__wrapped__ = inner
    nodes.Node._repr_failure_py = _repr_failure_py


def warm_module_scan():
    """Map every loaded module's file in inspect's caches, as the scan of
    inspect.getmodule does on its first miss: done once here, a run's child
    that reports a collection error (or any text of pytest's that looks up
    the module of a frame of the program's) finds every module of the
    worker mapped and resolves no path (the scan took 15-20 ms of such a
    child, a realpath of every module's file)."""
    try:
        inspect.getmodule(compile("", os.path.join(HERE, "<no module>"), "exec"))
    except Exception:  # noqa: BLE001 - a cache left cold costs time, not a verdict
        pass


def pause_clock_in_explanations(collector, rewrite=None):
    """Charge pytest's explanation of a failing assert to pytest, not to
    the program. The rewritten test module calls these helpers of
    pytest's rewrite from inside the test body, where the program's clock
    runs, and on a failing `==` of two lists `_call_reprcompare` diffs
    their pretty-printed forms: 25–33 ms of CPU for an MBPP mutant whose
    reference counted 2.5 ms, more than a budget that follows the machine.
    A program that calls them itself only stops its own clock, which it
    can do anyway (the clock's memory is in reach): the budget is an
    early stop, and the whole limit is counted from outside. rewrite:
    pytest's rewrite module, or a stand-in (tests)."""
    if rewrite is None:
        from _pytest.assertion import rewrite

    def paused(fn):
        def helper(*args, **kwargs):
            clock = collector.clock
            depth = clock.pause() if clock is not None else None
            try:
                return fn(*args, **kwargs)
            finally:
                if depth:
                    clock.resume(depth)

        helper.__wrapped__ = fn
        return helper

    for name in ("_call_reprcompare", "_saferepr", "_format_explanation", "_format_assertmsg"):
        fn = getattr(rewrite, name, None)
        if callable(fn):
            setattr(rewrite, name, paused(fn))


# Characters that str.splitlines breaks a line at besides "\n" (and "\r",
# which the universal-newline read of a source file leaves none of): pytest
# splits a frame's source with splitlines after joining it, so a line with
# one of these is not the line at its index any more.
SPLITLINES_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class ShortFailure:
    """A failing test's --tb=short text, as pytest's ExceptionChainRepr
    would write it (toterminal), with its crash location (reprcrash, what
    the short summary shows)."""

    __slots__ = ("text", "reprcrash")

    def __init__(self, text, reprcrash):
        self.text, self.reprcrash = text, reprcrash

    def toterminal(self, tw):
        tw.write(self.text)


def short_failure_text(excinfo, func, workdir):
    """pytest's --tb=short text of the failure excinfo of the test function
    func, without pytest's formatting machinery (FormattedExcinfo, its
    statement ranges, TerminalWriter): a failing test's text costs a run's
    child about 5 ms and 150 page faults that way, most of its reporting.
    None for every shape whose text could differ from pytest's, which then
    writes it: a chained exception, a RecursionError whose frames' locals
    pytest would compare while they hold more than plain data (see
    recursion_index), an exception group, pytest.fail(pytrace=False), a frame of
    a file outside workdir (or gone from it), a frame with __tracebackhide__ (or
    namespaces that are not plain dicts), a traceback that does not start
    at the test function, a frame whose line pytest would not find as is
    (a blank or comment line, outside its function, a file with a character
    that splitlines breaks at), a working directory that moved (pytest then
    writes absolute paths). The source is read as inspect.findsource reads
    it for pytest (linecache, checked against the file first).

    What pytest writes, for these shapes (FormattedExcinfo.repr_traceback
    with style short after Function._prunetraceback, ReprEntry.toterminal):
    for each frame "<file>:<line>: in <name>", its source line stripped
    behind four spaces; after the last, each line of the exception's
    exconly(tryshort=True) behind "E   ". A RecursionError's frames end at
    the first whose position and locals repeat an earlier frame's, with
    "!!! Recursion detected (same locals & position)" after the exception
    (FormattedExcinfo._truncate_recursive_traceback); its crash location is
    still the deepest frame's. Such a failure has some 1,000 frames: pytest's
    formatter took 10-15 ms of a run's child for each, this well under one
    (each file's checks are made once, not once per frame)."""
    import linecache

    from _pytest.outcomes import Failed

    e = excinfo.value
    if isinstance(e, BaseExceptionGroup) or (isinstance(e, Failed) and not e.pytrace):
        return None
    if e.__cause__ is not None or (e.__context__ is not None and not e.__suppress_context__):
        return None
    try:
        if os.getcwd() != workdir:
            return None
    except OSError:
        return None
    code0 = getattr(getattr(func, "__func__", func), "__code__", None)
    t = excinfo.tb
    if t is None or t.tb_frame.f_code is not code0:
        return None
    # In the sandbox every id() and f_code read is an audit event, and each
    # tb_frame read several: a recursion's 1,000 frames are read once each
    # and matched by identity without id() (numbers).
    recursion = isinstance(e, RecursionError)
    entries = []  # (file, line, code's name, source line) of each frame
    frames = []  # ((number of the code object, line), locals) of each frame, for a recursion
    files = {}  # file -> its lines, for the files found in workdir (checked once)
    spans = {}  # (file, code's first line, line) -> the source line shown
    numbers = {}  # code -> [(code object, its number, its name)], of those equal to it in value
    while t is not None:
        frame = t.tb_frame
        code = frame.f_code
        same = numbers.setdefault(code, [])
        for c, number, name in same:
            if c is code:
                break
        else:
            number, name = len(entries), code.co_name.split("\n", 1)[0]  # len(entries): new at each frame
            same.append((code, number, name))
        fn = code.co_filename
        lines = files.get(fn) if type(fn) is str else None
        if lines is None:
            if type(fn) is not str or os.path.dirname(fn) != workdir or not os.path.exists(fn):
                return None
            linecache.checkcache(fn)
            lines = files[fn] = linecache.getlines(fn)
        loc, glob = frame.f_locals, frame.f_globals
        if type(loc) is not dict or type(glob) is not dict or "__tracebackhide__" in loc or "__tracebackhide__" in glob:
            return None
        lineno = t.tb_lineno
        first = code.co_firstlineno - 1
        src = spans.get((fn, first, lineno))
        if src is None:
            if type(lineno) is not int or lineno < 1 or first < 0 or first > lineno - 1 or lineno > len(lines):
                return None
            src = lines[lineno - 1].strip()
            if not src or src.startswith("#") or any(c in line for line in lines[first:lineno] for c in SPLITLINES_BREAKS):
                return None
            spans[(fn, first, lineno)] = src
        entries.append((fn, lineno, name, src))
        if recursion:
            frames.append(((number, lineno), loc))
        t = t.tb_next
    shown, extra = entries, ""
    if recursion:
        try:
            index = recursion_index(frames)
        except NotPlainData:
            return None
        if index is not None:
            shown, extra = entries[:index + 1], "!!! Recursion detected (same locals & position)\n"
    out = ["%s:%d: in %s\n    %s\n" % (os.path.basename(fn), lineno, name, src) for fn, lineno, name, src in shown]
    out.extend("E   %s\n" % line for line in excinfo.exconly(tryshort=True).split("\n"))
    out.append(extra)
    # pytest asks for the exception's text twice, for the traceback and then
    # for the crash line: so does this, for a __str__ that counts its calls.
    # The crash line is the deepest frame's, past a recursion's cut.
    return "".join(out), entries[-1][0], entries[-1][1], excinfo.exconly(tryshort=True)


class NotPlainData(Exception):
    """plain_hash met a value whose == could run a program's code."""


# The types whose == recursion_index lets run: builtins that compare
# without calling any code of the program's (exact types, not subclasses),
# and the tag plain_hash gives each container type (a set and a frozenset
# can be equal, a list and a tuple cannot).
PLAIN_SCALARS = frozenset((int, float, complex, str, bytes, bool, type(None)))
PLAIN_CONTAINERS = {tuple: "t", list: "l", dict: "d", set: "s", frozenset: "s"}
TYPE_MRO = type.__dict__["__mro__"].__get__  # read past any metaclass
TYPE_DICT = type.__dict__["__dict__"].__get__


def compared_by_identity(kind):
    """Whether == on an instance of kind is object's, identity: no class in
    its MRO but object defines __eq__ (functions, modules, classes, and a
    program's objects that leave == alone). Read from the classes' own
    dicts, so that nothing of the program's runs."""
    return all(k is object or "__eq__" not in TYPE_DICT(k) for k in TYPE_MRO(kind))


def plain_hash(v, memo, room, depth=0):
    """A hash of v such that values that are == have the same one, for
    data whose == runs no program code: v and everything in it (keys and
    values of dicts, recursively, at most 32 deep) of a type in
    PLAIN_SCALARS or PLAIN_CONTAINERS, or compared by identity (its hash is
    then its identity's, not its __hash__), within room[0] more objects in all;
    else NotPlainData. The numbers' hashes agree across int, float, complex
    and bool as their == does, and a NaN's is its identity's, as is its ==
    inside a container. memo: id -> (container, its hash), and (id,) ->
    (type, compared_by_identity)."""
    kind = type(v)
    if kind in PLAIN_SCALARS:
        return hash(v)
    hit = memo.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    room[0] -= len(v) + 1 if kind in PLAIN_CONTAINERS else 1
    if room[0] < 0 or depth >= 32:
        raise NotPlainData()
    tag = PLAIN_CONTAINERS.get(kind)
    if tag == "d":
        h = hash((tag, frozenset((plain_hash(k, memo, room, depth + 1), plain_hash(x, memo, room, depth + 1))
                                 for k, x in v.items())))
    elif tag == "s":
        h = hash((tag, frozenset(plain_hash(x, memo, room, depth + 1) for x in v)))
    elif tag is not None:
        h = hash((tag, tuple(plain_hash(x, memo, room, depth + 1) for x in v)))
    else:
        known = memo.get((id(kind),))  # a key no container's id can be
        if known is None or known[0] is not kind:
            known = memo[(id(kind),)] = (kind, compared_by_identity(kind))
        if not known[1]:
            raise NotPlainData()
        return object.__hash__(v)  # its identity's (not its class's __hash__)
    memo[id(v)] = (v, h)
    return h


def recursion_index(frames):
    """pytest's Traceback.recursionindex over frames (position, locals),
    position the identity of the frame's code object and its line: the
    index of the first frame whose position and locals equal an earlier
    frame's, or None. pytest compares each frame's locals dict with those
    of every earlier frame at the same position, one by one; a recursion
    that never repeats makes that some 500,000 comparisons. Here a frame's
    locals are compared only with the earlier ones of the same plain_hash,
    which are all those that can be equal: the same answer, as long as the
    comparisons run no code of the program's (which pytest, given the
    failure back, would run again). So every locals dict that pytest would
    compare must hold plain data, else NotPlainData."""
    seen = {}  # position -> [first locals dict, {plain_hash: [locals dicts]} or None]
    memo = {}
    room = [200000]
    for i, (position, loc) in enumerate(frames):
        slot = seen.get(position)
        if slot is None:
            seen[position] = [loc, None]
            continue
        if slot[1] is None:
            slot[1] = {plain_hash(slot[0], memo, room): [slot[0]]}
        same = slot[1].setdefault(plain_hash(loc, memo, room), [])
        # list's `in` is `other == loc` for each in turn, stopping at the
        # first equal (distinct dicts: its identity test never decides).
        if loc in same:
            return i
        same.append(loc)
    return None


def statement_range_memo(original):
    """original (pytest's getstatementrange_ast), answering a repeat from
    the first call: the answer is a function of the file's lines, the line
    number and the flag alone. A repeat passes through the same warning
    filters as pytest's parse; an AST handed in that is not the one parsed
    from these lines goes to original. freeze() keeps the answers and drops
    the trees (pytest only hands a tree back to this function): what the
    worker learned at its start-up (the frames of pytest's own files in a
    collection error) costs the server no more than the answers."""
    import warnings

    parsed, ranges = {}, {}
    frozen = object()  # stands for a tree dropped by freeze()

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        content = tuple(source.lines)
        node = parsed.get(content)
        if astnode is not None and astnode is not node:
            return original(lineno, source, assertion, astnode)
        key = (content, lineno, assertion)
        if node is None or (node is frozen and key not in ranges):
            node, start, end = original(lineno, source, assertion, None)
            parsed[content] = node
            ranges[key] = (start, end)
            return node, start, end
        if astnode is None:
            with warnings.catch_warnings():  # what pytest's parse does to the filters
                warnings.simplefilter("ignore")
        found = ranges.get(key)
        if found is None:
            _, start, end = original(lineno, source, assertion, node)
            found = ranges[key] = (start, end)
        return node, found[0], found[1]

    def freeze():
        for content in parsed:
            parsed[content] = frozen

    getstatementrange_ast.freeze = freeze
    return getstatementrange_ast


def fallback_mounts(confine, opts):
    """Without a new root (pivot_root failed): the old view, the host's tree
    read-only with a private tmpfs work dir and hidden home folders."""
    m = confine["Mounter"]()
    try:
        m.mount(None, "/", None, confine["MS_REC"] | confine["MS_PRIVATE"])
    except OSError as e:
        warnings.append("mount namespace unusable: %s" % e)
        return
    try:
        m.mount("tmpfs", WORK, "tmpfs", confine["MS_NOSUID"] | confine["MS_NODEV"] | confine["MS_NOEXEC"], opts)
        protections.append("private-tmpfs")
    except OSError as e:
        warnings.append(str(e))
    for h in CFG.get("hide", []):
        if h and os.path.isdir(h) and os.path.realpath(h) not in ("/", WORK):
            try:
                m.mount("tmpfs", h, "tmpfs", confine["MS_NOSUID"] | confine["MS_NODEV"] | confine["MS_RDONLY"], "size=4k,mode=0555")
            except OSError as e:
                warnings.append(str(e))
    try:
        m.mount("/", "/", None, confine["MS_BIND"] | confine["MS_REC"])
        m.mount(None, "/", None, confine["MS_REMOUNT"] | confine["MS_BIND"] | confine["MS_RDONLY"])
        protections.append("readonly-root")
    except OSError as e:
        warnings.append(str(e))


def clear_workdir():
    for entry in os.scandir(WORK):
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def reap_all():
    """Reap every child of this process until it has none."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue


def kill_all_and_reap():
    """kill(-1): every process of the namespace but this one and its init;
    then reap them (in the namespace's init, or in the subreaper of all of
    them). When kill finds no process, every child was reaped already
    (zombies are found too): the usual end of a run, that way without an
    exception more."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        return
    except OSError:
        pass
    reap_all()


def kill_rest(child_pid):
    """Kill every process left by the run and reap them."""
    if PID1:
        kill_all_and_reap()
        return
    try:
        os.killpg(child_pid, signal.SIGKILL)
    except OSError:
        pass
    reap_all()


def confine_child(req, ctx):
    """The first steps of every run's child: own session, rlimits, stdin from
    /dev/null, the unprivileged uid, the signal-handler filter."""
    try:
        os.close(3)
        os.close(4)
    except OSError:
        pass
    os.setsid()
    lim = req["limits"]
    for res, val in ((resource.RLIMIT_CPU, (lim["cpu_s"], lim["cpu_s"] + 1)),
                     (resource.RLIMIT_AS, (lim["as_bytes"],) * 2),
                     (resource.RLIMIT_NPROC, (lim["nproc"],) * 2),
                     (resource.RLIMIT_FSIZE, (lim["fsize"],) * 2),
                     (resource.RLIMIT_NOFILE, (lim["nofile"],) * 2),
                     (resource.RLIMIT_CORE, (0, 0))):
        if val[0] > 0:
            try:
                resource.setrlimit(res, val)
            except (ValueError, OSError):
                pass
    fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    if UID >= 0 and os.getuid() == 0:
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
    # signal.signal's wrapper turns both ends into enums, touching pages of
    # the enum machinery in every child; the C function does the same work.
    _signal.signal(int(signal.SIGINT), int(signal.SIG_DFL))
    if ctx["child_filter"] is not None:
        ctx["installer"].install(ctx["child_filter"])


def mark_start(mfd):
    """Tell the worker how much CPU this child has used before any code of
    the program or the test file runs: the CPU limit counts from here (the
    harness's own set-up is not the program's). Written before that code
    runs, on a pipe closed right after, so the program cannot change it."""
    try:
        os.write(mfd, struct.pack("<q", time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)))
        os.close(mfd)
    except OSError:
        pass


# Module-level names that pytest or one of its builtin plugins reads from a
# test module: marks, plugins, parametrization hooks, xunit and nose set-up.
PYTEST_NAMES = frozenset(("pytestmark", "pytest_plugins", "__test__", "collect_ignore", "collect_ignore_glob",
                          "setup_module", "teardown_module", "setUpModule", "tearDownModule", "setup", "teardown",
                          "setup_function", "teardown_function"))


def static_test_ids(tests, function_prefixes, class_prefixes, parameter_ids=None):
    """The node ids pytest collects from tests with a stand-in for the
    program, read from the file's syntax alone; None when they might depend
    on anything else, and the file is then collected. Only a file of plain
    shape qualifies (test_file_shape): executing such a file runs no code
    of the program and cannot fail but at an import, and pytest collects
    exactly its test functions and the test methods of its classes, in
    definition order, one id each, or one per parameter set for a test
    under `@pytest.mark.parametrize`. The file's own fixtures change no id.
    A parametrized test's ids come from parameter_ids(argnames, values,
    nodeid, name) (make_static_ids: pytest's own id maker), and only where
    every value is a literal and no `ids=` is given; without
    parameter_ids, a file with a parametrized test is collected. An import
    that fails makes every run's collection fail, where the ids are not
    compared."""
    import ast

    shape = test_file_shape(tests, function_prefixes, class_prefixes)
    if shape is None:
        return None
    out = []
    for name, params, _, cls, _ in shape[0]:
        base = "test_solution.py::" + (cls + "::" if cls else "") + name
        if params is None:
            out.append(base)
            continue
        deco = params[2]
        if parameter_ids is None or deco.keywords:
            return None
        names_node, values_node = deco.args
        try:
            # A name (perhaps the program's) or a call is no literal: refused here.
            argnames = ast.literal_eval(names_node)
            values = ast.literal_eval(values_node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        ids = parameter_ids(argnames, values, base, name)
        if ids is None or len(ids) != params[1]:
            return None
        out.extend("%s[%s]" % (base, i) for i in ids)
    return out


def make_parameter_ids(config):
    """ids(argnames, values, nodeid, name): the ids pytest's Metafunc gives
    the parameter sets of `@pytest.mark.parametrize(argnames, values)` (no
    `ids=`), through pytest's own ParameterSet and IdMaker under this
    session's config; None where pytest would fail the parametrization or
    this pytest lacks those pieces."""
    try:
        from _pytest.mark.structures import ParameterSet
        from _pytest.python import IdMaker
    except ImportError:
        return None

    def ids(argnames, values, nodeid, name):
        try:
            names, sets = ParameterSet._for_parametrize(argnames, values, None, config, nodeid)
            if "request" in names:
                return None  # Metafunc.parametrize fails it
            if not sets or any(len(ps.values) != len(names) or ps.marks or ps.id is not None for ps in sets):
                return None
            got = IdMaker(names, sets, None, None, config, nodeid, name).make_unique_parameterset_ids()
        except BaseException:  # noqa: BLE001 - pytest's failure of the parametrization: collected as usual
            return None
        return got if all(type(i) is str for i in got) else None

    return ids


# pytest's own fixtures the direct runner sets up, with pytest's own fixture
# functions: what they read of their request (the config, the test's name,
# the fixture's name) is all the direct runner's request has. Any other
# fixture (caplog, capfd, request, ...) sends the file to pytest.
DIRECT_BUILTIN_FIXTURES = {"tmp_path": "_pytest.tmpdir", "tmp_path_factory": "_pytest.tmpdir",
                           "capsys": "_pytest.capture", "monkeypatch": "_pytest.monkeypatch"}
DIRECT_BUILTIN_ARGS = {"tmp_path": ("request", "tmp_path_factory"), "tmp_path_factory": ("request",),
                       "capsys": ("request",), "monkeypatch": ()}


def plain_args(a):
    """The names of a def's parameters when they are plain positional ones
    without defaults (what pytest passes fixtures and parameters to), else
    None."""
    if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
        return None
    return [x.arg for x in a.args]


def is_fixture_decorator(deco):
    """A bare `@pytest.fixture` or `@pytest.fixture()`: a function-scoped,
    unparametrized fixture under the function's own name."""
    import ast

    if isinstance(deco, ast.Call):
        if deco.args or deco.keywords:
            return False
        deco = deco.func
    return isinstance(deco, ast.Attribute) and deco.attr == "fixture" and isinstance(deco.value, ast.Name) \
        and deco.value.id == "pytest"


def test_file_shape(tests, function_prefixes, class_prefixes):
    """A file of plain shape as (entries, fixtures), None when it is not of
    that shape. entries are its tests in definition order as (name, params,
    takes_args, cls, argnames): params is None, or (argnames, count,
    decorator node) for a
    test under one `@pytest.mark.parametrize(NAMES, [v1, v2, ...])` whose
    names are a literal and whose values are a list or tuple display of
    count entries (none a pytest.param); takes_args says whether the
    function has parameters, argnames names them (None when they are not
    plain ones); cls is the test class of a method, or None. fixtures maps
    each fixture the file defines (a module function under a bare
    `@pytest.fixture`, returning or yielding its value) to its parameters.
    At module level a plain file has nothing but imports (a star import
    from solution only, which brings nothing from the stand-in), functions
    without decorators but those, test classes, assignments of literals or
    bare names, a docstring and an `if __name__ == "__main__":` block; no
    generator or coroutine function but a fixture, no name pytest reads, no
    module dunder but inert ones, no name bound twice and no other bound
    name that pytest would collect. A test class has a test prefix, no
    bases, keywords or decorators, and nothing but a docstring and test
    methods (self first, under that one decorator at most)."""
    import ast

    try:
        tree = ast.parse(tests, "test_solution.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    bound, out, fixtures = set(), [], {}
    pytest_imported = False

    def bind(name, test_def=False):
        if name in bound or name in PYTEST_NAMES or name.startswith("pytest_"):
            return False
        # A module's own dunders steer its import and attribute lookups
        # (__name__ opens the main guard, __getattr__ answers pytest's
        # getattr of __test__); only inert ones are plain.
        if name.startswith("__") and name.endswith("__") and name not in ("__all__", "__doc__", "__version__", "__author__"):
            return False
        if not test_def and name.startswith(function_prefixes + class_prefixes):
            return False
        bound.add(name)
        return True

    def yields(node):
        return any(isinstance(sub, (ast.Yield, ast.YieldFrom, ast.Await)) for sub in ast.walk(node))

    def test_entry(node, cls, method):
        """The entry of a test function or method, None when it is not plain."""
        params = None
        if node.decorator_list:
            if len(node.decorator_list) != 1 or not pytest_imported:
                return None
            params = parametrize_shape(node.decorator_list[0])
            if params is None:
                return None
            params += (node.decorator_list[0],)
        if yields(node):
            return None
        a = node.args
        names = plain_args(a)
        if method:
            if not names or names[0] != "self":
                return None
            names = names[1:]
        takes_args = names is None or bool(names)
        if params is not None and (names is None or not set(params[0]) <= set(names)):
            return None
        return (node.name, params, takes_args, cls, names)

    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not bind(a.asname or a.name.partition(".")[0]):
                    return None
                if a.name == "pytest" and a.asname is None:
                    pytest_imported = True
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    if node.module != "solution" or node.level:
                        return None
                elif not bind(a.asname or a.name):
                    return None
        elif isinstance(node, ast.FunctionDef):
            is_test = node.name.startswith(function_prefixes)
            if not bind(node.name, True):
                return None
            if is_test:
                entry = test_entry(node, None, False)
                if entry is None:
                    return None
                out.append(entry)
            elif node.decorator_list:
                if len(node.decorator_list) != 1 or not pytest_imported or not is_fixture_decorator(node.decorator_list[0]):
                    return None
                args = plain_args(node.args)
                if args is None or any(isinstance(sub, ast.Await) for sub in ast.walk(node)):
                    return None
                fixtures[node.name] = args
            elif yields(node):
                return None
        elif isinstance(node, ast.ClassDef):
            if not node.name.startswith(class_prefixes) or node.bases or node.keywords or node.decorator_list or \
                    not bind(node.name, True):
                return None
            methods = set()
            for j, sub in enumerate(node.body):
                if j == 0 and isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Constant) and isinstance(sub.value.value, str):
                    continue
                if not isinstance(sub, ast.FunctionDef) or not sub.name.startswith(function_prefixes) or sub.name in methods:
                    return None
                methods.add(sub.name)
                entry = test_entry(sub, node.name, True)
                if entry is None:
                    return None
                out.append(entry)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None or not plain_value(node.value):
                return None
            if not all(isinstance(t, ast.Name) and bind(t.id) for t in targets):
                return None
        elif i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            pass
        elif not is_main_guard(node):
            return None
    return out, fixtures


def fixture_closure(names, fixtures):
    """Whether every fixture behind names is one the direct runner sets up
    (the file's own, or one of DIRECT_BUILTIN_FIXTURES under a name the
    file does not take), with no fixture needing itself."""
    def args_of(name):
        if name in fixtures:
            return fixtures[name]
        return DIRECT_BUILTIN_ARGS.get(name)

    state = {}

    def ok(name, depth=0):
        if state.get(name) == 1 or depth > 64:
            return False  # a cycle (pytest reports it at set-up)
        if state.get(name) == 2:
            return True
        args = args_of(name)
        if args is None:
            return False
        state[name] = 1
        # request: only pytest's own fixtures get one (the direct runner's
        # is what they read of it, no more).
        good = all(a != name and ((a == "request" and name not in fixtures) or (a != "request" and ok(a, depth + 1)))
                   for a in args)
        state[name] = 2
        return good

    return all(n != "request" and ok(n) for n in names)

def parametrize_shape(deco):
    """(argnames, count) of a `pytest.mark.parametrize(NAMES, VALUES)`
    decorator (an `ids=` literal allowed) whose NAMES is a string or a list
    or tuple of strings, distinct, and whose VALUES is a list or tuple
    display of count > 0 entries, none starred or a pytest.param call;
    None for any other decorator."""
    import ast

    f = deco.func if isinstance(deco, ast.Call) else None
    if not (isinstance(f, ast.Attribute) and f.attr == "parametrize" and isinstance(f.value, ast.Attribute)
            and f.value.attr == "mark" and isinstance(f.value.value, ast.Name) and f.value.value.id == "pytest"):
        return None
    if len(deco.args) != 2 or any(k.arg != "ids" or not plain_value(k.value) or isinstance(k.value, ast.Name)
                                  for k in deco.keywords):
        return None
    names_node, values = deco.args
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = split_argnames(names_node.value)
    elif isinstance(names_node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names_node.elts):
        names = [e.value for e in names_node.elts]
    else:
        return None
    if not names or len(set(names)) != len(names) or not isinstance(values, (ast.List, ast.Tuple)) or not values.elts:
        return None
    for e in values.elts:
        if isinstance(e, ast.Starred):
            return None
        if isinstance(e, ast.Call) and isinstance(e.func, (ast.Attribute, ast.Name)) and \
                (getattr(e.func, "attr", None) == "param" or getattr(e.func, "id", None) == "param"):
            return None
    return tuple(names), len(values.elts)


def split_argnames(names):
    """parametrize's argnames given as one string, split as pytest splits
    them."""
    return [x.strip() for x in names.split(",") if x.strip()]


def plain_value(node):
    """A literal or a bare name: evaluating it runs no code."""
    import ast

    if isinstance(node, ast.Name):
        return True
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def is_main_guard(node):
    """An `if __name__ == "__main__":` block without else: never run on
    import."""
    import ast

    if not isinstance(node, ast.If) or node.orelse:
        return False
    t = node.test
    return (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
            and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) and len(t.comparators) == 1
            and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value == "__main__")


def direct_plan(tests, ids, function_prefixes, class_prefixes):
    """How the direct runner runs tests, whose collection gave ids: a list
    of (id, function name, index of its parameter set or None, test class
    or None), one per id in order; None when the file is not of plain shape
    (test_file_shape), a test takes a fixture the direct runner does not
    set up (fixture_closure) or a parameter that is also a fixture's name,
    or the ids are not exactly its tests in definition order, one per
    parameter set."""
    shape = test_file_shape(tests, function_prefixes, class_prefixes)
    if not shape or not ids:
        return None
    entries, fixtures = shape
    if any(name in DIRECT_BUILTIN_FIXTURES or name == "request" for name in fixtures):
        return None  # overriding pytest's own fixture (and perhaps asking for it)
    plan, i = [], 0
    for name, params, takes_args, cls, argnames in entries:
        if takes_args:
            taken = set(params[0]) if params is not None else set()
            if argnames is None or any(p in fixtures or p in DIRECT_BUILTIN_FIXTURES or p == "request" for p in taken):
                return None
            if not fixture_closure([a for a in argnames if a not in taken], fixtures):
                return None
        base = "test_solution.py::" + (cls + "::" if cls else "") + name
        if params is None:
            if i >= len(ids) or ids[i] != base:
                return None
            plan.append((ids[i], name, None, cls))
            i += 1
            continue
        for k in range(params[1]):
            if i >= len(ids) or not (ids[i].startswith(base + "[") and ids[i].endswith("]")):
                return None
            plan.append((ids[i], name, k, cls))
            i += 1
    return plan if i == len(ids) else None


# The dunders of a plain class body (what Python puts there itself).
CLASS_DUNDERS = frozenset(("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                           "__static_attributes__"))


def pytest_fixtures(config):
    """pytest's own fixtures of DIRECT_BUILTIN_FIXTURES as {name: (function,
    argnames)}: the last definition of each, where it is pytest's own,
    unparametrized function under that name (a plugin that overrides one
    leaves it out, and a file that asks for it goes to pytest)."""
    fm = config.pluginmanager.get_plugin("funcmanage")
    out = {}
    for name, module in DIRECT_BUILTIN_FIXTURES.items():
        defs = getattr(fm, "_arg2fixturedefs", {}).get(name) or ()
        fd = defs[-1] if defs else None
        fn = getattr(fd, "func", None)
        if fd is None or getattr(fn, "__module__", None) != module or getattr(fn, "__name__", None) != name or \
                getattr(fd, "baseid", None) != "" or getattr(fd, "params", None) is not None or \
                tuple(getattr(fd, "argnames", ())) != DIRECT_BUILTIN_ARGS[name]:
            continue
        out[name] = (fn, DIRECT_BUILTIN_ARGS[name])
    return out


# The dunders of a module that pytest's collection of it does not read.
MODULE_DUNDERS = frozenset(("__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__",
                            "__builtins__", "__all__", "__version__", "__author__", "__annotations__",
                            "__warningregistry__"))


class Fallback(Exception):
    """The direct runner met what only pytest's own run reports, once tests
    had run: the worker runs the file again with pytest, in a fresh child."""


class PytestRuns(Exception):
    """The direct runner met what only pytest's own run reports before any
    test ran (an import that fails, a module pytest would collect more
    from): pytest runs the file in this child."""


# What inspect.signature reads of a function beyond its code, defaults and
# annotations: where a function carries one of these, pytest's own
# getfuncargnames decides its argument names.
SIGNATURE_ATTRS = frozenset(("__wrapped__", "__signature__", "_partialmethod", "__text_signature__"))


def plain_funcargnames(func, name, cls, getfuncargnames):
    """What pytest's getfuncargnames(func, name=name, cls=cls) returns, read
    from the code object of a plain function (what inspect.signature reads
    for one: the positional-or-keyword and keyword-only parameters without
    a default, in order; the first one dropped when func is a method of
    cls), without building its Signature; anything else goes to
    getfuncargnames."""
    if type(func) is not types.FunctionType or not SIGNATURE_ATTRS.isdisjoint(func.__dict__):
        return getfuncargnames(func, name=name, cls=cls)
    code = func.__code__
    positional = code.co_varnames[:code.co_argcount]
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    defaults, kwdefaults = func.__defaults__, func.__kwdefaults__
    required = len(positional) - (len(defaults) if defaults else 0)
    names = positional[code.co_posonlyargcount:required] if required > code.co_posonlyargcount else ()
    names += tuple(n for n in keyword_only if kwdefaults is None or n not in kwdefaults)
    if cls is not None and not isinstance(inspect.getattr_static(cls, name, None), staticmethod):
        names = names[1:]
    return names


def make_direct_runner(config, collector):
    """run(plan, code, phases) for a run's child, or None where pytest would
    not import the test module as it does: the tests of a plain test file
    (direct_plan; code is its rewritten module) run without pytest's
    collection and per-test protocol, with pytest's own pieces where they
    decide a verdict or its text: the import of the test module (as
    import_path and the assertion-rewriting hook import it, from the code
    object of the hook's cached pyc), the warning filters and log handlers
    of each phase, the assertion plugin's comparison explanations, global
    capture read after every phase, the fixtures (the file's own, and
    pytest's own functions for tmp_path, capsys and monkeypatch) set up and
    torn down in pytest's order, and the failure text from pytest's
    Function.repr_failure and TestReport, fed to the same Collector. Each
    test is called with as many frames free below it as pytest's run leaves
    (pad; set_padding, measured once per worker). Anything else goes back
    to pytest: before any test ran (an import that fails, a module that
    gives pytest more to collect than the plan, a fixture it does not set
    up) run returns None and the child runs pytest's session itself; after
    (a test that raises skip, xfail, unittest.SkipTest, exit or
    KeyboardInterrupt, a fixture that fails) it raises Fallback, and the
    worker runs the file with pytest in a fresh child.
    pytest.fail (what pytest.raises raises when nothing was raised),
    SystemExit and any other BaseException fail the test as pytest's call
    phase fails it."""
    import inspect
    from pathlib import Path

    from _pytest.python import IGNORED_ATTRIBUTES, Function
    from _pytest.reports import TestReport
    from _pytest.runner import _update_current_test_var
    from _pytest.warnings import catch_warnings_for_item
    from _pytest._code import ExceptionInfo
    from _pytest.mark.structures import Mark, ParameterSet
    from _pytest.compat import safe_getattr
    from importlib.util import module_from_spec, spec_from_file_location
    from types import FunctionType
    from warnings import warn
    from _pytest.logging import LogCaptureHandler, catching_logs
    from _pytest.warning_types import PytestReturnNotNoneWarning
    from _pytest.outcomes import Exit, Skipped, XFailed
    from _pytest.compat import getfuncargnames, is_generator
    from _pytest.fixtures import FixtureFunctionMarker, FixtureLookupError, getfixturemarker
    from _pytest.config import ConftestImportFailure
    from _pytest._code.code import ReprFileLocation
    from _pytest.assertion import rewrite

    hook = next((f for f in sys.meta_path if type(f).__name__ == "AssertionRewritingHook"), None)
    if hook is None or config.getoption("importmode") != "prepend":
        return None  # pytest would not import the rewritten module this way

    capman = config.pluginmanager.getplugin("capturemanager")
    assertion = config.pluginmanager.getplugin("assertion")
    logs = config.pluginmanager.get_plugin("logging-plugin")
    if capman is None or logs is None:
        return None
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return None
    fp, cp = prefixes
    test_path = Path(WORK) / "test_solution.py"
    pyc_of_test = str(rewrite.get_cache_dir(test_path) / ("test_solution" + rewrite.PYC_TAIL))
    written = [None]  # (mtime, size) of the test file before the program ran, as a pyc's header has them
    builtin_fixtures = pytest_fixtures(config)

    methods = {"iter_markers": lambda self, name=None: iter(()),
               "iter_markers_with_node": lambda self, name=None: iter(()),
               "get_closest_marker": lambda self, name, default=None: default}
    for name in ("repr_failure", "_repr_failure_py", "_prunetraceback", "_traceback_filter"):
        f = inspect.getattr_static(Function, name, None)
        if f is not None:
            methods[name] = f
    Item = type("DirectItem", (), methods)

    def item_of(nodeid, name, func):
        it = Item()
        it.config, it.ihook, it.session = config, config.hook, None
        it.nodeid, it.name, it.path = nodeid, nodeid.rpartition("::")[2], test_path
        it._obj = it.obj = func
        it.keywords, it.own_markers, it.user_properties = {}, [], []
        return it

    def phase_capture(fn, *args):
        """fn under the global capture, and the capsys fixture's own where
        the test has one, as pytest's item_capture runs each phase."""
        capman.resume_global_capture()
        capman.activate_fixture()
        try:
            return fn(*args)
        finally:
            capman.deactivate_fixture()
            capman.suspend_global_capture(in_=False)
            capman.read_global_capture()

    def load(code):
        """Import the test module as pytest's import_path (prepend mode) and
        the rewriting hook do, from the code object the hook would read from
        its pyc: the module's attributes from its spec, registered in
        sys.modules while it executes, the run folder first on sys.path."""
        try:
            st = os.stat(test_path)
            written[0] = pyc_stamp(st)
        except OSError:
            written[0] = None
        with catch_warnings_for_item(config, config.hook, "collect", None):
            try:
                if sys.path[:1] != [WORK]:
                    sys.path.insert(0, WORK)
                spec = spec_from_file_location("test_solution", str(test_path), loader=hook)
                mod = module_from_spec(spec)
                sys.modules["test_solution"] = mod
                try:
                    exec(code, mod.__dict__)
                except BaseException:
                    sys.modules.pop("test_solution", None)
                    raise
                return sys.modules["test_solution"]
            except BaseException as e:  # noqa: BLE001 - pytest reports it as a collection error
                raise PytestRuns("the test module did not import: %s" % type(e).__name__)

    def offer_code(code):
        """Give pytest's import of the test file, next in this child (run
        returned None), code as the pyc the worker places for a pytest run
        would: the file's modification time and size checked as that pyc's
        header has them (the file as written, before the program ran), and
        code when they match. pytest then neither rewrites and compiles the
        file again (about 2 ms of a child whose program does not import) nor
        reads a pyc the program could have made in the run folder. Read
        once; any other file goes to pytest's own _read_pyc."""
        if written[0] is None:
            return
        original = rewrite._read_pyc

        def read_pyc(source, pyc, trace=lambda x: None):
            if str(source) != str(test_path) or str(pyc) != pyc_of_test:
                return original(source, pyc, trace)
            rewrite._read_pyc = original
            try:
                st = os.stat(source)
            except OSError:
                return None
            if pyc_stamp(st) != written[0]:
                return None
            return code

        rewrite._read_pyc = read_pyc

    def test_file_function(obj):
        """Whether obj is a plain function whose code is the test file's."""
        code = getattr(obj, "__code__", None)
        return type(obj) is FunctionType and code is not None and code.co_filename == str(test_path)

    def module_fixtures(d):
        """The file's fixtures by name, as (function, argnames): every object
        in the module that pytest's parsefactories would take for one,
        each a bare `@pytest.fixture` on a function of the test file."""
        out = {}
        for name, obj in list(d.items()):
            marker = getfixturemarker(obj)
            if marker is None:
                continue
            real = getattr(getattr(obj, "__pytest_wrapped__", None), "obj", None)
            if type(marker) is not FixtureFunctionMarker or marker.scope != "function" or marker.params is not None or \
                    marker.autouse or marker.ids is not None or marker.name is not None or \
                    not test_file_function(real) or real.__name__ != name:
                raise PytestRuns("%s is not a plain fixture of the test file" % name)
            args = tuple(plain_funcargnames(real, name, None, getfuncargnames))
            if "request" in args:
                raise PytestRuns("the fixture %s asks for its request" % name)
            out[name] = (real, args)
        return out

    def plain_class(name, obj, methods):
        """Whether obj, the test class name, holds nothing pytest would
        read but the planned methods: a fresh instance of it per test is
        what pytest makes."""
        if type(obj) is not type or obj.__bases__ != (object,) or obj.__name__ != name:
            return False
        for k, v in obj.__dict__.items():
            if k in methods:
                if not test_file_function(v) or not set(v.__dict__) <= {"pytestmark"}:
                    return False
            elif k not in CLASS_DUNDERS:
                return False
        return True

    def bind_tests(mod, plan):
        """The function, parameters and fixtures of each planned test,
        checked against what pytest would collect from mod."""
        d = mod.__dict__
        classes = {cls for _, _, _, cls in plan if cls is not None}
        names = {name for _, name, _, cls in plan if cls is None} | classes
        fixtures = module_fixtures(d)
        for name, obj in list(d.items()):
            if name in names or name in fixtures or name in IGNORED_ATTRIBUTES or name in MODULE_DUNDERS:
                continue
            # A dunder a star import brought (__getattr__ answers pytest's
            # getattr of the module's __test__), a name pytest reads, or one
            # it would collect.
            if (name.startswith("__") and name.endswith("__")) or name in PYTEST_NAMES or name.startswith("pytest_") or \
                    (name.startswith(fp) and callable(obj)) or (name.startswith(cp) and isinstance(obj, type)) or \
                    safe_getattr(obj, "__test__", False) is True:
                raise PytestRuns("the module holds %r, which pytest would read" % name)
        for cls in classes:
            methods = {name for _, name, _, c in plan if c == cls}
            if not plain_class(cls, d.get(cls), methods):
                raise PytestRuns("%s is not a plain test class" % cls)
        known = dict(builtin_fixtures)
        for name in fixtures:
            if name in known:
                raise PytestRuns("the file's fixture %s overrides pytest's" % name)
        known.update(fixtures)
        out, values, planned = [], {}, {}
        for _, name, _, cls in plan:
            planned[(cls, name)] = planned.get((cls, name), 0) + 1
        for nodeid, name, k, cls in plan:
            holder = d.get(cls).__dict__ if cls is not None else d
            func = holder.get(name)
            if not test_file_function(func):
                raise PytestRuns("%s is not the test file's function" % name)
            marks = func.__dict__.get("pytestmark")
            argnames = tuple(plain_funcargnames(func, name, d.get(cls) if cls is not None else None, getfuncargnames))
            if k is None:
                if marks:
                    raise PytestRuns("%s carries marks" % name)
                params = {}
            else:
                if (cls, name) not in values:
                    if type(marks) is not list or len(marks) != 1 or type(marks[0]) is not Mark or marks[0].name != "parametrize":
                        raise PytestRuns("%s does not carry one parametrize mark" % name)
                    m = marks[0]
                    pnames, argvalues = m.args[0], list(m.args[1])
                    pnames = split_argnames(pnames) if isinstance(pnames, str) else list(pnames)
                    sets = []
                    for v in argvalues:
                        if isinstance(v, ParameterSet):
                            raise PytestRuns("%s has a pytest.param" % name)
                        vals = (v,) if len(pnames) == 1 else v
                        if len(vals) != len(pnames):
                            raise PytestRuns("%s has a parameter set of another length" % name)
                        sets.append(dict(zip(pnames, vals)))
                    values[(cls, name)] = sets
                sets = values[(cls, name)]
                if planned[(cls, name)] != len(sets):
                    raise PytestRuns("%s has %d parameter sets" % (name, len(sets)))
                params = sets[k]
            closure = fixture_order(argnames, params, known)
            if cls is not None:
                func = getattr(d[cls](), name)  # pytest's fresh instance per test
            out.append((nodeid, func, argnames, params, closure))
        return out, known

    def fixture_order(argnames, params, known):
        """The names pytest fills for a test, in its order: the closure of
        argnames over the fixtures' own arguments (getfixtureclosure, the
        test's parameters not expanded), session-scoped ones first."""
        names = list(argnames)
        for name in names:  # grows as it goes, as pytest's closure does
            if name in params or name == "request":
                continue
            if name not in known:
                raise PytestRuns("the test asks for the fixture %s" % name)
            for a in known[name][1]:
                if a == name:
                    raise PytestRuns("the fixture %s asks for itself" % name)
                if a not in names:
                    names.append(a)
        if all(n in params or n == "request" for n in names):
            return []  # no fixture: the setup and teardown phases run no code
        return sorted(names, key=lambda n: 0 if n == "tmp_path_factory" else 1)

    class Request:
        """What pytest's own fixtures (tmp_path, capsys) read of the
        request pytest hands them."""

        scope = "function"

        def __init__(self, item, fixturename):
            self.config, self.node, self.fixturename = config, item, fixturename

        def raiseerror(self, msg):
            raise Fallback("fixture %s: %s" % (self.fixturename, str(msg)[:200]))

    def set_up(it, closure, params, known):
        """The setup phase's fixtures, as pytest's _fillfixtures computes
        them: each after the fixtures it asks for, each generator's first
        value. Returns (values, generators in the order they were set up);
        any error sends the file to pytest (Fallback)."""
        values, gens, busy = {}, [], set()

        def value(name, asker):
            if name == "request":
                return Request(it, asker)
            if name in params:
                return params[name]
            if name in values:
                return values[name]
            if name in busy:
                raise Fallback("fixtures ask for each other")
            busy.add(name)
            fn, args = known[name]
            kwargs = {a: value(a, name) for a in args}
            try:
                if is_generator(fn):
                    gen = fn(**kwargs)
                    values[name] = next(gen)
                    gens.append((name, gen))
                else:
                    values[name] = fn(**kwargs)
            except Fallback:
                raise
            except BaseException as e:  # noqa: BLE001 - an error at set-up: pytest's run reports it
                raise Fallback("fixture %s raised %s at set-up" % (name, type(e).__name__))
            return values[name]

        for name in closure:
            if name not in params and name != "request":
                value(name, None)
        return values, gens

    def tear_down(gens):
        """The teardown phase: each generator fixture finished, the last set
        up first; an error, or a second yield, sends the file to pytest."""
        for name, gen in reversed(gens):
            try:
                next(gen)
            except StopIteration:
                continue
            except BaseException as e:  # noqa: BLE001 - an error at teardown: pytest's run reports it
                raise Fallback("fixture %s raised %s at teardown" % (name, type(e).__name__))
            raise Fallback("fixture %s yielded twice" % name)

    def in_phase(fn, *args):
        """fn under the two log handlers pytest's logging plugin puts on
        the root logger in a setup or teardown phase."""
        caplog, report_log = log_handlers
        caplog.reset()
        report_log.reset()
        with catching_logs(caplog, level=logs.log_level), catching_logs(report_log, level=logs.log_level):
            return fn(*args)

    # pytest's --tb=short text written here for the shapes short_failure_text
    # knows, when pytest's options are those it writes for and pytest started
    # in the run folder (as the test file's folder, fixed once the worker runs).
    short_text = (config.getoption("tbstyle", "auto") == "short" and not config.getoption("fulltrace", False)
                  and not config.getoption("showlocals", False) and str(config.invocation_params.dir) == WORK)

    def failure_repr(it, excinfo):
        """What Function.repr_failure returns for excinfo, or a ShortFailure
        with the same text and crash location."""
        if short_text and not isinstance(excinfo.value, (FixtureLookupError, ConftestImportFailure)):
            fast = short_failure_text(excinfo, it.obj, WORK)
            if fast is not None:
                text, path, lineno, exconly = fast
                return ShortFailure(text, ReprFileLocation(path, lineno, exconly))
        return it.repr_failure(excinfo)

    def report(nodeid, name, when, outcome, longrepr, dur):
        collector.pytest_runtest_logreport(TestReport(nodeid, ("test_solution.py", 0, name), {}, outcome, longrepr,
                                                      when, (), dur))

    def call_test(nodeid, func, kwargs):
        """The call phase as pytest_runtest_call and pytest_pyfunc_call run
        it, with two caplog handlers on the root logger as pytest's logging
        plugin adds them: None, or the ExceptionInfo of a failure."""
        clock = collector.clock
        caplog, report_log = log_handlers
        caplog.reset()
        report_log.reset()
        with catching_logs(caplog, level=logs.log_level), catching_logs(report_log, level=logs.log_level):
            if clock is not None:
                clock.enter()
            try:
                result = pad(func, kwargs)
                if hasattr(result, "__await__") or hasattr(result, "__aiter__"):
                    raise Fallback("the test returned an awaitable")
                if result is not None:
                    warn(PytestReturnNotNoneWarning(
                        f"Expected None, but {nodeid} returned {result!r}, which will be an error in a "
                        "future version of pytest.  Did you mean to use `assert` instead of `return`?"))
                return None
            except Fallback:
                raise
            except Exception as e:
                if is_skip_test(e):
                    raise Fallback("the test raised unittest.SkipTest")
                sys.last_type, sys.last_value, sys.last_traceback = type(e), e, e.__traceback__
                return ExceptionInfo.from_exc_info((type(e), e, from_test_frame(e.__traceback__)))
            except (Exit, KeyboardInterrupt, Skipped, XFailed) as e:
                # A stop of the session, a skip or an xfail: pytest's own run reports them.
                raise Fallback("the test raised %s" % type(e).__name__)
            except BaseException as e:  # noqa: BLE001 - pytest's call phase reports it as a failure
                # pytest.fail (pytest.raises that saw nothing), SystemExit: a
                # failed test, as pytest's CallInfo catches it, with no
                # sys.last_* (pytest_runtest_call keeps those for Exception).
                return ExceptionInfo.from_exc_info((type(e), e, from_test_frame(e.__traceback__)))
            finally:
                if clock is not None:
                    clock.leave("tests")

    def run_test(nodeid, func, argnames, params, closure, known):
        """One test's setup, call and teardown with their reports; with
        coverage, under the line tracer, set and cleared around it all as
        the Coverage plugin does around pytest's protocol of a test (here,
        not in a wrapper, which would cost the test a frame of room)."""
        tracing = collector.coverage
        if tracing:
            start_line_tracing(collector)
        try:
            it = item_of(nodeid, func.__name__, func)
            name = it.name
            # No setup report: a passed one with no duration changes nothing
            # the Collector keeps (the call's report starts the test's entry).
            proto = assertion.pytest_runtest_protocol(it) if assertion is not None else None
            if proto is not None:
                next(proto)
            try:
                with catch_warnings_for_item(config, config.hook, "runtest", it):
                    gens = ()
                    if closure:
                        _update_current_test_var(it, "setup")
                        values, gens = phase_capture(in_phase, set_up, it, closure, params, known)
                        kwargs = {a: values[a] if a in values else params[a] for a in argnames}
                    else:
                        kwargs = params
                    _update_current_test_var(it, "call")
                    t = time.perf_counter()
                    excinfo = phase_capture(call_test, nodeid, func, kwargs)
                    dur = time.perf_counter() - t
                    if excinfo is None:
                        report(nodeid, name, "call", "passed", None, dur)
                    else:
                        report(nodeid, name, "call", "failed", failure_repr(it, excinfo), dur)
                    _update_current_test_var(it, "teardown")
                    if gens:
                        phase_capture(in_phase, tear_down, gens)
                    report(nodeid, name, "teardown", "passed", None, 0.0)
            finally:
                _update_current_test_var(it, None)
                if proto is not None:
                    next(proto, None)
            return excinfo is None
        finally:
            if tracing:
                stop_line_tracing()

    depth = [0]
    log_handlers = []

    def is_skip_test(e):
        """Whether e is a unittest.SkipTest, which pytest's unittest plugin
        turns into a skip (an isinstance that fails: pytest's check would
        meet the same, so pytest runs the file)."""
        unittest = sys.modules.get("unittest")
        if unittest is None:
            return False
        try:
            skip_test = getattr(unittest, "SkipTest")
            return isinstance(e, skip_test)
        except BaseException:  # noqa: BLE001 - whatever the program made of unittest
            return True

    def pad(func, kwargs, n=None):
        if n is None:
            n = depth[0]
        if n > 0:
            return pad(func, kwargs, n - 1)
        return func(**kwargs)

    def from_test_frame(tb):
        """tb from the test function's frame on, when the exception came
        from there: call_test's frame and pad's come first, and pytest's
        cut to the test function would only pass over them, reading each
        one's file path from disk. Counted, not read from the frames (a
        frame of the traceback is not the runner's to look at)."""
        t, skip = tb, depth[0] + 2
        while skip and t is not None:
            t, skip = t.tb_next, skip - 1
        return t if t is not None else tb

    def run(plan, code, phases=None):
        """The run's pytest exit code, or None when pytest is to run the
        file in this child (PytestRuns): the test module is then dropped
        from sys.modules, as a failed import leaves it, and pytest imports
        it again (what the program's import already did stays done)."""
        try:
            # The session-wide log handlers of pytest's collection and loop.
            with catching_logs(logs.log_cli_handler, level=logs.log_cli_level), \
                    catching_logs(logs.log_file_handler, level=logs.log_file_level):
                return run_tests(plan, code, phases)
        except PytestRuns as e:
            sys.modules.pop("test_solution", None)
            offer_code(code)
            collector.emit({"t": "pytest_runs", "why": str(e)[:300]})
            return None

    def run_tests(plan, code, phases):
        # The caplog and report handlers pytest's logging plugin puts on the
        # root logger in each phase: made once per run, emptied per test.
        log_handlers[:] = [LogCaptureHandler(), LogCaptureHandler()]
        mod = phase_capture(load, code)
        tests, known = bind_tests(mod, plan)
        if phases is not None:
            phases["collected"] = time.process_time_ns()
        collector.emit({"t": "collected", "names": [entry[0] for entry in plan]})
        map_source_files()
        failed = 0
        for nodeid, func, argnames, params, closure in tests:
            if not run_test(nodeid, func, argnames, params, closure, known):
                failed += 1
        return 1 if failed else 0

    run.set_padding = lambda n: depth.__setitem__(0, n)
    return run


def direct_runner_or_none(config, collector, warnings):
    """make_direct_runner, or None (with a warning) where this pytest lacks
    a piece it uses."""
    try:
        return make_direct_runner(config, collector)
    except (ImportError, AttributeError, TypeError) as e:
        warnings.append("direct runner off: %s: %s" % (type(e).__name__, e))
        return None


def make_direct_plan(config):
    """plan(tests, ids): direct_plan under this session's python_functions
    and python_classes, or None (always, when a prefix is a glob)."""
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return lambda tests, ids: None
    fp, cp = prefixes
    cache = {}

    def plan(tests, ids):
        h = hashlib.sha256(tests.encode("utf-8", "surrogatepass"))
        for i in ids:
            h.update(b"\0" + str(i).encode("utf-8", "surrogatepass"))
        key = h.digest()
        if key not in cache:
            if len(cache) >= 512:
                cache.pop(next(iter(cache)))
            cache[key] = direct_plan(tests, [str(i) for i in ids], fp, cp)
        return cache[key]

    return plan


ROOM_TEST = '''def _room(n=0):
    try:
        return _room(n + 1)
    except RecursionError:
        return n


def test_room():
    assert _room() == -1
'''


def measure_room(ctx, direct):
    """The frames free below the test function of ROOM_TEST in one run of
    it in a child, by pytest's run or (direct) the direct runner's; 0 when
    it did not report."""
    import re

    req = {"kind": "run", "program": "", "tests": ROOM_TEST, "timeout_s": 30,
           "limits": {"cpu_s": 30, "as_bytes": 0, "nproc": 0, "fsize": 0, "nofile": 256}}
    if direct:
        req["ids"] = ["test_solution.py::test_room"]
    resp = run_one(req, ctx)
    if bool(resp.get("direct")) != direct or resp.get("fallback"):
        return 0
    for ev in resp.get("events", ()):
        m = re.match(r"assert (\d+) == -1", ev.get("msg") or "") if ev.get("t") == "test" else None
        if m:
            return int(m.group(1))
    return 0


def make_static_ids(config):
    """ids(tests): static_test_ids under this session's python_functions and
    python_classes, with pytest's own ids of parameter sets, or None
    (always, when a prefix is a glob)."""
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return lambda tests: None
    fp, cp = prefixes
    parameter_ids = make_parameter_ids(config)
    return lambda tests: static_test_ids(tests, fp, cp, parameter_ids)


def plain_prefixes(config):
    """This session's python_functions and python_classes as prefix tuples,
    or None when one is a glob (pytest matches those with fnmatch, which the
    readings of a file's text do not follow)."""
    fp = tuple(config.getini("python_functions"))
    cp = tuple(config.getini("python_classes"))
    if not fp or not all(p and not any(c in p for c in "*?[") for p in fp + cp):
        return None
    return fp, cp


def child_main(req, wfd, mfd, key, ctx, shared=None, plan=None, program=None):
    marks = [time.process_time_ns()]
    confine_child(req, ctx)
    marks.append(time.process_time_ns())
    config, session, collector = ctx["config"], ctx["session"], ctx["collector"]
    emit = make_emitter(wfd, key)
    collector.emit = emit
    collector.coverage = bool(req.get("coverage"))
    collector.text_cap = int(req.get("text_cap", 16000))
    # Leftovers of an earlier (crashed) run in the shared capture files.
    capman = config.pluginmanager.getplugin("capturemanager")
    mc = getattr(capman, "_global_capturing", None)
    for cap in (getattr(mc, "out", None), getattr(mc, "err", None)):
        tf = getattr(cap, "tmpfile", None)
        try:
            tf.seek(0)
            tf.truncate()
        except Exception:
            pass
    if req.get("kind") == "collect":
        install_stub_solution(emit)
        config.option.collectonly = True
    sys.audit("triage.sandbox.arm", lambda why: emit({"t": "tamper", "why": why}), "pytest")
    marks.append(time.process_time_ns())
    if req.get("kind") != "collect" and not req.get("static_done"):
        found = ctx["static"](req["program"])
        marks.append(time.process_time_ns())
        if found:
            for why in found:
                emit({"t": "tamper", "why": "static check: " + why})
            emit({"t": "done", "exit": 0, "output_limit": False})
            os._exit(0)
    if req.get("phases") or shared is not None:
        collector.clock = ProgramClock(shared)
    install_program_loader(collector.clock, program)
    if req.get("phases"):
        collector.cpu = {}
    mark_start(mfd)
    if collector.cpu is not None:
        collector.cpu["start"] = time.process_time_ns()
    code = None
    if plan is not None:
        try:
            code = ctx["direct"](plan[0], plan[1], collector.cpu)
        except BaseException as e:  # noqa: BLE001 - Fallback, or anything the direct runner did not foresee
            why = str(e) if isinstance(e, Fallback) else "the direct runner stopped: %s" % type(e).__name__
            emit({"t": "fallback", "why": why[:300]})
            os._exit(0)
    if code is None:
        code = run_session(config, session, collector)
    done = {"t": "done", "exit": code, "output_limit": bool(ctx["xfsz"])}
    if collector.cpu is not None:
        done["phases"] = phase_ms(collector.cpu, collector.clock)
        done["setup"] = {k: (b - a) / 1e6 for k, a, b in zip(("confine", "arm", "static"), marks, marks[1:])}
        done["setup"]["fork"] = marks[0] / 1e6
    emit(done)
    os._exit(0)


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


def make_pyc_placer(config, compile_test):
    """Give a run's child pytest's assertion-rewritten test module as a cached
    pyc, so a test file is parsed, rewritten and compiled once per worker
    rather than once per run. The rewrite is pytest's own, followed by
    compare.py's checked comparisons (compile_test); the worker only parses
    and compiles, it never runs the file. The pyc is
    root-owned and read-only to the child. The cache lives in this closure
    (not in a module global a program could read test files from)."""
    import hashlib as _hashlib
    import importlib.util
    import marshal
    import warnings as _warnings
    from pathlib import Path
    from _pytest.assertion import rewrite

    cache = {}
    limit = 512

    def code_of(tests):
        """The rewritten test module's code object (None: it does not
        compile), its marshalled form and the test file's digest."""
        fn = Path(WORK) / "test_solution.py"
        key = _hashlib.sha256(tests.encode("utf-8", "surrogatepass")).hexdigest()
        entry = cache.get(key)
        if entry is None:
            try:
                with _warnings.catch_warnings():
                    _warnings.simplefilter("ignore")
                    co = compile_test(rewrite, fn, config)
                entry = (co, marshal.dumps(co))
            except Exception:  # noqa: BLE001 - the child reports the error itself
                entry = (None, None)
            if len(cache) >= limit:
                cache.pop(next(iter(cache)))
            entry = entry + (key,)
            cache[key] = entry
        return entry

    def place(tests):
        fn = Path(WORK) / "test_solution.py"
        body = code_of(tests)[1]
        if body is None:
            return
        st = os.stat(fn)
        cache_dir = rewrite.get_cache_dir(fn)
        os.makedirs(cache_dir, mode=0o755, exist_ok=True)
        header = importlib.util.MAGIC_NUMBER + b"\x00\x00\x00\x00" + struct.pack("<LL", *pyc_stamp(st))
        with open(cache_dir / ("test_solution" + rewrite.PYC_TAIL), "wb") as f:
            f.write(header + body)

    def path():
        return str(rewrite.get_cache_dir(Path(WORK) / "test_solution.py") / ("test_solution" + rewrite.PYC_TAIL))

    def entry_of(tests):
        """(digest, marshalled code) for the fork server, or None."""
        _, body, key = code_of(tests)
        return (key, body) if body is not None else None

    place.code_of = lambda tests: code_of(tests)[0]
    place.entry_of = entry_of
    return place, path


def process_cpu_ns(pid):
    """CPU time of every thread of process pid, from its CPU-time clock
    (what clock_getcpuclockid gives; readable by the parent without /proc)."""
    return time.clock_gettime_ns((~pid << 3) | 2)


class Child:
    """What wait_child saw of one run's child."""

    def __init__(self, pid, r, mr):
        self.pid, self.r, self.mr = pid, r, mr
        self.buf = bytearray()
        self.overflow = False
        self.timeout = ""  # "wall" or "cpu" when the run hit a limit
        self.status = None
        self.child_cpu_ns = 0  # the child's whole CPU, when it was reaped here
        self.start_ns = None  # the child's CPU at its start mark
        self.cpu_ns = 0  # CPU counted against the limit: from the start mark on
        self.program_ns = 0  # the program's own CPU, when its budget is counted
        self.mark = b""
        self.minflt = 0  # the child's page faults (copies of the worker's pages, mostly)
        self.server = None  # the ForkServer that forked it (None: the worker did)
        self.server_cpu_ms = 0.0  # the fork server's CPU for this child


def read_mark(c):
    data = os.read(c.mr, 8 - len(c.mark))
    c.mark += data
    if not data or len(c.mark) == 8:
        if len(c.mark) == 8:
            (c.start_ns,) = struct.unpack("<q", c.mark)
        return True
    return False


def program_used(shared, now):
    """The program's own CPU so far, from the clock its child publishes in
    shared (ProgramClock): the finished phases plus the open one up to now,
    the child's CPU clock. Whatever the program wrote there, never below 0."""
    spent, began = struct.unpack_from("<qq", shared, 0)
    if began > 0:
        spent += max(0, now - began)
    return max(0, spent)


def wait_child(c, deadline, cap, cpu_limit_ns, program_limit_ns=0, shared=None):
    """Collect the child's pipe output until it exits or goes over a limit:
    the wall-clock deadline, cpu_limit_ns of CPU time (all its threads)
    counted from its start mark, or program_limit_ns of CPU in the program's
    own code (its import and the test bodies, as the child's ProgramClock
    publishes them in shared). The CPU limits are enforced here, outside the
    program: the worker sleeps for the budget left (a thread's CPU time
    grows no faster than wall time), then reads the child's CPU clock again."""
    server = c.server
    # The child's end: its pidfd, or the fork server's report that it reaped it.
    ended = server.sock if server is not None else os.pidfd_open(c.pid)
    # The result pipe is read when the worker wakes for another reason (the
    # start mark, a limit, the child's end) or on a tick that grows while
    # nothing comes, not on every line: a child writes a line per test, and
    # each wake-up costs both processes a switch. A pipe of PIPE_ROOM holds
    # far more than a run writes between two ticks; where the pipe cannot be
    # made that large, every line wakes the worker as before.
    deferred = pipe_room(c.r)
    fds = [ended, c.mr] if deferred else [c.r, ended, c.mr]
    tick = DRAIN_TICK_MIN
    if shared is None:
        program_limit_ns = 0
    while True:
        wait = deadline - time.monotonic()
        if wait <= 0:
            c.timeout = "wall"
            break
        if deferred:
            wait = min(wait, tick)
        if cpu_limit_ns and c.start_ns is not None:
            try:
                now = process_cpu_ns(c.pid)
            except OSError:
                now = c.start_ns
            used = now - c.start_ns
            if used >= cpu_limit_ns:
                c.timeout, c.cpu_ns = "cpu", used
                break
            wait = min(wait, max((cpu_limit_ns - used) / 1e9, 0.001))
            if program_limit_ns:
                c.program_ns = program_used(shared, now)
                if c.program_ns >= program_limit_ns:
                    c.timeout, c.cpu_ns = "program", used
                    break
                wait = min(wait, max((program_limit_ns - c.program_ns) / 1e9, 0.001))
        try:
            ready, _, _ = select.select(fds, [], [], wait)
        except InterruptedError:
            continue
        if c.mr in ready and read_mark(c):
            fds.remove(c.mr)
        if deferred:
            tick = DRAIN_TICK_MIN if drain_pipe(c, cap) else min(tick * 2, DRAIN_TICK_MAX)
        elif c.r in ready:
            data = os.read(c.r, 1 << 16)
            if not data:
                fds.remove(c.r)
            elif len(c.buf) < cap:
                c.buf += data
            else:
                c.overflow = True
        if ended in ready:
            if server is not None:
                server.exited(c, 0)
                break
            _, c.status, ru = os.wait4(c.pid, 0)
            c.child_cpu_ns = int(round((ru.ru_utime + ru.ru_stime) * 1e9))
            c.minflt = ru.ru_minflt
            break
    if c.timeout:
        if c.timeout == "wall" and c.start_ns is not None:
            try:
                c.cpu_ns = process_cpu_ns(c.pid) - c.start_ns
            except OSError:
                pass
        try:
            os.kill(c.pid, signal.SIGKILL)
        except OSError:
            pass
        if server is not None:
            # The server reaps it (and what it left); its report says no
            # more than a kill would (status, CPU: as the worker's own kill).
            probe = Child(c.pid, c.r, c.mr)
            if not server.exited(probe, 10.0):
                server.abandon()
            c.server_cpu_ms = probe.server_cpu_ms
    if c.mr in fds:
        os.set_blocking(c.mr, False)
        try:
            read_mark(c)
        except OSError:
            pass
    if deferred or c.r in fds:
        os.set_blocking(c.r, False)
        drain_pipe(c, cap)
    if server is None:
        os.close(ended)
    if c.status is not None and c.start_ns is not None:
        # Reaped: its rusage (with the children it waited for) is the final
        # count. Over a limit is a timeout however close the poll came.
        c.cpu_ns = max(0, c.child_cpu_ns - c.start_ns)
        if program_limit_ns:
            c.program_ns = program_used(shared, c.child_cpu_ns)
        if cpu_limit_ns and c.cpu_ns >= cpu_limit_ns:
            c.timeout = "cpu"
        elif program_limit_ns and c.program_ns >= program_limit_ns:
            c.timeout = "program"
    return c


DRAIN_TICK_MIN, DRAIN_TICK_MAX = 0.01, 0.16  # seconds between reads of a deferred result pipe
# A quarter of a megabyte: far more than a run writes between two ticks,
# and little enough that a machine's workers together stay inside the
# pipe memory an unprivileged user gets (pipe-user-pages-soft, 64 MB).
PIPE_ROOM = 1 << 18


def pipe_room(fd):
    """Make the result pipe fd PIPE_ROOM deep and non-blocking: True when
    it is (its reads can wait for the worker's other wake-ups)."""
    try:
        if fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_ROOM) < PIPE_ROOM:
            return False
        os.set_blocking(fd, False)
        return True
    except (OSError, AttributeError, ValueError):
        return False


def drain_pipe(c, cap):
    """Read what the child's (non-blocking) result pipe holds, up to twice
    the pipe's room in one call (a process the run left behind may keep
    writing): up to cap bytes kept, the rest read and dropped as overflow.
    True when something came."""
    got = 0
    while got < 2 * PIPE_ROOM:
        try:
            data = os.read(c.r, 1 << 16)
        except BlockingIOError:
            break
        if not data:
            break
        got += len(data)
        if len(c.buf) < cap:
            c.buf += data
        else:
            c.overflow = True
    return got > 0


def fork_child(target):
    """Fork a run's child: target(w, mw) gets the write ends of the result
    pipe and of the start-mark pipe."""
    r, w = os.pipe()
    mr, mw = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.close(mr)
        try:
            target(w, mw)
        finally:
            os._exit(70)
    os.close(w)
    os.close(mw)
    return Child(pid, r, mr)


# ---------------------------------------------------------------- fork server
#
# Every page a process writes after a fork costs it a fault while the other
# side still shares the page, and on a paravirtualized VM a fault costs
# 10-15 us of CPU: the worker, which parses requests, checks programs,
# verifies lines and answers Go between its forks, paid about 700 of them a
# run. So where it can, the worker forks once, right after its start-up, a
# fork server: a copy of the warm worker that does nothing but fork a run's
# child on request and reap it. The worker itself never forks again, and
# its pages stay its own; the server's loop between two forks writes few
# pages. The server is the children's subreaper and kills and reaps what a
# run left behind (kill(-1) from it spares only itself and the worker, the
# namespace's init); it gets the child's pipes and its clock's memory from
# the worker as file descriptors (SCM_RIGHTS) and the test module's code
# marshalled, once per test file. It runs only inside the worker's own pid
# namespace with a seccomp installer (the prctl for the subreaper bit);
# elsewhere the worker forks its children itself, as before.
#
# Its memory is made 2 MiB huge pages first (MADV_COLLAPSE, Linux 6.1 on),
# copies of its own of the worker's pages: a fork then copies one page-table
# entry where it copied 512, and a child's exit unmaps one. A child's first
# write into a huge page splits only the child's entry (the page of the write
# is copied as before); a server's write while a child lives splits the
# server's own entry of that page (about half stay whole after a hundred
# runs). Where the kernel cannot collapse, the pages stay as they were.

PR_SET_CHILD_SUBREAPER = 36
MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20
# Test modules' code objects the server keeps, the least recently used
# dropped first: every one of them is memory each fork copies the page
# tables of and each child's exit unmaps (600 test files grew the server by
# 5.7 MB), and a build runs a tree's runs together.
SERVER_CODES = 64


def send_frame(sock, obj, body=b"", fds=()):
    """One frame on a stream socket: 8 bytes of lengths (with fds attached
    to them), a JSON header and a body."""
    head = json.dumps(obj).encode()
    if not fds:
        send_head(sock, head, body)
        return
    socket.send_fds(sock, [struct.pack(">II", len(head), len(body))], list(fds))
    sock.sendall(head + body)


def send_head(sock, head, body=b""):
    """send_frame's frame, its JSON header already bytes (the fork server's
    replies, written without building a dict)."""
    sock.sendall(struct.pack(">II", len(head), len(body)) + head + body)


FDS_ROOM = socket.CMSG_LEN(4 * 4)  # ancillary room for the 4 descriptors a frame brings at most


def recv_frame(sock):
    """(header, body, fds) of the next frame; (None, b"", []) at EOF."""
    # socket.recv_fds, without its array and list copies: the fork server
    # calls this between two forks.
    data, anc, _, _ = sock.recvmsg(8, FDS_ROOM)
    fds = []
    for level, kind, blob in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(memoryview(blob)[:len(blob) - len(blob) % 4].cast("i"))
    if not data:
        for fd in fds:
            os.close(fd)
        return None, b"", []
    if len(data) < 8:
        rest = read_exact(sock.fileno(), 8 - len(data))
        if rest is None:
            return None, b"", fds
        data += rest
    hn, bn = struct.unpack(">II", data)
    payload = read_exact(sock.fileno(), hn + bn)
    if payload is None:
        return None, b"", fds
    return json.loads(payload[:hn]), payload[hn:], fds


def open_own_maps():
    """A descriptor of this process's /proc maps, opened while /proc is
    still there (the new root has none), for huge_page_spans; None where
    it cannot be read."""
    try:
        return os.open("/proc/self/maps", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def huge_page_spans(fd):
    """The whole, aligned 2 MiB spans, as (start, end), of the private
    anonymous mappings fd lists (Python's arenas, malloc's heap); fd is
    closed. Read right before the fork server is forked, they are its own."""
    if fd is None:
        return []
    chunks = []
    try:
        while True:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            chunks.append(b)
    except OSError:
        return []
    finally:
        os.close(fd)
    spans = []
    for line in b"".join(chunks).decode("ascii", "replace").splitlines():
        f = line.split()
        if len(f) < 5 or f[1] != "rw-p" or (len(f) > 5 and f[5] != "[heap]"):
            continue  # a file's mapping, the stack, a guard region
        try:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
        except ValueError:
            continue
        lo = -(-lo // HUGE_PAGE) * HUGE_PAGE
        hi = hi // HUGE_PAGE * HUGE_PAGE
        if hi > lo:
            spans.append((lo, hi))
    return spans


def make_collapse(installer):
    """collapse(spans): how many 2 MiB pieces of spans the kernel made huge
    pages (madvise MADV_COLLAPSE, one call a piece so that one refused
    piece does not stop the rest), through the seccomp installer's libc."""
    ct = installer.ctypes
    madvise = installer.libc.madvise
    madvise.argtypes = [ct.c_void_p, ct.c_size_t, ct.c_int]
    madvise.restype = ct.c_int

    def collapse(spans):
        n = 0
        for lo, hi in spans:
            for a in range(lo, hi, HUGE_PAGE):
                n += madvise(a, HUGE_PAGE, MADV_COLLAPSE) == 0
        return n

    return collapse


def serve_forks(sock, ctx, prctl, spans, collapse):
    """The fork server's loop (see above); never returns. It first makes
    spans huge pages and tells the worker how many."""
    import marshal

    process_time_ns = time.process_time_ns
    # Go's pipes are the worker's alone. Their numbers stay taken (by
    # /dev/null), so that the descriptors a request brings never get them:
    # a run's child closes 3 and 4 first thing (confine_child).
    null = os.open(os.devnull, os.O_RDONLY)
    for fd in (3, 4):
        os.dup2(null, fd)
    os.close(null)
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        os._exit(71)
    try:
        send_head(sock, b'{"hugepages": %d}' % (collapse(spans) if collapse is not None else 0))
    except OSError:
        os._exit(0)
    codes = {}
    while True:
        try:
            msg, body, fds = recv_frame(sock)
        except (OSError, ValueError):
            os._exit(0)
        if msg is None:
            os._exit(0)
        if msg.get("op") == "code":
            if len(codes) >= SERVER_CODES:
                codes.pop(next(iter(codes)))
            try:
                codes[msg["digest"]] = marshal.loads(body)
            except (ValueError, EOFError, TypeError):
                pass
            continue
        t0 = process_time_ns()
        digest = msg.get("digest")
        code = codes.get(digest) if digest else None
        if code is not None:
            codes[digest] = codes.pop(digest)  # the most recently used last, as the worker's mirror
        if digest and code is None:
            for fd in fds:
                os.close(fd)
            send_frame(sock, {"need": digest})
            continue
        # Every page this loop writes costs the server a fault after each
        # fork (a copy while the child lives): the run's request and the
        # program's code are parsed by the child, from the body as it came.
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                run = json.loads(body[:msg["n"]])
                req, key = run["req"], bytes.fromhex(run["key"])
                program = None
                if len(body) > msg["n"]:
                    try:
                        program = marshal.loads(body[msg["n"]:])
                    except (ValueError, EOFError, TypeError):
                        program = None
                w, mw = fds[0], fds[1]
                shared = None
                if len(fds) > 2:
                    shared = mmap.mmap(fds[2], 16)
                    os.close(fds[2])
                if msg.get("op") == "recheck":
                    recheck_child(req, w, mw, key, code, ctx, program)
                else:
                    plan = (run["plan"], code) if run.get("plan") is not None else None
                    child_main(req, w, mw, key, ctx, shared, plan, program)
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        send_head(sock, b'{"pid": %d}' % pid)
        while True:
            try:
                _, status, ru = os.wait4(pid, 0)
                break
            except InterruptedError:
                continue
        # kill_rest, in the server: kill(-1) spares it and the worker (init);
        # everything a run left behind is the server's (its subreaper) to reap.
        kill_all_and_reap()
        send_head(sock, b'{"status": %d, "cpu_ns": %d, "minflt": %d, "server_cpu_ms": %.4f}' % (
            status, int(round((ru.ru_utime + ru.ru_stime) * 1e9)), ru.ru_minflt, (process_time_ns() - t0) / 1e6))


class ForkServer:
    """The worker's end of the fork server: spawn() asks it for a run's
    child, exited() reads how that child ended."""

    def __init__(self, ctx, prctl, spans=(), collapse=None):
        self.ctx = ctx
        self.sent = {}  # digests of the code objects the server holds (the order of use mirrors its own)
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            try:
                a.close()
                serve_forks(b, ctx, prctl, spans, collapse)
            finally:
                os._exit(0)
        b.close()
        self.sock, self.pid = a, pid
        try:
            ready, _, _ = recv_frame(a)
        except (OSError, ValueError):
            ready = None
        # None: the server is gone; the worker forks its runs itself.
        self.hugepages = ready.get("hugepages", 0) if isinstance(ready, dict) else None

    def abandon(self):
        """Stop using the server (it died, or stopped answering): end
        everything in the namespace, reap it, and fork runs in the worker
        from now on."""
        try:
            self.sock.close()
        except OSError:
            pass
        kill_all_and_reap()
        if self.ctx.get("fork_server") is self:
            self.ctx["fork_server"] = None

    def close(self):
        """Stop the server and reap it, so its CPU (and its children's)
        counts in the worker's."""
        try:
            self.sock.close()
            os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass

    def spawn(self, op, req, key, code_entry, plan, shared_fd, program=None):
        """Fork a run's child through the server: Child, or None when the
        server failed (abandoned: the caller forks the child itself).
        code_entry: (digest, marshalled code) or None; program: solution.py's
        (code, bytes, path) from compile_program, or None."""
        r, w = os.pipe()
        mr, mw = os.pipe()
        fds = [w, mw] + ([shared_fd] if shared_fd is not None else [])
        # The server reads the header alone; its child, the body: the
        # request, then the program's code marshalled (serve_forks).
        body = json.dumps({"req": req, "key": key.hex(), "plan": plan}).encode()
        msg = {"op": op, "digest": code_entry[0] if code_entry else None, "n": len(body)}
        if program is not None:
            try:
                body += marshal.dumps(program)
            except ValueError:
                pass
        try:
            for _ in range(3):
                if code_entry and code_entry[0] in self.sent:
                    self.sent[code_entry[0]] = self.sent.pop(code_entry[0])  # as the server moves it
                elif code_entry:
                    send_frame(self.sock, {"op": "code", "digest": code_entry[0]}, code_entry[1])
                    if len(self.sent) >= SERVER_CODES:
                        self.sent.pop(next(iter(self.sent)))
                    self.sent[code_entry[0]] = True
                send_frame(self.sock, msg, body, fds=fds)
                reply, _, _ = recv_frame(self.sock)
                while reply is not None and "status" in reply:
                    # The report of a child whose run ended in an error here.
                    reply, _, _ = recv_frame(self.sock)
                if reply is None:
                    raise OSError("fork server closed")
                if "need" in reply:
                    # The server lost it (its cache and this mirror drifted,
                    # or the code did not load there): send it again, twice
                    # at most.
                    self.sent.pop(reply["need"], None)
                    if code_entry is None:
                        raise OSError("fork server asked for code it was not sent")
                    continue
                pid = int(reply["pid"])
                break
            else:
                raise OSError("fork server did not take the test module's code")
        except (OSError, ValueError, KeyError, TypeError):
            for fd in (r, w, mr, mw):
                os.close(fd)
            self.abandon()
            return None
        os.close(w)
        os.close(mw)
        c = Child(pid, r, mr)
        c.server = self
        return c

    def exited(self, c, wait):
        """Read the server's report of c's end (waiting at most wait
        seconds): True when it came. Sets c.status, c.child_cpu_ns,
        c.minflt and c.server_cpu_ms."""
        ready, _, _ = select.select([self.sock], [], [], wait)
        if not ready:
            return False
        try:
            msg, _, _ = recv_frame(self.sock)
        except (OSError, ValueError):
            msg = None
        if msg is None or "status" not in msg:
            self.abandon()
            return True
        c.status, c.child_cpu_ns, c.minflt = msg["status"], msg["cpu_ns"], msg["minflt"]
        c.server_cpu_ms = msg.get("server_cpu_ms", 0.0)
        return True


def end_child(c):
    """Kill and reap what c's run left behind (the fork server already did
    for the children it forked)."""
    if c.server is None:
        kill_rest(c.pid)


def finish(resp, c, t0, tp0):
    resp["wall_ms"] = (time.monotonic() - t0) * 1000.0
    end_child(c)
    status = c.status
    if status is None:
        status = 9  # killed by us (timeout)
    os.close(c.r)
    os.close(c.mr)
    resp["timed_out"] = bool(c.timeout)
    resp["timeout_kind"] = c.timeout
    resp["child_cpu_ms"] = c.child_cpu_ns / 1e6
    resp["cpu_ms"] = c.cpu_ns / 1e6
    if c.program_ns:
        resp["program_cpu_ms"] = c.program_ns / 1e6
    resp["child_minflt"] = c.minflt
    if c.start_ns is not None:
        resp["setup_cpu_ms"] = c.start_ns / 1e6
    tp1 = os.times()
    resp["worker_cpu_ms"] = (tp1.user + tp1.system - tp0.user - tp0.system) * 1000.0 + c.server_cpu_ms
    if os.WIFSIGNALED(status):
        resp["signal"] = os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        resp["exit"] = os.WEXITSTATUS(status)
    clear_workdir()
    return resp


def finish_without_child(resp, t0, tp0):
    resp["wall_ms"] = (time.monotonic() - t0) * 1000.0
    tp1 = os.times()
    resp["worker_cpu_ms"] = (tp1.user + tp1.system - tp0.user - tp0.system) * 1000.0
    resp["exit"] = 0
    clear_workdir()
    return resp


def cpu_limit_ns(req, field="cpu_limit_s"):
    return int(float(req.get(field) or 0) * 1e9)


def run_one(req, ctx):
    """A pytest run (kind run or collect)."""
    t0, tp0 = time.monotonic(), os.times()
    if req.get("kind") == "collect":
        # A plain test file's ids are known from its text: no child.
        try:
            ids = ctx["static_ids"](req["tests"])
        except Exception:  # noqa: BLE001 - collected as any other file
            ids = None
        if ids is not None:
            events = [{"t": "collected", "names": ids},
                      {"t": "done", "exit": 0 if ids else 5, "output_limit": False}]
            return finish_without_child({"id": req.get("id"), "events": events, "timed_out": False, "overflow": False,
                                         "static_ids": True}, t0, tp0)
    plan = None
    if req.get("kind") == "run" and req.get("ids") and ctx.get("direct") is not None:
        try:
            plan = ctx["direct_plan"](req["tests"], req["ids"])
        except Exception:  # noqa: BLE001 - pytest runs the file
            plan = None
    clear_workdir()
    write_run_files(req)
    if plan is not None:
        # The rewritten module, compiled from the file as pytest's hook does.
        code = ctx["place_pyc"].code_of(req["tests"])
        plan = (plan, code) if code is not None else None
    if plan is None:
        # The direct runner executes the cached code object itself; only
        # pytest's import reads the pyc.
        ctx["place_pyc"](req["tests"])
    key = os.urandom(32)
    if req.get("kind") != "collect":
        # The static check reads the program's text only: done here, it
        # costs the child no copies of the worker's pages, and a finding
        # needs no child at all. Should it fail, the child does it.
        try:
            found = ctx["static"](req["program"])
            req["static_done"] = True
        except Exception:  # noqa: BLE001 - the child's check reports it
            found = []
        if found:
            events = [{"t": "tamper", "why": "static check: " + why} for why in found]
            events.append({"t": "done", "exit": 0, "output_limit": False})
            return finish_without_child({"id": req.get("id"), "events": events, "timed_out": False, "overflow": False}, t0, tp0)
    program_limit = cpu_limit_ns(req, "program_cpu_limit_s") if req.get("kind") == "run" else 0
    program = compile_program(req["program"], ctx) if req.get("kind") == "run" else None
    c = run_child(req, key, ctx, t0, cpu_limit_ns(req), program_limit, plan, program)
    events, forged, sample = verify_lines(c.buf, key)
    resp = {"id": req.get("id"), "events": events, "overflow": c.overflow}
    if plan is not None:
        resp["direct"] = True
        resp["fallback"] = next((ev.get("why") or "pytest" for ev in events if ev.get("t") == "pytest_runs"), None)
        why = next((ev.get("why") or "" for ev in events if ev.get("t") == "fallback"), None)
        if why is not None and not forged and not c.timeout and not c.overflow and \
                not any(ev.get("t") == "tamper" for ev in events):
            # The direct child stopped after tests had run: pytest runs the
            # file in a fresh child, with the run's whole limits (a run of
            # pytest's own), its CPU added to the first child's.
            first = c
            end_child(first)
            os.close(first.r)
            os.close(first.mr)
            clear_workdir()
            write_run_files(req)
            ctx["place_pyc"](req["tests"])
            key = os.urandom(32)
            c = run_child(req, key, ctx, time.monotonic(), cpu_limit_ns(req), program_limit, None, program)
            c.cpu_ns += first.cpu_ns
            c.child_cpu_ns += first.child_cpu_ns
            c.program_ns += first.program_ns
            c.minflt += first.minflt
            c.server_cpu_ms += first.server_cpu_ms
            events, forged, sample = verify_lines(c.buf, key)
            resp = {"id": req.get("id"), "events": events, "overflow": c.overflow, "fallback": why or "fallback"}
    if forged:
        resp["forged"] = forged
        resp["forged_sample"] = sample
    return finish(resp, c, t0, tp0)


def run_child(req, key, ctx, t0, cpu_limit, program_limit, plan, program=None):
    """Fork a run's child (pytest's run, or the direct runner's with plan)
    and wait for it within the run's limits; program is solution.py's code
    from compile_program, or None."""
    # The program's clock, shared with the child; a new one for every run,
    # so nothing a run left behind can write into the next one's.
    server = ctx.get("fork_server")
    shared = shared_fd = None
    if program_limit and cpu_limit:
        if server is not None:
            # Memory the worker and a child of the server can both map.
            try:
                shared_fd = os.memfd_create("triage-program-clock")
                os.ftruncate(shared_fd, 16)
                shared = mmap.mmap(shared_fd, 16)
            except OSError:
                if shared_fd is not None:
                    os.close(shared_fd)
                shared_fd = None
                server.abandon()
        if shared is None:
            shared = mmap.mmap(-1, 16)
    try:
        entry = ctx["place_pyc"].entry_of(req["tests"]) if server is not None and plan is not None else None
        c = spawn_child(ctx, "run", child_request(req), key, entry, plan is not None, plan[0] if plan else None, shared_fd,
                        lambda w, mw: child_main(req, w, mw, key, ctx, shared, plan, program), program)
        wait_child(c, t0 + float(req["timeout_s"]), MAX_EVENT_BYTES, cpu_limit, program_limit, shared)
    finally:
        if shared_fd is not None:
            os.close(shared_fd)
        if shared is not None:
            shared.close()
    return c


def spawn_child(ctx, op, child_req, key, entry, needs_code, plan, shared_fd, target, program=None):
    """A run's child: forked by the fork server where the worker has one,
    else by the worker (target(w, mw) is the child's work then). A request
    the server cannot take (code that does not marshal) ends the worker's use
    of it first: the worker forks nothing while its server lives, or its
    kill_rest would end the server too."""
    server = ctx.get("fork_server")
    if server is not None:
        if needs_code and entry is None:
            server.abandon()
        else:
            c = server.spawn(op, child_req, key, entry, plan, shared_fd, program)
            if c is not None:
                return c
    return fork_child(target)


def child_request(req):
    """What a run's child reads of its request (the fork server is sent no
    more): the test file is on disk, and the program's text is needed only
    when the worker could not check it."""
    out = {k: req[k] for k in ("kind", "limits", "coverage", "phases", "static_done", "text_cap") if k in req}
    if not req.get("static_done"):
        out["program"] = req.get("program", "")
    return out


def write_run_files(req):
    """Write the run's solution.py (runs) and test_solution.py, and place the
    test module's cached pyc."""
    files = [("test_solution.py", "tests")]
    if req.get("kind") != "collect":
        files.insert(0, ("solution.py", "program"))
    for name, field in files:
        with open(os.path.join(WORK, name), "w", encoding="utf-8") as f:
            f.write(req[field])
        os.chmod(os.path.join(WORK, name), 0o644)


def recheck_child(req, w, mw, key, code, ctx, program=None):
    confine_child(req, ctx)
    sys.path.insert(0, WORK)
    install_program_loader(None, program)

    def tamper(why, _key=key, _dumps=json.dumps, _mac=mac32, _write=os.write, _pack=struct.pack):
        body = _dumps({"tamper_event": why}).encode()
        mac = _mac(_key, b"recheck" + body)
        _write(w, _pack(">I", len(body) + 32) + mac + body)

    sys.audit("triage.sandbox.arm", tamper, "recheck")
    mark_start(mw)
    ctx["recheck"](code, os.path.join(WORK, "test_solution.py"), WORK, key, w)
    os._exit(0)


def read_recheck(buf, key):
    """The recheck child's messages: (reports, tamper events, forged count)."""
    reports, tampers, forged = [], [], 0
    data = bytes(buf)
    i = 0
    while i + 4 <= len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        body = data[i + 4:i + 4 + n]
        i += 4 + n
        if len(body) != n or n < 32:
            forged += 1
            break
        mac, msg = body[:32], body[32:]
        if not hmac.compare_digest(mac, mac32(key, b"recheck" + msg)):
            forged += 1
            continue
        try:
            obj = json.loads(msg)
        except ValueError:
            forged += 1
            continue
        if "tamper_event" in obj:
            tampers.append(obj["tamper_event"])
        else:
            reports.append(obj)
    if i != len(data):
        forged += 1
    return reports, tampers, forged


def make_test_compiler(compile_test):
    """Compiles test files for the re-check (with compile_test, compare.py's
    checked comparisons), once per test file; the cache lives in this
    closure."""
    import marshal

    cache = {}
    limit = 512

    def lookup(tests):
        key = hashlib.sha256(tests.encode("utf-8", "surrogatepass")).hexdigest()
        entry = cache.get(key)
        if entry is None:
            code = compile_test(tests, os.path.join(WORK, "test_solution.py"))
            try:
                body = marshal.dumps(code)
            except ValueError:
                body = None
            if len(cache) >= limit:
                cache.pop(next(iter(cache)))
            entry = cache[key] = (code, body, key)
        return entry

    def code_of(tests):
        return lookup(tests)[0]

    def entry_of(tests):
        """(digest, marshalled code) for the fork server, or None."""
        _, body, key = lookup(tests)
        return ("recheck:" + key, body) if body is not None else None

    code_of.entry_of = entry_of
    return code_of


def recheck_one(req, ctx):
    clear_workdir()
    with open(os.path.join(WORK, "solution.py"), "w", encoding="utf-8") as f:
        f.write(req["program"])
    os.chmod(os.path.join(WORK, "solution.py"), 0o644)
    key = os.urandom(32)
    t0, tp0 = time.monotonic(), os.times()
    try:
        code = ctx["compile_tests"](req["tests"])
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        body = {"n": 0, "verdicts": "", "first": "", "unsupported": "", "tamper": "", "load_error": "%s: %s" % (type(e).__name__, e)}
        return finish_without_child({"id": req.get("id"), "events": [], "timed_out": False, "overflow": False,
                                     "recheck": {"reports": [body], "tamper": [], "forged": 0}}, t0, tp0)
    entry = ctx["compile_tests"].entry_of(req["tests"]) if ctx.get("fork_server") is not None else None
    program = compile_program(req["program"], ctx)
    c = spawn_child(ctx, "recheck", {"limits": req["limits"]}, key, entry, True, None, None,
                    lambda w, mw: recheck_child(req, w, mw, key, code, ctx, program), program)
    wait_child(c, t0 + float(req["timeout_s"]), MAX_RECHECK_BYTES, cpu_limit_ns(req))
    reports, tampers, forged = read_recheck(c.buf, key)
    resp = {"id": req.get("id"), "events": [], "overflow": c.overflow,
            "recheck": {"reports": reports, "tamper": tampers, "forged": forged + (1 if c.overflow else 0)}}
    return finish(resp, c, t0, tp0)


def private_modules(names, snapshot):
    """Fresh copies of pure-Python modules (and their submodules), executed
    with their own builtins and kept out of sys.modules: the recheck
    harness's unittest and pytest.approx/raises, which a program's patches
    of the shared modules do not reach."""
    saved = {}
    for k in list(sys.modules):
        if any(k == n or k.startswith(n + ".") for n in names):
            saved[k] = sys.modules.pop(k)
    import importlib.machinery

    class Finder:
        @staticmethod
        def find_spec(fullname, path=None, target=None):
            if not any(fullname == n or fullname.startswith(n + ".") for n in names):
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None or spec.loader is None:
                return spec
            inner = spec.loader

            class Loader:
                def create_module(self, s):
                    return None

                def exec_module(self, module):
                    module.__dict__["__builtins__"] = dict(snapshot)
                    inner.exec_module(module)

            spec.loader = Loader()
            return spec

    sys.meta_path.insert(0, Finder)
    out = {}
    try:
        import importlib

        for n in names:
            importlib.import_module(n)
        for k in list(sys.modules):
            if any(k == n or k.startswith(n + ".") for n in names):
                out[k] = sys.modules.pop(k)
    finally:
        sys.meta_path.remove(Finder)
        sys.modules.update(saved)
    return out


def install_comparison_checks(compare):
    """The pytest harness's checked comparisons (compare.py): the functions
    the compiled test file calls, put in the builtins; a lie is reported
    through the audit hook, whose reporter is the run's (the re-check has
    its own checks in the test module's namespace)."""
    import unittest
    from _pytest.python_api import ApproxBase

    test_path = os.path.join(WORK, "test_solution.py")
    audit = sys.audit
    check, assertion = compare["make_checker"](lambda why: audit("triage.sandbox.lie", why), (ApproxBase,),
                                               lambda co: co.co_filename == test_path, (unittest.TestCase,))
    builtins.__dict__[compare["CHECK"]] = check
    builtins.__dict__[compare["ASSERT"]] = assertion


def recheck_api(snapshot, compare):
    import inspect
    import io
    import platform
    import types
    import unittest
    import warnings as _warnings
    from pathlib import Path

    import pytest
    import _pytest.capture
    import _pytest.monkeypatch
    import _pytest.outcomes
    import _pytest.python
    import _pytest.recwarn
    from _pytest.config import parse_warning_filter

    try:
        from _pytest._py.path import LocalPath
    except ImportError:
        LocalPath = None
    priv = private_modules(["unittest", "_pytest.python_api"], snapshot)
    pytest_dict = dict(pytest.__dict__)
    papi = priv.get("_pytest.python_api")
    if papi is not None:
        pytest_dict["approx"] = papi.approx
        pytest_dict["raises"] = papi.raises
    pristine = {}
    for name, mod in list(sys.modules.items()):
        if isinstance(mod, types.ModuleType) and "." not in name and name not in ("solution", "test_solution", "__main__"):
            pristine[name] = dict(mod.__dict__)
    ut = priv.get("unittest", unittest)
    api = {
        "os_write": os.write, "os_makedirs": os.makedirs, "mac32": mac32, "json_dumps": json.dumps,
        "struct_pack": struct.pack, "ModuleType": types.ModuleType, "FunctionType": types.FunctionType,
        "CodeType": types.CodeType, "isfunction": inspect.isfunction, "isclass": inspect.isclass,
        "isgeneratorfunction": inspect.isgeneratorfunction, "iscoroutinefunction": inspect.iscoroutinefunction,
        "isabstract": inspect.isabstract, "ismethod": inspect.ismethod, "getattr_static": inspect.getattr_static,
        "signature": inspect.signature, "Parameter": inspect.Parameter, "builtins": snapshot,
        "import": snapshot["__import__"], "pytest_dict": pytest_dict, "pristine": pristine, "private": priv,
        "Skipped": _pytest.outcomes.Skipped, "XFailed": _pytest.outcomes.XFailed, "Failed": _pytest.outcomes.Failed,
        "CaptureIO": _pytest.capture.CaptureIO, "CaptureResult": _pytest.capture.CaptureResult,
        "MonkeyPatch": _pytest.monkeypatch.MonkeyPatch, "WarningsRecorder": _pytest.recwarn.WarningsRecorder,
        "parse_warning_filter": parse_warning_filter, "LocalPath": LocalPath, "Path": Path,
        "mkdtemp": tempfile.mkdtemp, "TemporaryFile": tempfile.TemporaryFile, "TextIOWrapper": io.TextIOWrapper,
        "warnings": _warnings, "sys": sys, "os": os, "platform": platform,
        "unittest_TestCase": ut.TestCase, "unittest_TestLoader": ut.TestLoader,
        "unittest_TestResult": ut.TestResult, "unittest_SkipTest": ut.SkipTest,
        "dup": os.dup, "dup2": os.dup2, "close": os.close, "fdopen": os.fdopen, "lseek": os.lseek,
        "ignored_attributes": _pytest.python.IGNORED_ATTRIBUTES,
        "compare": compare, "approx_types": (papi.ApproxBase,) if papi is not None else (),
    }
    return api


def trusted_code_prefixes():
    import sysconfig

    prefixes = {"<frozen ", HERE + "/"}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = paths.get(key)
        if p:
            prefixes.add(p.rstrip("/") + "/")
            prefixes.add(os.path.realpath(p).rstrip("/") + "/")
    for p in sys.path:
        if p.endswith("-packages") or p.endswith("lib-dynload"):
            prefixes.add(p.rstrip("/") + "/")
    return sorted(prefixes)


def hook_spec(ctx, pyc_path):
    """What the audit hook needs to know, resolved now: the genuine code
    objects of the few functions that may touch frames (see guard.py)."""
    import collections
    import enum
    import importlib._bootstrap_external as ibe
    import logging
    import pathlib
    import traceback
    import types
    import typing
    import unittest.result
    import _pytest
    from _pytest.assertion import rewrite

    g = ctx["guard"]
    code_ids, module_code_ids = g["code_ids"], g["module_code_ids"]
    ss = traceback.StackSummary
    extended = [c for c in ss.extract.__func__.__code__.co_consts if getattr(c, "co_name", "") == "extended_frame_gen"]
    helpers = code_ids([logging.currentframe, traceback.walk_stack, traceback.walk_tb, traceback._walk_tb_with_full_positions])
    helpers |= {id(c) for c in extended}
    g["keep"].extend(extended)
    pytest_mods = [m for n, m in list(sys.modules.items()) if n == "_pytest" or n.startswith("_pytest.")]
    # short_failure_text reads a failing test's frames where pytest's
    # formatting would.
    tb_context = module_code_ids(pytest_mods + [unittest.result, traceback, logging])
    return {
        "prefixes": trusted_code_prefixes(),
        "names": [os.path.join(WORK, "test_solution.py")],
        "work": WORK,
        "allowed_pyc": [pyc_path],
        "no_leak": {
            "getframe": code_ids([collections.namedtuple, typing._caller, enum.EnumType._create_, logging.Logger.findCaller,
                                  traceback.extract_stack, traceback.format_stack, traceback.print_stack]),
            "tb_frame": code_ids([ss._extract_from_extended_frame_gen, ss.extract, traceback.clear_frames, short_failure_text]),
        },
        "capture_check": code_ids([ss._extract_from_extended_frame_gen, ss.extract]),
        "helpers": helpers,
        "pytest_context": {"tb_frame": tb_context, "getframe": set(), "trace": code_ids([start_line_tracing, stop_line_tracing])},
        "marshal": {id(ibe._compile_bytecode.__code__): "bytecode_path", id(rewrite._read_pyc.__code__): "pyc"},
        "code_flaggers": code_ids([types.coroutine]),
        "main_thread": threading.get_ident(),
        "path_types": [pathlib.PosixPath, pathlib.PurePosixPath],
    }


def main():
    global WORK
    phases = {}
    clock = [time.process_time()]

    def phase(name):
        now = time.process_time()
        phases[name] = phases.get(name, 0.0) + (now - clock[0]) * 1000.0
        clock[0] = now

    snapshot = dict(builtins.__dict__)
    guard = load_private("guard.py", snapshot)
    confine = load_private("confine.py", snapshot)
    compare = load_private("compare.py", snapshot)
    if "comparison-check" in DISABLE:
        compare["pytest_code"] = lambda rewrite, fn, config: rewrite._rewrite_test(fn, config)[1]
        compare["compile_test"] = lambda tests, path: compile(tests, path, "exec", dont_inherit=True)
    recheck_ns = load_private("recheck.py", snapshot)
    if PID1:
        # PID 1 gets no default signal actions; make SIGTERM/SIGINT end the worker.
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        signal.signal(signal.SIGINT, lambda *a: os._exit(0))
        protections.append("pidns")
    sys.dont_write_bytecode = True
    host_work = WORK
    phase("load")
    ranges_memo = memoize_statement_ranges()
    cache_traceback_frames()
    warm_up(os.path.join(host_work, ".warm-%d" % os.getpid()))
    ranges_memo.freeze()
    phase("warm-pytest")
    own_maps = open_own_maps()  # read (and closed) right before the fork server is forked
    opts = "size=%dm,mode=0700" % int(CFG.get("tmpfs_mb", 64))
    if UID >= 0:
        opts += ",uid=%d,gid=%d" % (UID, UID)
    if ISOLATE and "mount-allowlist" in DISABLE:
        fallback_mounts(confine, opts)
    elif ISOLATE:
        try:
            entries, dynload, _, _ = confine["view_entries"](sys.modules)
            WORK = confine["build_root"](host_work, entries, dynload, opts, UID)
            protections.extend(["mount-allowlist", "readonly-root", "private-tmpfs"])
        except OSError as e:
            warnings.append("mount allowlist unavailable (%s); the host tree stays visible read-only" % e)
            fallback_mounts(confine, opts)
    elif UID >= 0 and os.getuid() == 0:
        os.chown(WORK, UID, UID)
    phase("mount-allowlist" if "mount-allowlist" in protections else "mounts")
    os.environ["HOME"] = WORK
    os.environ["TMPDIR"] = WORK
    os.environ["USER"] = "sandbox"
    os.environ["LOGNAME"] = "sandbox"
    tempfile.tempdir = WORK
    os.chdir(WORK)
    from _pytest.config import _prepareconfig

    collector = Collector()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    try:
        config = _prepareconfig(list(ARGS), plugins=make_plugins(collector))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    os.dup2(devnull, 1)  # pytest's terminal output of each run is not needed
    os.close(devnull)
    session = start_session(config)
    pause_clock_in_explanations(collector)
    place_pyc, pyc_path = make_pyc_placer(config, compare["pytest_code"])
    install_comparison_checks(compare)
    phase("pytest-session")
    ctx = {"config": config, "session": session, "collector": collector, "place_pyc": place_pyc,
           "static": guard["static_findings"], "recheck": recheck_ns["make"](recheck_api(snapshot, compare)),
           "installer": None, "child_filter": None, "xfsz": [], "guard": guard,
           "compile_tests": make_test_compiler(compare["compile_test"]),
           "static_ids": make_static_ids(config) if "static-ids" not in DISABLE else (lambda tests: None),
           "direct": direct_runner_or_none(config, collector, warnings) if "direct" not in DISABLE else None,
           "direct_plan": make_direct_plan(config)}
    phase("recheck")
    if "audit-hook" not in DISABLE:
        guard["install_audit_hook"](hook_spec(ctx, pyc_path()))
        protections.append("audit-hook")
        phase("audit-hook")
    if "static-check" in DISABLE:
        ctx["static"] = lambda program: []
    else:
        protections.append("static-check")
    protections.extend(["signed-reports", "recheck"])
    if "comparison-check" not in DISABLE:
        protections.append("comparison-check")
    if UID >= 0 and os.getuid() == 0:
        protections.append("uid-drop")
    protections.append("rlimits")
    # The output cap's signal is caught here, once: a run's child may not
    # install handlers after its seccomp filter.
    signal.signal(signal.SIGXFSZ, lambda *a: ctx["xfsz"].append(1))
    if ISOLATE and "seccomp" not in DISABLE:
        if confine["seccomp_supported"]():
            try:
                inst = confine["FilterInstaller"]()
                worker_filter = inst.prepare(confine["seccomp_filter"]())
                ctx["child_filter"] = inst.prepare(confine["no_signal_handlers_filter"]())
                ctx["installer"] = inst
                inst.install(worker_filter)
                protections.extend(["seccomp", "no-new-privs"])
            except OSError as e:
                ctx["child_filter"] = None
                warnings.append("seccomp unavailable: %s" % e)
        else:
            warnings.append("seccomp filter is written for x86-64 only; not installed on %s" % os.uname().machine)
    phase("seccomp")
    collapse = make_collapse(ctx["installer"]) if ctx["installer"] is not None else None
    # ctypes did its work (mounts, filters); a program cannot import it from
    # sys.modules (nor from the file system: the new root leaves _ctypes out).
    for name in list(sys.modules):
        if name == "ctypes" or name.startswith("ctypes.") or name == "_ctypes":
            del sys.modules[name]
    if ctx["direct"] is not None:
        # The direct runner calls each test with as many frames free below it
        # as pytest's run does: a recursion that fits in one fits in the other.
        room_pytest, room_direct = measure_room(ctx, False), measure_room(ctx, True)
        if room_pytest > 0 and room_direct >= room_pytest:
            ctx["direct"].set_padding(room_direct - room_pytest)
        else:
            ctx["direct"] = None
            warnings.append("direct runner off: the recursion room of its calls could not be matched to pytest's "
                            "(%d, %d frames)" % (room_direct, room_pytest))
        phase("direct-runner")
    warm_module_scan()
    gc.collect()
    gc.freeze()
    spans = huge_page_spans(own_maps)
    hugepages = 0
    if PID1 and ctx["installer"] is not None and "fork-server" not in DISABLE:
        server = ForkServer(ctx, ctx["installer"].prctl, spans, collapse)
        if server.hugepages is None:
            server.abandon()
            warnings.append("the fork server did not start; the worker forks its runs itself")
        else:
            ctx["fork_server"], hugepages = server, server.hugepages
    phase("other")
    write_msg(4, {"t": "hello", "pid": os.getpid(), "protections": protections, "warnings": warnings,
                  "python": sys.version.split()[0], "startup_cpu_ms": phases,
                  "fork_server": ctx.get("fork_server") is not None, "fork_server_hugepages": hugepages})
    while True:
        req = read_msg(3)
        if req is None:
            if ctx.get("fork_server") is not None:
                ctx["fork_server"].close()
            return
        try:
            if req.get("kind") == "recheck":
                resp = recheck_one(req, ctx)
            else:
                resp = run_one(req, ctx)
        except Exception as e:  # noqa: BLE001 - infrastructure failure, reported to Go
            resp = {"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)}
        write_msg(4, resp)


if __name__ == "__main__":
    main()
