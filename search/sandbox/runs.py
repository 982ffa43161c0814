# triage sandbox runs: the two processes of a run, from the fork that makes
# each to its end (see README.md, "Two processes").
#
#   judge    the test file, pytest (or the direct runner), every assertion:
#            root's, as the worker, with the run's rlimits and the
#            no-signal-handler filter. It writes the run's events, one JSON
#            line each, on its result pipe, which no other process holds,
#            and asks the program process for everything of solution.py's
#            over a socket (judge.py).
#   program  solution.py's import and every call into it (program.py): the
#            run's unprivileged uid, its own folder (the run folder's
#            program.d), the run's rlimits and the no-signal-handler filter.
#            It holds the socket, its start-mark pipe and nothing else: not
#            the test file (root's, mode 0600), not the judge's memory (a
#            process of its own, another uid), not the events.
#
# Each reads its request from a memfd the fork server passed on unread (the
# server's memory, which each starts as a copy of, holds no test file and no
# other program), writes the CPU it used before any code of the test file or
# the program ran (the start mark, from which the run's CPU limit counts) on
# a pipe it then closes, and ends with os._exit.
import marshal
import os
import resource
import signal
import _signal
import struct
import sys
import tempfile
import time

import harness
import judge
import keep
import program

PROGRAM_FOLDER = "program.d"


def read_body(fd):
    """The bytes of a request's memfd, closed: read at its size (a buffer
    of that size, no larger one to shrink)."""
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        data = os.pread(fd, size, 0) if size else b""
        while len(data) < size:
            more = os.pread(fd, size - len(data), len(data))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return data


def body_bytes(obj, tail=b""):
    """A request's body: 4 bytes of the header's length, the header (obj
    marshalled: the worker's own values, read back by C code alone), then
    tail (marshalled code)."""
    head = marshal.dumps(obj)
    return struct.pack(">I", len(head)) + head + tail


def split_body(data):
    (n,) = struct.unpack(">I", data[:4])
    return marshal.loads(data[4:4 + n]), data[4 + n:]


def set_limits(lim, keep_cpu_hard=False):
    cpu = (lim["cpu_s"], resource.getrlimit(resource.RLIMIT_CPU)[1] if keep_cpu_hard else lim["cpu_s"] + 1)
    for res, val in ((resource.RLIMIT_CPU, cpu),
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


def confine(req, ctx, uid, keep_cpu_hard=False):
    """The first steps of a run's process: Go's pipes closed, its own
    session, rlimits, stdin from /dev/null, uid (the program's; -1 keeps
    the worker's), the signal-handler filter. keep_cpu_hard: a kept judge's
    (keep.py), whose CPU limit is a soft one it raises each run."""
    for fd in (3, 4):
        try:
            os.close(fd)
        except OSError:
            pass
    os.setsid()
    set_limits(req["limits"], keep_cpu_hard)
    fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    if uid >= 0 and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    if not ctx.get("filtered"):
        filter_signal_handlers(ctx)


def filter_signal_handlers(ctx):
    """SIGINT's default action, then the filter that refuses every new
    signal handler: in each run's process, or once in the fork server
    whose children inherit both (ctx["filtered"] then)."""
    # signal.signal's wrapper turns both ends into enums, touching pages of
    # the enum machinery; the C function does the same work.
    _signal.signal(int(signal.SIGINT), int(signal.SIG_DFL))
    if ctx["child_filter"] is not None:
        ctx["installer"].install(ctx["child_filter"])
        ctx["filtered"] = True


def mark_start(mfd):
    """Tell the worker how much CPU this process has used before any code
    of the program or the test file runs: the CPU limit counts from here.
    Written before that code runs, on a pipe closed right after."""
    try:
        os.write(mfd, struct.pack("<q", time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)))
        os.close(mfd)
    except OSError:
        pass


def program_paths(work):
    """(sys.path of a program process: its folder first, nothing of the run
    folder; the import system's cached finders of the run folder it drops),
    made once in the worker. Its home and temporary folder are the
    worker's environment already (HOME, TMPDIR)."""
    folder = os.path.join(work, PROGRAM_FOLDER)
    path = [folder] + [p for p in sys.path if p and not p.startswith(work)]
    drop = [p for p in sys.path_importer_cache if type(p) is str and p.startswith(work)]
    return path, drop


def program_main(ctx, sock, output, mfd, body_fd):
    """The program process: never returns. output: the write ends of the
    pipes of its stdout and stderr (the judge reads them)."""
    run, tail = split_body(read_body(body_fd))
    req = run["req"]
    # Every other descriptor this copy of the fork server holds is none of
    # the program's business.
    keep = sorted((sock.fileno(), mfd) + tuple(output))
    low = 3
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    code = None
    if tail:
        try:
            code = marshal.loads(tail)
        except (ValueError, EOFError, TypeError):
            code = None
    folder = os.path.join(ctx["work"], PROGRAM_FOLDER)
    confine(req, ctx, ctx["uid"])
    os.chdir(folder)
    tempfile.tempdir = folder
    sys.path[:] = ctx["program_sys_path"]
    for p in ctx["program_cache_drop"]:
        sys.path_importer_cache.pop(p, None)
    rooms = run.get("room")
    server = program.Server(sock, os.path.join(folder, "solution.py"), code, spec=ctx.get("program_spec"),
                            room_bias=rooms["program"] if rooms else None, std_prefixes=ctx["std_prefixes"])
    server.capture_output(*output, streams=ctx.get("program_streams"))
    server.capture_warnings()
    mark_start(mfd)
    server.serve_forever()
    os._exit(0)


def judge_main(ctx, wfd, mfd, body_fd, sock, output=(), ctl=None):
    """The judge of a run (or of a collection, without sock): never
    returns. output: the read ends of the program's stdout and stderr.
    ctl: the control socket of a judge the fork server keeps across the
    runs of one test file (keep.py): after a direct run it takes the next
    run's descriptors there, in this same frame (its tests sit as deep in
    the stack as a fresh judge's)."""
    kept = None
    while True:
        t0 = time.process_time_ns()
        base = t0 if kept is not None else 0  # a kept judge's CPU before this run: not its setup
        marks = [t0 - base]
        run, tail = split_body(read_body(body_fd))
        req = run["req"]
        if kept is None:
            confine(req, ctx, -1, keep_cpu_hard=ctl is not None)
            if ctl is not None:
                kept = keep.Kept(ctx, ctl)
        else:
            kept.begin(req)
        marks.append(time.process_time_ns() - base)
        config, session, collector = ctx["config"], ctx["session"], ctx["collector"]
        emit = harness.make_emitter(wfd)
        collector.emit = emit
        collector.coverage = bool(req.get("coverage"))
        collector.text_cap = int(req.get("text_cap", 16000))
        plan = run.get("plan")
        rooms = run.get("room")
        if req.get("kind") == "collect":
            harness.install_stub_solution(emit)
            config.option.collectonly = True
        else:
            def gone():
                emit({"t": "program_ended"})
                os._exit(0)

            c = judge.Client(sock, os.path.join(ctx["work"], PROGRAM_FOLDER), ctx["work"], ctx["std_prefixes"],
                             room_bias=rooms["judge_direct" if plan is not None else "judge_pytest"] if rooms else None,
                             on_gone=gone, output=output)
            c.coverage = lambda: collector.lines if collector.tracing else None
            c.timed = bool(req.get("own_cpu"))
            judge.install(c, os.path.join(ctx["work"], "solution.py"))
        if req.get("phases"):
            collector.cpu = {}
        mark_start(mfd)
        if collector.cpu is not None:
            collector.cpu["start"] = time.process_time_ns()
        code = None
        if plan is not None and tail:
            try:
                test_code = marshal.loads(tail)
                if kept is not None and kept.namespaces is None:
                    kept.watch(test_code)
                ctx["direct"].set_padding(int(run.get("padding") or 0))
                code = ctx["direct"](plan, test_code)
            except BaseException as e:  # noqa: BLE001 - Fallback, or anything the direct runner did not foresee
                why = str(e) if type(e).__name__ == "Fallback" else "the direct runner stopped: %s" % type(e).__name__
                emit({"t": "fallback", "why": why[:300]})
                os._exit(0)
            if code is None and sock is not None:
                judge.client().room_bias = rooms["judge_pytest"] if rooms else None
        direct = code is not None
        if code is None:
            code = harness.run_session(config, session, collector)
        done = {"t": "done", "exit": code, "output_limit": bool(ctx["xfsz"])}
        if collector.cpu is not None:
            cpu = collector.cpu
            collected = cpu.get("collected") or time.process_time_ns()
            done["phases"] = {"collection": max(0, collected - cpu["start"]) / 1e6, "tests": cpu.get("tests", 0) / 1e6}
            done["setup"] = {"fork": marks[0] / 1e6, "confine": (marks[1] - marks[0]) / 1e6}
        own = judge.client().own_ns if sock is not None and judge.client() is not None else None
        if own is not None:
            done["program_own_ms"] = own / 1e6
        emit(done)
        again = kept is not None and direct and sock is not None and not ctx["xfsz"]
        if not again:
            os._exit(0)
        judge.install(None, None)
        for fd in (wfd, sock.fileno()) + tuple(output):
            try:
                os.close(fd)
            except OSError:
                pass
        sock.detach()
        try:
            kept.restore()
            fds = kept.next_run() if kept.reusable() else None
        except Exception:  # noqa: BLE001 - what cannot be put back ends the judge, after its verdict
            fds = None
        if fds is None:
            os._exit(0)
        wfd, mfd, body_fd, sock, output = fds
