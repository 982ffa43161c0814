# triage sandbox worker: a warm pytest process that forks one child per run.
#
# Started by search/sandbox (Go) as `python3 -I worker.py CONFIG_JSON` with
# fd 3 = requests (Go -> worker) and fd 4 = responses (worker -> Go); each
# message is a 4-byte big-endian length and a JSON object. The worker runs as
# PID 1 of fresh pid/net/mount/ipc/uts namespaces when Go could create them.
# It sets up the mount view once (private tmpfs work dir, read-only rest,
# hidden home folders, fresh /proc), imports and warms pytest, builds one
# pytest Config for the fixed work dir, then for each request writes
# solution.py and test_solution.py, forks a child that drops privileges, sets
# rlimits and runs the pytest session of that Config, and streams per-test
# reports back over a pipe. After each run every other process of the
# namespace is killed and reaped.
import ctypes
import gc
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import threading
import time

CFG = json.loads(sys.argv[1])
WORK = CFG["workdir"]
UID = int(CFG.get("uid", -1))
PID1 = os.getpid() == 1
# unraisableexception/threadexception only turn exceptions in __del__ or
# threads into warnings (never into failures) and cost a context manager per
# test phase; cacheprovider would write .pytest_cache. Verdicts do not change.
ARGS = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-p", "no:threadexception", "--tb=short", "test_solution.py"]
MAX_EVENT_BYTES = 32 << 20

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24

protections = []
warnings = []


def _mount(libc, src, target, fstype, flags, data):
    enc = lambda s: None if s is None else s.encode()
    if libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (target, os.strerror(e)))


def _mountinfo():
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 6:
                continue
            mp = parts[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
            out.append((mp, parts[5].split(",")))
    return out


def setup_mounts():
    """Private tmpfs work dir, hidden homes, fresh /proc, read-only rest."""
    if not CFG.get("mountns"):
        if UID >= 0 and os.getuid() == 0:
            os.chown(WORK, UID, UID)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        _mount(libc, None, "/", None, MS_REC | MS_PRIVATE, None)
    except OSError as e:
        warnings.append("mount namespace unusable: %s" % e)
        return
    if PID1:
        try:
            _mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
            protections.append("fresh-proc")
        except OSError as e:
            warnings.append(str(e))
        for p in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"):
            if os.path.exists(p):
                try:
                    _mount(libc, p, p, None, MS_BIND | MS_REC, None)
                    _mount(libc, None, p, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
                except OSError as e:
                    warnings.append(str(e))
    opts = "size=%dm,mode=0700" % int(CFG.get("tmpfs_mb", 64))
    if UID >= 0:
        opts += ",uid=%d,gid=%d" % (UID, UID)
    try:
        _mount(libc, "tmpfs", WORK, "tmpfs", MS_NOSUID | MS_NODEV, opts)
        protections.append("private-tmpfs")
    except OSError as e:
        warnings.append(str(e))
        if UID >= 0 and os.getuid() == 0:
            os.chown(WORK, UID, UID)
    hidden = 0
    for h in CFG.get("hide", []):
        if h and os.path.isdir(h) and os.path.realpath(h) not in ("/", WORK):
            try:
                _mount(libc, "tmpfs", h, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0555")
                hidden += 1
            except OSError as e:
                warnings.append(str(e))
    if hidden:
        protections.append("hidden-home")
    flagmap = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
               "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME, "strictatime": MS_STRICTATIME}
    root_ro = False
    hide = set(CFG.get("hide", []))
    for mp, mopts in _mountinfo():
        if mp == WORK or mp in hide or mp == "/proc" or mp.startswith("/proc/"):
            continue
        if mp == "/dev" or mp.startswith("/dev/"):
            # device nodes stay usable (/dev/null); /dev/shm and friends become read-only
            pass
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for o in mopts:
            flags |= flagmap.get(o, 0)
        try:
            _mount(libc, None, mp, None, flags, None)
            if mp == "/":
                root_ro = True
        except OSError as e:
            if mp == "/":
                warnings.append(str(e))
    if root_ro:
        protections.append("readonly-root")


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


class Collector:
    """pytest plugin: streams collection and per-test results to a pipe."""

    def __init__(self):
        self.fd = -1
        self.coverage = False
        self.text_cap = 16000
        self.phases = {}
        self.lines = None

    def emit(self, obj):
        if self.fd < 0:
            return
        data = (json.dumps(obj) + "\n").encode()
        try:
            while data:
                n = os.write(self.fd, data)
                data = data[n:]
        except OSError:
            pass

    def pytest_collectreport(self, report):
        if report.failed:
            self.emit({"t": "collect_error", "nodeid": report.nodeid, "text": report.longreprtext[: self.text_cap]})

    def pytest_collection_finish(self, session):
        self.emit({"t": "collected", "names": [it.nodeid for it in session.items]})

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


def make_plugins(collector):
    import pytest

    class Coverage:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            if not collector.coverage:
                yield
                return
            collector.lines = set()
            tr = _make_tracer(collector.lines)
            sys.settrace(tr)
            threading.settrace(tr)
            try:
                yield
            finally:
                sys.settrace(None)
                threading.settrace(None)

    return [collector, Coverage()]


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


def warm_up():
    """Run pytest once in-process so every lazily imported module is loaded."""
    import pytest

    wd = os.path.join(WORK, "warm")
    os.makedirs(wd, exist_ok=True)
    with open(os.path.join(wd, "solution.py"), "w") as f:
        f.write(WARM_SOLUTION)
    with open(os.path.join(wd, "test_solution.py"), "w") as f:
        f.write(WARM_TEST)
    os.chdir(wd)
    c = Collector()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    try:
        pytest.main(list(ARGS), plugins=make_plugins(c))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    os.chdir(WORK)
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


def clear_workdir():
    for entry in os.scandir(WORK):
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def kill_rest(child_pid):
    """Kill every process left by the run and reap them."""
    if PID1:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        try:
            os.killpg(child_pid, signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue


def child_main(req, wfd, config, session, collector):
    try:
        os.close(3)
        os.close(4)
    except OSError:
        pass
    os.setsid()
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
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
    over = []

    def on_xfsz(signum, frame):
        over.append(1)

    signal.signal(signal.SIGXFSZ, on_xfsz)
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
    collector.fd = wfd
    collector.coverage = bool(req.get("coverage"))
    collector.text_cap = int(req.get("text_cap", 16000))
    code = run_session(config, session, collector)
    collector.emit({"t": "done", "exit": code, "output_limit": bool(over)})
    os._exit(0)


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


PYC_CACHE = {}
PYC_CACHE_MAX = 512


def place_rewritten_tests(config, tests):
    """Give the child pytest's assertion-rewritten test module as a cached
    pyc, so a test file is parsed, rewritten and compiled once per worker
    rather than once per run. The rewrite is pytest's own (_rewrite_test);
    the worker only parses and compiles, it never runs the file. The pyc is
    root-owned and read-only to the child."""
    import hashlib
    import importlib.util
    import marshal
    import warnings as _warnings
    from pathlib import Path
    from _pytest.assertion import rewrite

    fn = Path(WORK) / "test_solution.py"
    key = hashlib.sha256(tests.encode("utf-8", "surrogatepass")).hexdigest()
    body = PYC_CACHE.get(key)
    if body is None:
        try:
            with _warnings.catch_warnings():
                _warnings.simplefilter("ignore")
                _, co = rewrite._rewrite_test(fn, config)
        except Exception:  # noqa: BLE001 - the child reports the error itself
            return
        body = marshal.dumps(co)
        if len(PYC_CACHE) >= PYC_CACHE_MAX:
            PYC_CACHE.pop(next(iter(PYC_CACHE)))
        PYC_CACHE[key] = body
    st = os.stat(fn)
    cache_dir = rewrite.get_cache_dir(fn)
    os.makedirs(cache_dir, mode=0o755, exist_ok=True)
    header = importlib.util.MAGIC_NUMBER + b"\x00\x00\x00\x00" + struct.pack(
        "<LL", int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF)
    with open(cache_dir / ("test_solution" + rewrite.PYC_TAIL), "wb") as f:
        f.write(header + body)


def run_one(req, config, session, collector):
    clear_workdir()
    for name, key in (("solution.py", "program"), ("test_solution.py", "tests")):
        with open(os.path.join(WORK, name), "w", encoding="utf-8") as f:
            f.write(req[key])
        os.chmod(os.path.join(WORK, name), 0o644)
    place_rewritten_tests(config, req["tests"])
    r, w = os.pipe()
    t0 = time.monotonic()
    tp0 = os.times()
    child_cpu = 0.0
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            child_main(req, w, config, session, collector)
        finally:
            os._exit(70)
    os.close(w)
    pidfd = os.pidfd_open(pid)
    deadline = t0 + float(req["timeout_s"])
    buf = bytearray()
    overflow = False
    timed_out = False
    status = None
    fds = [r, pidfd]
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        try:
            ready, _, _ = select.select(fds, [], [], remaining)
        except InterruptedError:
            continue
        if r in ready:
            data = os.read(r, 1 << 16)
            if not data:
                fds.remove(r)
            elif len(buf) < MAX_EVENT_BYTES:
                buf += data
            else:
                overflow = True
        if pidfd in ready:
            _, status, ru = os.wait4(pid, 0)
            child_cpu = ru.ru_utime + ru.ru_stime
            break
    if timed_out:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if r in fds:
        os.set_blocking(r, False)
        while len(buf) < MAX_EVENT_BYTES:
            try:
                data = os.read(r, 1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            buf += data
    wall = time.monotonic() - t0
    kill_rest(pid)
    if status is None:
        status = 9  # killed by us (timeout)
    os.close(r)
    os.close(pidfd)
    events = []
    for line in bytes(buf).split(b"\n"):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    resp = {"id": req.get("id"), "events": events, "timed_out": timed_out, "overflow": overflow,
            "wall_ms": wall * 1000.0, "child_cpu_ms": child_cpu * 1000.0}
    tp1 = os.times()
    resp["worker_cpu_ms"] = (tp1.user + tp1.system - tp0.user - tp0.system) * 1000.0
    if os.WIFSIGNALED(status):
        resp["signal"] = os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        resp["exit"] = os.WEXITSTATUS(status)
    clear_workdir()
    return resp


def main():
    if PID1:
        # PID 1 gets no default signal actions; make SIGTERM/SIGINT end the worker.
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        signal.signal(signal.SIGINT, lambda *a: os._exit(0))
        protections.append("pidns")
    setup_mounts()
    os.environ["HOME"] = WORK
    os.environ["TMPDIR"] = WORK
    os.environ["USER"] = "sandbox"
    os.environ["LOGNAME"] = "sandbox"
    tempfile.tempdir = WORK
    sys.dont_write_bytecode = True
    os.chdir(WORK)
    warm_up()
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
    if UID >= 0 and os.getuid() == 0:
        protections.append("uid-drop")
    protections.append("rlimits")
    gc.collect()
    gc.freeze()
    write_msg(4, {"t": "hello", "pid": os.getpid(), "protections": protections, "warnings": warnings,
                  "python": sys.version.split()[0]})
    while True:
        req = read_msg(3)
        if req is None:
            return
        try:
            resp = run_one(req, config, session, collector)
        except Exception as e:  # noqa: BLE001 - infrastructure failure, reported to Go
            resp = {"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)}
        write_msg(4, resp)


if __name__ == "__main__":
    main()
