# triage sandbox worker: a warm pytest process whose runs each have two
# processes, a judge and the program's (see README.md).
#
# Started by search/sandbox (Go) as `python3 -s worker.py CONFIG_JSON`, in an
# environment of Go's own with PYTHONHASHSEED=0 (hash order is the same in
# every run), with fd 3 = requests (Go -> worker) and fd 4 = responses
# (worker -> Go); each message is a 4-byte big-endian length and a JSON
# object. The other files of the harness lie beside this one and are
# imported from there before the new root hides that folder.
#
# Start-up, as PID 1 of fresh pid/net/mount/ipc/uts namespaces when Go could
# create them: import and warm pytest, build the new root from what was
# imported and pivot into it (confine.py), build one pytest Config and
# Session for /sandbox, install the worker's seccomp filter, fork the fork
# server, measure the recursion room of a run's calls, say hello.
#
# Requests (see pool.go):
#   run      write the run's files, have the fork server fork its program
#            process and its judge (runs.py), watch both within the run's
#            limits (watch.py) and answer with the judge's events.
#   collect  a judge alone, with a stand-in for solution.py and
#            --collect-only: the test ids of the test file, taken without
#            running any program (or read from its text, testids.py).
import os
import sys

# Each fork copies the page-table entries of the forking process's pages and
# each child's exit unmaps them: with 4 KiB pages that was about 9,000
# entries and about 3 ms of CPU a run on these VMs (perf). The fork server makes its
# memory 2 MiB huge pages (see forkserver.py), one entry for 512, but only
# whole, aligned 2 MiB of one mapping can become one, and Python's objects
# live in 1 MiB arenas, each its own mapping, which interleave with the
# libraries imported later. So, before any import, this makes the arenas the
# worker's objects will need in one run of address space, and keeps each by
# one small object (an arena with a live object is never given back): the
# worker's objects then fill these first.
ARENA_RESERVE_MB = 24


def reserve_arenas(mb):
    """Objects that keep about mb MiB of object arenas made in a row: one
    per 512 KiB of the blocks that filled them (an arena spans 1 MiB). The
    list that holds the blocks is made at its full size first: a list that
    grew would move its buffer (a mapping of its own, some 450 KiB) between
    the arenas, and the holes it left behind split them into pieces too
    short for a huge page."""
    n = mb * 2400  # 448-byte blocks, about 1.07 MB per 2400
    blocks = [None] * n
    for i in range(n):
        blocks[i] = bytes(400)
    keep = {}
    for b in blocks:
        keep.setdefault(id(b) >> 19, b)
    return list(keep.values())


if __name__ == "__main__":
    ARENA_PINS = reserve_arenas(ARENA_RESERVE_MB)

import gc  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import marshal  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings as _warnings  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_EVENT_BYTES = 32 << 20


def import_harness():
    """Import the harness's files from this file's folder (which the new
    root will not show), then take the folder off sys.path again: it is no
    place for a run to import from."""
    sys.path.insert(0, HERE)
    try:
        import confine, direct, failtext, forkserver, harness, judge, program, runs, testids, watch, wire  # noqa: F401
    finally:
        sys.path[:] = [p for p in sys.path if p != HERE]
    return {m.__name__: m for m in (confine, direct, failtext, forkserver, harness, judge, program, runs, testids,
                                    watch, wire)}


def write_msg(fd, obj):
    data = json.dumps(obj).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def read_msg(fd, read_exact):
    head = read_exact(fd, 4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    body = read_exact(fd, n)
    return None if body is None else json.loads(body)


def compile_program(program, path, memo):
    """solution.py's code object as the import system would compile the file
    write_run_files writes at path, compiled here once (a run's program
    process then skips the compiler): (code, bytes, path), or None where the
    program process compiles it itself (a syntax error, a warning at compile
    time, text that does not encode). memo keeps the last one."""
    cached = memo.get("program_code")
    if cached is not None and cached[0] == (program, path):
        return cached[1]
    out = None
    try:
        data = program.encode("utf-8")
        with _warnings.catch_warnings(record=True) as seen:
            _warnings.simplefilter("always")
            code = compile(data, path, "exec", dont_inherit=True, optimize=-1)
        if not seen:
            out = (code, data, path)
    except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError, OverflowError):
        out = None
    memo["program_code"] = ((program, path), out)
    return out


def program_path(ctx):
    return os.path.join(ctx["work"], ctx["m"]["runs"].PROGRAM_FOLDER, "solution.py")


def clear_workdir(ctx):
    for entry in os.scandir(ctx["work"]):
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def write_run_files(req, ctx):
    """The run folder: test_solution.py (and the judge's copy of
    solution.py, for the text of the program's frames) root's alone; the
    program's folder, its uid's, with its solution.py."""
    work = ctx["work"]
    files = [(os.path.join(work, "test_solution.py"), req["tests"], 0o600)]
    if req.get("kind") != "collect":
        folder = os.path.join(work, ctx["m"]["runs"].PROGRAM_FOLDER)
        os.mkdir(folder, 0o700)
        if ctx["uid"] >= 0 and os.getuid() == 0:
            os.chown(folder, ctx["uid"], ctx["uid"])
        files += [(os.path.join(work, "solution.py"), req["program"], 0o600),
                  (os.path.join(folder, "solution.py"), req["program"], 0o644)]
    for path, text, mode in files:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path, mode)


def start_run(ctx, req, plan, test_code, program):
    """Fork a run's processes (through the fork server where the worker has
    one): the judge, and for a run the program process first."""
    runs, watch, fs = ctx["m"]["runs"], ctx["m"]["watch"], ctx["m"]["forkserver"]
    child_req = {k: req[k] for k in ("kind", "limits", "coverage", "phases", "own_cpu", "text_cap") if k in req}
    judge_body = runs.body_bytes({"req": child_req, "plan": plan, "padding": ctx.get("padding", 0),
                                  "room": ctx.get("rooms")}, test_code or b"")
    program_body = None
    if req.get("kind") != "collect":
        tail = b""
        if program is not None:
            try:
                tail = marshal.dumps(program)
            except ValueError:
                tail = b""
        program_body = runs.body_bytes({"req": child_req, "room": ctx.get("rooms")}, tail)
    mine, fds = fs.run_fds(judge_body, program_body)
    server = ctx.get("fork_server")
    # A direct run's judge may serve the next run of the same request
    # (keep.py): the key is the test file and what else the judge's
    # request says (not its marshalled code, whose bytes vary with the
    # objects' reference counts). A reference's measured run (own_cpu)
    # always has a fresh judge: a task's limits scale with what a fresh
    # judge costs (its harness CPU is the machine's measure).
    keep = None
    if plan is not None and program_body is not None and ctx.get("keep_judge") and not req.get("own_cpu"):
        said = json.dumps([child_req, plan, ctx.get("padding", 0), ctx.get("rooms")], sort_keys=True, default=repr)
        keep = hashlib.blake2b(req["tests"].encode() + b"\0" + said.encode(), digest_size=16).hexdigest()
    pids = server.spawn(fds, keep) if server is not None else None
    if pids is None:
        pids = fork_pair(ctx, fds)
        server = None
    for fd in fds:
        os.close(fd)
    run = watch.Run(pids[0], pids[1], *mine)
    run.server = server
    return run


def fork_pair(ctx, fds):
    """The worker's own forks of a run's processes (no fork server)."""
    runs, fs = ctx["m"]["runs"], ctx["m"]["forkserver"]
    ppid = 0
    if len(fds) > fs.JUDGE_FDS:
        ppid = os.fork()
        if ppid == 0:
            try:
                runs.program_main(ctx, *fs.program_side(fds))
            finally:
                os._exit(70)
    pid = os.fork()
    if pid == 0:
        try:
            runs.judge_main(ctx, *fs.judge_side(fds))
        finally:
            os._exit(70)
    return pid, ppid


def end_run(ctx, r):
    """Kill and reap what a run the worker forked itself left behind (the
    fork server does it for the runs it forked)."""
    if r.server is not None:
        return
    fs = ctx["m"]["forkserver"]
    if PID1[0]:
        fs.kill_all_and_reap()
        fs.reset_files(ctx["capture_fds"])
        return
    ctx["m"]["watch"].kill_each(os.killpg, (r.pid, r.ppid))
    fs.reap_all()
    fs.reset_files(ctx["capture_fds"])


def finish(resp, r, t0, tp0, ctx):
    resp["wall_ms"] = (time.monotonic() - t0) * 1000.0
    end_run(ctx, r)
    for fd in (r.r, r.mr, r.pmr):
        if fd is not None:
            os.close(fd)
    status = r.status if r.status is not None else 9  # killed by us (timeout)
    if r.ppid and r.pstatus is not None and any(ev.get("t") == "program_ended" for ev in resp["events"]):
        status = r.pstatus  # the judge ended because the program did: the run died of what the program did
    resp["timed_out"] = bool(r.timeout)
    if r.reused:
        resp["kept_judge"] = True
    resp["timeout_kind"] = r.timeout
    resp["child_cpu_ms"] = (r.judge_cpu_ns - r.judge_base_ns + r.program_cpu_ns) / 1e6
    resp["cpu_ms"] = r.cpu_ns / 1e6
    if r.ppid:
        resp["program_cpu_ms"] = r.program_ns / 1e6 if r.program_ns else \
            max(0, r.program_cpu_ns - (r.pstart_ns or 0)) / 1e6
    resp["child_minflt"] = r.minflt
    if r.start_ns is not None:
        resp["setup_cpu_ms"] = (r.start_ns - r.judge_base_ns + (r.pstart_ns or 0)) / 1e6
    tp1 = os.times()
    resp["worker_cpu_ms"] = (tp1.user + tp1.system - tp0.user - tp0.system) * 1000.0 + r.server_cpu_ms
    if os.WIFSIGNALED(status):
        resp["signal"] = os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        resp["exit"] = os.WEXITSTATUS(status)
    clear_workdir(ctx)
    return resp


def finish_without_child(resp, t0, tp0, ctx):
    resp["wall_ms"] = (time.monotonic() - t0) * 1000.0
    tp1 = os.times()
    resp["worker_cpu_ms"] = (tp1.user + tp1.system - tp0.user - tp0.system) * 1000.0
    resp["exit"] = 0
    clear_workdir(ctx)
    return resp


def cpu_limit_ns(req, field="cpu_limit_s"):
    return int(float(req.get(field) or 0) * 1e9)


def run_one(req, ctx):
    """A run (kind run or collect)."""
    t0, tp0 = time.monotonic(), os.times()
    harness = ctx["m"]["harness"]
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
                                         "static_ids": True}, t0, tp0, ctx)
    plan = None
    if req.get("kind") == "run" and req.get("ids") and ctx.get("direct") is not None:
        try:
            plan = ctx["direct_plan"](req["tests"], req["ids"])
        except Exception:  # noqa: BLE001 - pytest runs the file
            plan = None
    clear_workdir(ctx)
    write_run_files(req, ctx)
    code = None
    if plan is not None:
        # The rewritten module, compiled from the file as pytest's hook does.
        entry = ctx["place_pyc"].entry_of(req["tests"])
        code = entry[1] if entry is not None else None
        if code is None:
            plan = None
    if plan is None:
        # The direct runner executes the code object itself; only pytest's
        # import reads the pyc.
        ctx["place_pyc"](req["tests"])
    program = compile_program(req["program"], program_path(ctx), ctx) if req.get("kind") == "run" else None
    program_limit = cpu_limit_ns(req, "program_cpu_limit_s") if req.get("kind") == "run" else 0
    r = start_run(ctx, req, plan, code, program)
    ctx["m"]["watch"].wait_run(r, t0 + float(req["timeout_s"]), MAX_EVENT_BYTES, cpu_limit_ns(req), program_limit)
    events = harness.parse_lines(r.buf)
    resp = {"id": req.get("id"), "events": events, "overflow": r.overflow}
    if plan is not None:
        resp["direct"] = True
        resp["fallback"] = next((ev.get("why") or "pytest" for ev in events if ev.get("t") == "pytest_runs"), None)
        why = next((ev.get("why") or "" for ev in events if ev.get("t") == "fallback"), None)
        if why is not None and not r.timeout and not r.overflow:
            # The direct judge stopped after tests had run: pytest runs the
            # file with a fresh judge and program process, with the run's
            # whole limits (a run of pytest's own), their CPU added to the
            # first ones'.
            first = r
            end_run(ctx, first)
            for fd in (first.r, first.mr, first.pmr):
                if fd is not None:
                    os.close(fd)
            clear_workdir(ctx)
            write_run_files(req, ctx)
            ctx["place_pyc"](req["tests"])
            r = start_run(ctx, req, None, None, program)
            ctx["m"]["watch"].wait_run(r, time.monotonic() + float(req["timeout_s"]), MAX_EVENT_BYTES,
                                       cpu_limit_ns(req), program_limit)
            r.cpu_ns += first.cpu_ns
            r.judge_cpu_ns += first.judge_cpu_ns - first.judge_base_ns
            r.program_cpu_ns += first.program_cpu_ns
            r.program_ns += first.program_ns
            r.minflt += first.minflt
            r.server_cpu_ms += first.server_cpu_ms
            resp = {"id": req.get("id"), "events": harness.parse_lines(r.buf), "overflow": r.overflow,
                    "fallback": why or "fallback"}
    return finish(resp, r, t0, tp0, ctx)


ROOM_TEST = '''import sys
from solution import _room_program


def _room(n=0):
    try:
        return _room(n + 1)
    except RecursionError:
        return n


def _depth():
    f, n = sys._getframe(1), 0
    while f is not None:
        f, n = f.f_back, n + 1
    return n


def test_room():
    assert (_room(), _depth(), _room_program()) == -1
'''

ROOM_PROGRAM = '''def _room_program(n=0):
    try:
        return _room_program(n + 1)
    except RecursionError:
        return n
'''


WARM_PROGRAM = '''import collections


class Box:
    def __init__(self, v):
        self.v = v

    def get(self):
        return self.v

    def __len__(self):
        return 1


class Oops(ValueError):
    pass


def add(a, b):
    return a + b


def grow(xs):
    xs.append(len(xs))
    return xs


def gen(n):
    for i in range(n):
        yield i * i


def bad(x):
    raise Oops("bad", x)


def counts(s):
    return collections.Counter(s)


def apply(f, x):
    return f(x)
'''

WARM_USE = '''from _triage_warm_solution import *
from _triage_warm_solution import Box, Oops

assert add(1, 2) == 3 and add("a", "b") == "ab" and add([1], [2.5]) == [1, 2.5]
assert add((1, None), (True,)) == (1, None, True) and add({1: 2}.keys() and 1, 1) == 2
xs = [3]
assert grow(xs) is xs and xs == [3, 1]
b = Box({"k": (1, 2)})
assert b.get() == {"k": (1, 2)} and len(b) == 1 and b.v == {"k": (1, 2)} and isinstance(b, Box)
assert list(gen(3)) == [0, 1, 4] and sum(x for x in gen(2)) == 1
assert counts("aab") == {"a": 2, "b": 1} and apply(lambda v: v + 1, 1) == 2
try:
    bad(1)
except Oops as e:
    assert e.args == ("bad", 1)
try:
    b.nothing
except AttributeError:
    pass
repr(b)
'''


def warm_channel(ctx, folder, rounds=12):
    """Run both sides of a run's channel in this process (the program's in
    a thread, under other module names), so that their code is specialized
    and the judge's proxy classes of common types are made before the fork
    server copies this process: a run's processes then write fewer of its
    pages (CPython 3.11 writes into a function's code as it specializes it)."""
    import socket
    import threading

    judge, program = ctx["m"]["judge"], ctx["m"]["program"]
    path = os.path.join(folder, "warm_program.py")
    with open(path, "w") as f:
        f.write(WARM_PROGRAM)
    use = compile(WARM_USE, os.path.join(folder, "warm_use.py"), "exec")
    try:
        for _ in range(rounds):
            a, b = socket.socketpair()
            srv = program.Server(b, path, None, room_bias=0, std_prefixes=ctx["std_prefixes"],
                                 name="_triage_warm_program")

            def serve(srv=srv):
                srv.thread = threading.get_ident()
                srv.serve_forever()

            th = threading.Thread(target=serve, daemon=True)
            th.start()
            c = judge.Client(a, folder, folder, ctx["std_prefixes"], room_bias=0)
            finder = judge.install(c, path, "_triage_warm_solution")
            try:
                exec(use, {"__name__": "_triage_warm_use"})
            finally:
                a.close()
                th.join(5)
                b.close()
                sys.meta_path[:] = [f for f in sys.meta_path if f is not finder]
                for name in ("_triage_warm_solution", "_triage_warm_program"):
                    sys.modules.pop(name, None)
                judge._client[0] = None
    finally:
        for name in ("warm_program.py",):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def program_streams(program):
    """program.output_streams(), made while fds 1 and 2 are a pipe, as they
    are in a program process (the streams read what their file is once, at
    their making: not seekable)."""
    r, w = os.pipe()
    saved = os.dup(1), os.dup(2)
    try:
        os.dup2(w, 1)
        os.dup2(w, 2)
        return program.output_streams()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + (r, w):
            os.close(fd)


def warm_after_fork(rounds=64):
    """Run what CPython runs in every child right after a fork (the
    threading module's reset, logging's lock reset, random's reseed) here,
    in this single-threaded process, until its code is specialized: each
    run's two processes then run it without writing into its code."""
    import logging
    import random
    import threading

    for _ in range(rounds):
        threading._after_fork()
        logging._after_at_fork_child_reinit_locks()
        random._inst.seed()


def measure_room(ctx, direct):
    """(room, depth, program's room) of ROOM_TEST's test: the frames free
    below its test function, the test function's depth, and the frames a
    call from there finds free in the program process; by pytest's run or
    (direct) the direct runner's. None when it did not report."""
    req = {"kind": "run", "program": ROOM_PROGRAM, "tests": ROOM_TEST, "timeout_s": 30,
           "limits": {"cpu_s": 30, "as_bytes": 0, "nproc": 0, "fsize": 0, "nofile": 256}}
    if direct:
        req["ids"] = ["test_solution.py::test_room"]
    resp = run_one(req, ctx)
    if bool(resp.get("direct")) != direct or resp.get("fallback"):
        return None
    for ev in resp.get("events", ()):
        m = re.match(r"assert \((\d+), (\d+), (\d+)\) == -1", ev.get("msg") or "") if ev.get("t") == "test" else None
        if m:
            return int(m.group(1)), int(m.group(2)), int(m.group(3))
    return None


def calibrate(ctx, warnings):
    """Match the recursion room of a run's calls to pytest's own run in one
    process, with two runs of ROOM_TEST: the direct runner pads each test
    call to pytest's room (padding), and a call into the program process
    gets the room its caller had in the judge (rooms: the frames on the way
    that the recursion limit counts and frame depth does not, on each side).
    A program's room follows the room the judge sends one for one: what the
    program went in pytest's run, the judge's bias still 0, gives the
    program's bias (TestProgramRecursionRoomIsTheTests holds the result).
    Measured with the processes a run has, through the fork server where
    there is one."""
    limit = sys.getrecursionlimit()
    ctx["rooms"] = {"judge_pytest": 0, "judge_direct": 0, "program": 0}
    ctx["padding"] = 0
    d = measure_room(ctx, True) if ctx.get("direct") is not None else None
    p = measure_room(ctx, False)
    if p is None:
        warnings.append("the recursion room of a run's calls could not be measured")
        ctx["rooms"], ctx["direct"] = None, None
        return
    room, depth, program_room = p
    rooms = {"judge_pytest": limit - depth - room, "judge_direct": 0, "program": limit - depth - program_room}
    ctx["rooms"] = rooms
    if ctx.get("direct") is None:
        return
    if d is None or d[0] < room:
        ctx["direct"] = None
        warnings.append("direct runner off: the recursion room of its calls could not be matched to pytest's "
                        "(%s, %s)" % (d, p))
        return
    ctx["padding"] = d[0] - room
    rooms["judge_direct"] = limit - (d[1] + ctx["padding"]) - room


def main():
    phases = {}
    clock = [time.process_time()]

    def phase(name):
        now = time.process_time()
        phases[name] = phases.get(name, 0.0) + (now - clock[0]) * 1000.0
        clock[0] = now

    cfg = json.loads(sys.argv[1])
    work = cfg["workdir"]
    uid = int(cfg.get("uid", -1))
    isolate = bool(cfg.get("mountns"))
    disable = frozenset(cfg.get("disable") or ())
    PID1[0] = os.getpid() == 1
    protections, warnings = [], []
    m = import_harness()
    confine, harness = m["confine"], m["harness"]
    if PID1[0]:
        # PID 1 gets no default signal actions; make SIGTERM/SIGINT end the worker.
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        signal.signal(signal.SIGINT, lambda *a: os._exit(0))
        protections.append("pidns")
    sys.dont_write_bytecode = True
    host_work = work
    phase("load")
    ranges_memo = m["failtext"].memoize_statement_ranges()
    m["failtext"].cache_traceback_frames()
    harness.warm_up(os.path.join(host_work, ".warm-%d" % os.getpid()))
    ranges_memo.freeze()
    phase("warm-pytest")
    own_maps = m["forkserver"].open_own_maps()  # read (and closed) right before the fork server is forked
    last_pid_fd = open_last_pid()  # the fork server's test for processes a program made (keep.py)
    # The run folder is root's: the program reaches its own folder in it and
    # nothing else (it cannot list the run folder, read the test file or
    # plant a file where the judge imports from).
    opts = "size=%dm,mode=0711" % int(cfg.get("tmpfs_mb", 64))
    if isolate and "mount-allowlist" in disable:
        fallback_mounts(confine, opts, work, cfg, protections, warnings)
    elif isolate:
        try:
            entries, dynload, _, _ = confine.view_entries(sys.modules)
            work = confine.build_root(host_work, entries, dynload, opts, uid)
            protections.extend(["mount-allowlist", "readonly-root", "private-tmpfs"])
        except OSError as e:
            warnings.append("mount allowlist unavailable (%s); the host tree stays visible read-only" % e)
            fallback_mounts(confine, opts, work, cfg, protections, warnings)
    phase("mount-allowlist" if "mount-allowlist" in protections else "mounts")
    # Home and temporary folder of a run's processes, both: the program's
    # folder (the judge's tempfile folder stays the run folder: tempdir).
    os.environ["HOME"] = os.environ["TMPDIR"] = os.path.join(work, m["runs"].PROGRAM_FOLDER)
    os.environ["USER"] = "sandbox"
    os.environ["LOGNAME"] = "sandbox"
    tempfile.tempdir = work
    os.chdir(work)
    from _pytest.config import _prepareconfig

    collector = harness.Collector()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    try:
        config = _prepareconfig(list(harness.ARGS), plugins=harness.make_plugins(collector))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    os.dup2(devnull, 1)  # pytest's terminal output of each run is not needed
    os.close(devnull)
    session = harness.start_session(config)
    harness.share_tmp_paths(uid)
    testids = m["testids"]
    ctx = {"config": config, "session": session, "collector": collector, "work": work, "uid": uid, "m": m,
           "place_pyc": harness.make_pyc_placer(config, work), "installer": None, "child_filter": None, "xfsz": [],
           "std_prefixes": harness.std_prefixes(),
           "static_ids": testids.make_static_ids(config) if "static-ids" not in disable else (lambda tests: None),
           "direct": m["direct"].direct_runner_or_none(config, collector, work, warnings)
           if "direct" not in disable else None,
           "direct_plan": testids.make_direct_plan(config)}
    phase("pytest-session")
    protections.extend(["two-process", "reference-ids"])
    if uid >= 0 and os.getuid() == 0:
        protections.append("uid-drop")
    protections.append("rlimits")
    # The output cap's signal is caught here, once: a run's processes may
    # not install handlers after their seccomp filter.
    signal.signal(signal.SIGXFSZ, lambda *a: ctx["xfsz"].append(1))
    if isolate and "seccomp" not in disable:
        if confine.seccomp_supported():
            try:
                inst = confine.FilterInstaller()
                worker_filter = inst.prepare(confine.seccomp_filter())
                ctx["child_filter"] = inst.prepare(confine.no_signal_handlers_filter())
                ctx["installer"] = inst
                inst.install(worker_filter)
                protections.extend(["seccomp", "no-new-privs"])
            except OSError as e:
                ctx["child_filter"] = None
                warnings.append("seccomp unavailable: %s" % e)
        else:
            warnings.append("seccomp filter is written for x86-64 only; not installed on %s" % os.uname().machine)
    phase("seccomp")
    fs = m["forkserver"]
    collapse = fs.make_collapse(ctx["installer"]) if ctx["installer"] is not None else None
    # ctypes did its work (mounts, filters); a run cannot import it from
    # sys.modules (nor from the file system: the new root leaves _ctypes out).
    for name in list(sys.modules):
        if name == "ctypes" or name.startswith("ctypes.") or name == "_ctypes":
            del sys.modules[name]
    m["failtext"].warm_module_scan(HERE)
    try:
        warm_channel(ctx, work)
    except Exception as e:  # noqa: BLE001 - a cold channel costs time, not a verdict
        warnings.append("the channel's warm-up failed: %s: %s" % (type(e).__name__, e))
    warm_after_fork()
    ctx["capture_fds"] = harness.capture_fds(config)
    m["forkserver"].reset_files(ctx["capture_fds"])
    ctx["program_streams"] = program_streams(ctx["m"]["program"])
    ctx["program_sys_path"], ctx["program_cache_drop"] = m["runs"].program_paths(work)
    ctx["program_spec"] = m["program"].program_spec(program_path(ctx))
    ctx["last_pid_fd"] = last_pid_fd
    fork = fs.make_fork(ctx["installer"])
    phase("warm-channel")
    gc.collect()
    gc.freeze()
    spans = fs.huge_page_spans(own_maps)
    hugepages = 0
    if PID1[0] and ctx["installer"] is not None and "fork-server" not in disable:
        server = fs.ForkServer(ctx, ctx["installer"].prctl, spans, collapse, fork)
        if server.hugepages is None:
            server.abandon()
            warnings.append("the fork server did not start; the worker forks its runs itself")
        else:
            ctx["fork_server"], hugepages = server, server.hugepages
            protections.append("fork-server")
            if last_pid_fd is not None and "kept-judge" not in disable:
                ctx["keep_judge"] = True
                protections.append("kept-judge")
    phase("fork-server")
    calibrate(ctx, warnings)
    phase("calibration")
    write_msg(4, {"t": "hello", "pid": os.getpid(), "protections": protections, "warnings": warnings,
                  "python": sys.version.split()[0], "startup_cpu_ms": phases,
                  "fork_server": ctx.get("fork_server") is not None, "fork_server_hugepages": hugepages})
    while True:
        req = read_msg(3, m["forkserver"].read_exact)
        if req is None:
            if ctx.get("fork_server") is not None:
                ctx["fork_server"].close()
            return
        try:
            resp = run_one(req, ctx)
        except Exception as e:  # noqa: BLE001 - infrastructure failure, reported to Go
            resp = {"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)}
        write_msg(4, resp)


def open_last_pid():
    """A descriptor of the pid namespace's ns_last_pid, opened while /proc
    is there, or None where the kernel has none (it reads the reader's own
    namespace's)."""
    try:
        fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        int(os.pread(fd, 32, 0))
    except (OSError, ValueError):
        os.close(fd)
        return None
    return fd


PID1 = [False]


def fallback_mounts(confine, opts, work, cfg, protections, warnings):
    """Without a new root (pivot_root failed): the old view, the host's tree
    read-only with a private tmpfs work dir and hidden home folders."""
    mnt = confine.Mounter()
    try:
        mnt.mount(None, "/", None, confine.MS_REC | confine.MS_PRIVATE)
    except OSError as e:
        warnings.append("mount namespace unusable: %s" % e)
        return
    try:
        mnt.mount("tmpfs", work, "tmpfs", confine.MS_NOSUID | confine.MS_NODEV | confine.MS_NOEXEC, opts)
        protections.append("private-tmpfs")
    except OSError as e:
        warnings.append(str(e))
    for h in cfg.get("hide", []):
        if h and os.path.isdir(h) and os.path.realpath(h) not in ("/", work):
            try:
                mnt.mount("tmpfs", h, "tmpfs", confine.MS_NOSUID | confine.MS_NODEV | confine.MS_RDONLY,
                          "size=4k,mode=0555")
            except OSError as e:
                warnings.append(str(e))
    try:
        mnt.mount("/", "/", None, confine.MS_BIND | confine.MS_REC)
        mnt.mount(None, "/", None, confine.MS_REMOUNT | confine.MS_BIND | confine.MS_RDONLY)
        protections.append("readonly-root")
    except OSError as e:
        warnings.append(str(e))


if __name__ == "__main__":
    # This file's folder is not a place to import from (what -I's -P does).
    if sys.path and sys.path[0] == HERE:
        del sys.path[0]
    main()
