# triage sandbox forkserver: the fork server (see README.md, "The fork
# server").
#
# Every page a process writes after a fork costs it a fault while the other
# side still shares the page, and on a paravirtualized VM a fault costs
# 10-15 us of CPU: the worker, which parses requests, verifies events and
# answers Go between its forks, paid about 700 of them a run. So where it
# can, the worker forks once, right after its start-up, a fork server: a
# copy of the warm worker that does nothing but fork a run's two processes
# on request (its program process, then its judge, unless it kept one for
# the run's test file: keep.py) and reap them. The
# worker itself never forks again, and its pages stay its own; the server's
# loop between two forks writes few pages. The server is the children's
# subreaper and kills and reaps what a run left behind (kill(-1) from it
# spares only itself and the worker, the namespace's init); it gets the
# run's pipes and bodies (memfds it never reads) from the worker as file
# descriptors (SCM_RIGHTS), so that its memory, which each program process
# starts as a copy of, never holds a test file or another program. It runs only
# inside the worker's own pid namespace with a seccomp installer (the prctl
# for the subreaper bit); elsewhere the worker forks a run's processes
# itself.
#
# Its memory is made 2 MiB huge pages first (MADV_COLLAPSE, Linux 6.1 on),
# copies of its own of the worker's pages: a fork then copies one page-table
# entry where it copied 512, and a child's exit unmaps one. A child's first
# write into a huge page splits only the child's entry (the page of the write
# is copied as before); a server's write while a child lives splits the
# server's own entry of that page (about half stay whole after a hundred
# runs; with a kept judge, a child that lives on, only those the server's
# loop never writes). Where the kernel cannot collapse, the pages stay as
# they were.
import _random
import json
import os
import select
import signal
import socket
import struct
import sys
import time

import runs

PR_SET_CHILD_SUBREAPER = 36
MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20


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


FDS_ROOM = socket.CMSG_LEN(4 * 16)  # ancillary room for the descriptors a frame brings (11 at most)


def read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


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




def make_fork(installer):
    """fork(): a child of this process, through libc's fork called with the
    GIL held, without the interpreter's after-fork work; os.fork where
    ctypes is not at hand. The fork server is single-threaded and holds no
    lock of the interpreter's or of a module's when it forks, so the work
    os.fork does in the child (the threading, logging and
    concurrent.futures hooks recreate locks and thread state) changes
    nothing there but writes about 200 pages the child then copies, some
    400 us of CPU each child. What the child needs of it, a seed of its
    own for `random`, reseed() does."""
    if installer is None:
        return os.fork
    ct = installer.ctypes
    raw = ct.PyDLL(None, use_errno=True).fork
    raw.argtypes, raw.restype = [], ct.c_int

    def fork():
        pid = raw()
        if pid < 0:
            e = ct.get_errno()
            raise OSError(e, os.strerror(e))
        return pid

    return fork


def reseed():
    """What random's own after-fork hook does: a child's `random` gets a
    seed of its own (the program's and the test's random numbers differ from
    run to run, as they did from os.fork). Random.seed() with no argument
    is its C base's seed from the system's randomness and gauss_next reset;
    called here without the Python method around it (about 45 us a child
    less)."""
    r = sys.modules.get("random")
    if r is None:
        return
    try:
        inst = r._inst
        _seed_from_system(inst)
        if inst.gauss_next is not None:
            inst.gauss_next = None
    except Exception:  # noqa: BLE001 - as os.fork ignores a failing hook: the server's state stays
        pass


_seed_from_system = _random.Random.seed


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


def reset_files(fds):
    """Empty the files of pytest's global capture, which every run's judge
    shares with this process (one open file each, one offset): what a run
    that died in the middle of a phase left there does not reach the next
    one. Only the descriptors are used (no Python object of the capture
    is written here)."""
    for fd in fds:
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            pass


def wait_for(pid):
    """(status, rusage) of child pid, waiting for it."""
    while True:
        try:
            _, status, ru = os.wait4(pid, 0)
            return status, ru
        except InterruptedError:
            continue


def end_program(pid):
    """(status, rusage) of a run's program process, killed first if it
    still runs (its judge has ended)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        return wait_for(pid)
    except ChildProcessError:
        return 9, None


def serve_forks(sock, ctx, prctl, spans, collapse, fork=os.fork):
    """The fork server's loop (see above); never returns. It first makes
    spans huge pages and tells the worker how many. A request is a small
    header and descriptors: the judge's result and start-mark pipes, its
    body (a memfd), and for a run with a program, the program's start-mark
    pipe and body; a header's "keep" key lets the server keep the run's
    judge, or hand the run to the judge it kept for that key (keep.py).
    The server never reads a body: its memory, which every program process
    starts as a copy of, holds no test file and no other program."""
    process_time_ns = time.process_time_ns
    # Go's pipes are the worker's alone. Their numbers stay taken (by
    # /dev/null), so that the descriptors a request brings never get them:
    # a run's processes close 3 and 4 first thing.
    null = os.open(os.devnull, os.O_RDONLY)
    for fd in (3, 4):
        os.dup2(null, fd)
    os.close(null)
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        os._exit(71)
    # A run's processes may install no signal handler: the server takes the
    # filter (and SIGINT's default) itself, once, and they inherit it.
    runs.filter_signal_handlers(ctx)
    reset_files(ctx["capture_fds"])
    try:
        send_head(sock, b'{"hugepages": %d}' % (collapse(spans) if collapse is not None else 0))
    except OSError:
        os._exit(0)
    # Called straight from here, as the single-process harness called its
    # child's entry: the judge's test functions then sit exactly as deep in
    # the stack as a run's tests always did (their recursion room).
    judge_main, program_main = runs.judge_main, runs.program_main
    kept = None  # the judge kept for its test file (keep.py): [pid, control socket, key]
    while True:
        try:
            msg, _, fds = recv_frame(sock)
        except (OSError, ValueError):
            msg, fds = None, []
        if msg is None:
            if kept is not None:
                retire(kept)
            os._exit(0)
        t0 = process_time_ns()
        if len(fds) not in (JUDGE_FDS, JUDGE_FDS + PROGRAM_FDS):
            for fd in fds:
                os.close(fd)
            send_head(sock, b'{"error": "descriptors"}')
            continue
        key = msg.get("keep") if len(fds) > JUDGE_FDS and type(msg) is dict else None
        if kept is not None and (reap_left(kept[0]) or key is None or key != kept[2]):
            retire(kept)
            kept = None
        ppid = 0
        if len(fds) > JUDGE_FDS:
            ppid = fork()
            if ppid == 0:
                try:
                    reseed()
                    sock.close()
                    program_main(ctx, *program_side(fds))
                finally:
                    os._exit(70)
        if kept is not None:
            try:
                send_frame(kept[1], {}, fds=[fds[i] for i in KEPT_JUDGE_FDS])
            except OSError:
                retire(kept, everything=False)  # the run's program process lives on
                kept = None
        reused = kept is not None
        if reused:
            pid = kept[0]
        else:
            ctl = theirs = None
            if key is not None:
                ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            pid = fork()
            if pid == 0:
                try:
                    reseed()
                    sock.close()
                    if ctl is not None:
                        ctl.close()
                    judge_main(ctx, *judge_side(fds), ctl=theirs)
                finally:
                    os._exit(70)
            if ctl is not None:
                theirs.close()
                kept = [pid, ctl, key]
        for fd in fds:
            os.close(fd)
        send_head(sock, b'{"pid": %d, "ppid": %d}' % (pid, ppid))
        ended = None
        if kept is not None:
            try:
                ended, _, _ = recv_frame(kept[1])
            except (OSError, ValueError):
                ended = None
            if type(ended) is not dict:
                kept[1].close()
                kept, ended = None, None
        if ended is not None:
            # The kept judge took the run and waits for the next (keep.py).
            status, cpu_ns, minflt = 0, int(ended.get("cpu_ns", 0)), int(ended.get("minflt", 0))
            # The run's last fork is the namespace's last pid while that
            # process lives (a pid in use is never given again) and still
            # once the program process is reaped: else the program made a
            # process or a thread (or wrapped the pids), and what it left
            # is ended with the judge.
            last = ppid if reused else pid
            made = last_pid(ctx["last_pid_fd"]) != last
            pstatus, pru = end_program(ppid)
            if made or last_pid(ctx["last_pid_fd"]) != last:
                retire(kept)
                kept = None
            elif reap_left(pid):
                kept = None
            base = int(ended.get("base_ns", 0))
        else:
            status, ru = wait_for(pid)
            cpu_ns, minflt, base = _cpu_ns(ru), ru.ru_minflt, 0
            pstatus, pru = end_program(ppid) if ppid else (0, None)
            # What else the run left behind is the server's (its subreaper) to
            # end: kill(-1) spares it and the worker (init).
            kill_all_and_reap()
        reset_files(ctx["capture_fds"])
        send_head(sock, b'{"status": %d, "cpu_ns": %d, "minflt": %d, "jbase_ns": %d, "reused": %d, "pstatus": %d, '
                        b'"pcpu_ns": %d, "pminflt": %d, "server_cpu_ms": %.4f}' % (
                            status, cpu_ns, minflt, base, reused, pstatus, _cpu_ns(pru), pru.ru_minflt if pru else 0,
                            (process_time_ns() - t0) / 1e6))


def reap_left(judge):
    """Reap the children that have ended, without waiting; True when the
    kept judge (pid judge) is among them, or there is no child."""
    gone = False
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        except InterruptedError:
            continue
        if pid == 0:
            return gone
        gone = gone or pid == judge


def last_pid(fd):
    """The namespace's last pid made (ns_last_pid, read from a descriptor
    opened before the new root hid /proc), or -1."""
    try:
        return int(os.pread(fd, 32, 0))
    except (OSError, ValueError):
        return -1


def retire(kept, everything=True):
    """End a kept judge: its control socket closed, killed, reaped (its CPU
    then counts in the server's children); then, with everything, every
    other process of the namespace but the server and the worker."""
    pid, ctl, _ = kept
    try:
        ctl.close()
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        wait_for(pid)
    except ChildProcessError:
        pass
    if everything:
        kill_all_and_reap()


# A run's descriptors, as the worker makes them (run_fds) and sends them:
# the judge's result pipe, start-mark pipe (write ends) and request (a
# memfd); then, for a run with a program, the program's start-mark pipe and
# request, the two ends of their socket pair, and the pipes of the
# program's stdout and stderr (read end, write end each). The server only
# forks and closes them: what it would allocate for them itself would be
# writes into its pages, shared with a child while it lives.
JUDGE_FDS, PROGRAM_FDS = 3, 8
# Those a kept judge gets of a run, in judge_side's order (kept_judge_side).
KEPT_JUDGE_FDS = (0, 1, 2, 5, 7, 9)


def run_fds(judge_body, program_body):
    """(the worker's read ends: result pipe, judge's mark, program's mark or
    None; the descriptors to send) of a run; program_body None: a run
    without a program process."""
    r, w = os.pipe()
    mr, mw = os.pipe()
    mine, send = [r, mr, None], [w, mw, memfd_of(judge_body)]
    if program_body is not None:
        pmr, pmw = os.pipe()
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        mine[2] = pmr
        send += [pmw, memfd_of(program_body), a.detach(), b.detach()] + list(os.pipe() + os.pipe())
    return mine, send


def memfd_of(data):
    fd = os.memfd_create("triage-request")
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    return fd


def program_side(fds):
    """In the program process: (its socket, the write ends of its output
    pipes, its start-mark pipe, its request); it closes every other
    descriptor itself."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=fds[6])
    return sock, (fds[8], fds[10]), fds[3], fds[4]


def judge_side(fds):
    """In the judge: (its result pipe, start-mark pipe, request, socket or
    None, the read ends of the program's output), the program's
    descriptors closed."""
    if len(fds) == JUDGE_FDS:
        return fds[0], fds[1], fds[2], None, ()
    for fd in (fds[3], fds[4], fds[6], fds[8], fds[10]):
        os.close(fd)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=fds[5])
    return fds[0], fds[1], fds[2], sock, (fds[7], fds[9])


def kept_judge_side(fds):
    """judge_side's tuple from the descriptors a kept judge gets of a run
    (KEPT_JUDGE_FDS), or None where they are not those."""
    if len(fds) != len(KEPT_JUDGE_FDS):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=fds[3])
    return fds[0], fds[1], fds[2], sock, (fds[4], fds[5])


def _cpu_ns(ru):
    return int(round((ru.ru_utime + ru.ru_stime) * 1e9)) if ru is not None else 0


class ForkServer:
    """The worker's end of the fork server: spawn() asks it for a run's
    processes, exited() reads how they ended."""

    def __init__(self, ctx, prctl, spans=(), collapse=None, fork=os.fork):
        self.ctx = ctx
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            try:
                a.close()
                serve_forks(b, ctx, prctl, spans, collapse, fork)
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

    def spawn(self, fds, keep=None):
        """Fork a run's processes through the server: (judge pid, program
        pid or 0), or None when the server failed (abandoned: the caller
        forks them itself). fds: run_fds's. keep: the key of a judge the
        server may keep for the next run with the same key (keep.py), or
        hand this run to."""
        try:
            send_frame(self.sock, {"op": "run", "keep": keep}, fds=fds)
            reply, _, _ = recv_frame(self.sock)
            if reply is None or "pid" not in reply:
                raise OSError("fork server did not fork")
            return int(reply["pid"]), int(reply.get("ppid") or 0)
        except (OSError, ValueError, KeyError, TypeError):
            self.abandon()
            return None

    def exited(self, wait):
        """The server's report of a run's end (waiting at most wait
        seconds): a dict, {} when the server failed (abandoned), None when
        it did not come in time."""
        ready, _, _ = select.select([self.sock], [], [], wait)
        if not ready:
            return None
        try:
            msg, _, _ = recv_frame(self.sock)
        except (OSError, ValueError):
            msg = None
        if msg is None or "status" not in msg:
            self.abandon()
            return {}
        return msg
