# triage sandbox watch: the worker's watch over a run's two processes (see
# README.md, "Time limits").
#
# The worker counts a run's CPU from outside: the judge's and the program
# process's CPU clocks from their start marks on (the CPU limit), the
# program process's alone (the program's own budget). It kills both at a
# limit or at the wall-clock deadline, reads the judge's result pipe as it
# goes, and takes the final counts from their rusage when they are reaped
# (by the fork server, which reports them, or here).
import fcntl
import os
import select
import signal
import struct
import time


def process_cpu_ns(pid):
    """CPU time of every thread of process pid, from its CPU-time clock
    (what clock_getcpuclockid gives; readable by the parent without /proc)."""
    return time.clock_gettime_ns((~pid << 3) | 2)


class Run:
    """What the worker saw of one run: the judge (pid) and the program
    process (ppid, 0 when the run has none)."""

    def __init__(self, pid, ppid, r, mr, pmr):
        self.pid, self.ppid = pid, ppid
        self.r, self.mr, self.pmr = r, mr, pmr
        self.buf = bytearray()
        self.overflow = False
        self.timeout = ""  # "wall", "cpu" or "program" when the run hit a limit
        self.status = None  # the judge's, when reaped
        self.pstatus = None  # the program process's
        self.judge_cpu_ns = 0  # the judge's whole CPU, when reaped (a kept judge's: at the run's end)
        self.judge_base_ns = 0  # a kept judge's CPU before this run (keep.py)
        self.reused = False  # the run went to a judge kept from an earlier run
        self.program_cpu_ns = 0  # the program process's
        self.start_ns = None  # the judge's CPU at its start mark
        self.pstart_ns = None  # the program process's
        self.cpu_ns = 0  # CPU counted against the limit: both, from their marks on
        self.program_ns = 0  # the program process's, from its mark on
        self.marks = {}
        self.minflt = 0
        self.server = None  # the ForkServer that forked them (None: the worker did)
        self.server_cpu_ms = 0.0
        self.seen = [0, 0]  # the last CPU clocks read of the judge and the program

    def used(self):
        """(CPU counted against the limit, the program's own) now."""
        judge, prog = self.seen
        try:
            judge = self.seen[0] = process_cpu_ns(self.pid)
        except OSError:
            pass
        if self.ppid:
            try:
                prog = self.seen[1] = process_cpu_ns(self.ppid)
            except OSError:
                pass
        return self.counted(judge, prog)

    def counted(self, judge, prog):
        total = max(0, judge - self.start_ns) if self.start_ns is not None else 0
        own = max(0, prog - self.pstart_ns) if self.pstart_ns is not None else 0
        return total + own, own


def read_mark(fd, got):
    """Read a start mark's bytes into got (a bytearray): True when it is
    complete or its pipe ended."""
    data = os.read(fd, 8 - len(got))
    got += data
    return not data or len(got) == 8


def mark_value(got):
    return struct.unpack("<q", bytes(got))[0] if len(got) == 8 else None


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


def drain_pipe(r, cap):
    """Read what the judge's (non-blocking) result pipe holds, up to twice
    the pipe's room in one call (a process the run left behind may keep
    writing): up to cap bytes kept, the rest read and dropped as overflow.
    True when something came."""
    got = 0
    while got < 2 * PIPE_ROOM:
        try:
            data = os.read(r.r, 1 << 16)
        except BlockingIOError:
            break
        if not data:
            break
        got += len(data)
        if len(r.buf) < cap:
            r.buf += data
        else:
            r.overflow = True
    return got > 0


def wait_run(r, deadline, cap, cpu_limit_ns, program_limit_ns=0):
    """Collect the judge's events until it exits or the run goes over a
    limit: the wall-clock deadline, cpu_limit_ns of CPU (both processes,
    all their threads, from their start marks), or program_limit_ns of the
    program process's CPU. The limits are enforced here, outside both: the
    worker sleeps for the budget left (a thread's CPU time grows no faster
    than wall time), then reads the clocks again."""
    server = r.server
    # The judge's end: its pidfd, or the fork server's report of the run.
    ended = server.sock if server is not None else os.pidfd_open(r.pid)
    # The result pipe is read when the worker wakes anyway (a start mark, a
    # limit, the judge's end) or on a tick that grows while nothing comes,
    # not on every line: the judge writes a line per test, and each wake-up
    # costs both processes a switch. Where the pipe cannot be made that
    # large, every line wakes the worker as before.
    deferred = pipe_room(r.r)
    marks = {r.mr: bytearray()}
    if r.pmr is not None:
        marks[r.pmr] = bytearray()
    fds = [ended] + list(marks) + ([] if deferred else [r.r])
    tick = DRAIN_TICK_MIN
    if not r.ppid:
        program_limit_ns = 0
    report = None
    while True:
        wait = deadline - time.monotonic()
        if wait <= 0:
            r.timeout = "wall"
            break
        if deferred:
            wait = min(wait, tick)
        if cpu_limit_ns and r.start_ns is not None:
            used, own = r.used()
            if used >= cpu_limit_ns:
                r.timeout, r.cpu_ns = "cpu", used
                break
            wait = min(wait, max((cpu_limit_ns - used) / 1e9, 0.001))
            if program_limit_ns and r.pstart_ns is not None:
                r.program_ns = own
                if own >= program_limit_ns:
                    r.timeout, r.cpu_ns = "program", used
                    break
                wait = min(wait, max((program_limit_ns - own) / 1e9, 0.001))
        try:
            ready, _, _ = select.select(fds, [], [], wait)
        except InterruptedError:
            continue
        for fd in list(marks):
            if fd in ready and read_mark(fd, marks[fd]):
                fds.remove(fd)
                value = mark_value(marks.pop(fd))
                if fd == r.mr:
                    r.start_ns = value
                else:
                    r.pstart_ns = value
        if deferred:
            tick = DRAIN_TICK_MIN if drain_pipe(r, cap) else min(tick * 2, DRAIN_TICK_MAX)
        elif r.r in ready:
            data = os.read(r.r, 1 << 16)
            if not data:
                fds.remove(r.r)
            elif len(r.buf) < cap:
                r.buf += data
            else:
                r.overflow = True
        if ended in ready:
            if server is not None:
                report = server.exited(0)
            else:
                reap_own(r)
            break
    if r.timeout:
        if r.timeout == "wall" and r.start_ns is not None:
            r.cpu_ns = r.used()[0]
        kill_each(os.kill, (r.pid, r.ppid))
        if server is not None:
            # The server reaps them (and what they left); its report says no
            # more than a kill would (status, CPU: as the worker's own kill).
            report = server.exited(10.0)
            if report is None:
                server.abandon()
        else:
            reap_own(r)
    if server is not None and report:
        r.status, r.judge_cpu_ns, r.minflt = report["status"], report["cpu_ns"], report["minflt"]
        r.judge_base_ns, r.reused = report.get("jbase_ns", 0), bool(report.get("reused"))
        r.pstatus, r.program_cpu_ns = report.get("pstatus"), report.get("pcpu_ns", 0)
        r.minflt += report.get("pminflt", 0)
        r.server_cpu_ms = report.get("server_cpu_ms", 0.0)
    for fd in list(marks):
        os.set_blocking(fd, False)
        try:
            read_mark(fd, marks[fd])
        except OSError:
            pass
        value = mark_value(marks[fd])
        if fd == r.mr:
            r.start_ns = value
        else:
            r.pstart_ns = value
    if deferred or r.r in fds:
        os.set_blocking(r.r, False)
        drain_pipe(r, cap)
    if server is None:
        os.close(ended)
    if r.status is not None:
        # Reaped: their rusage is the final count. Over a limit is a
        # timeout however close the poll came.
        r.cpu_ns, own = r.counted(r.judge_cpu_ns, r.program_cpu_ns)
        if program_limit_ns:
            r.program_ns = own
        if cpu_limit_ns and r.cpu_ns >= cpu_limit_ns:
            r.timeout = "cpu"
        elif program_limit_ns and r.program_ns >= program_limit_ns:
            r.timeout = "program"
    return r


def kill_each(kill, pids):
    """kill(pid, SIGKILL) of each pid but 0, whatever is gone already."""
    for pid in pids:
        if pid:
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass


def reap_own(r):
    """The judge's and the program's end, for processes the worker forked
    itself: the program is killed once the judge has ended."""
    _, r.status, ru = os.wait4(r.pid, 0)
    r.judge_cpu_ns = int(round((ru.ru_utime + ru.ru_stime) * 1e9))
    r.minflt = ru.ru_minflt
    if r.ppid:
        kill_each(os.kill, (r.ppid,))
        try:
            _, r.pstatus, ru = os.wait4(r.ppid, 0)
            r.program_cpu_ns = int(round((ru.ru_utime + ru.ru_stime) * 1e9))
        except ChildProcessError:
            pass
