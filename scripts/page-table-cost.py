# What a fork and a child's exit cost on this machine as a function of the
# parent's page tables, the other unit that prices a sandbox run (each run
# forks two processes from the fork server): a process with MB megabytes
# of written private memory, in 4 KiB pages or made 2 MiB huge pages
# (MADV_COLLAPSE, Linux 6.1+), forks through libc (as the fork server does)
# a child that writes one byte in every 2 MiB of it and exits. Prints the
# median CPU of the fork in the parent and of the whole child, for both
# kinds of pages.
#
#   /usr/bin/python3 scripts/page-table-cost.py [MB]
import ctypes
import mmap
import os
import statistics
import sys
import time

MB = int(sys.argv[1]) if len(sys.argv) > 1 else 40
HUGE = 2 << 20
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
ROUNDS = 15

libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
fork = ctypes.PyDLL(None).fork


def memory(huge):
    """MB megabytes of written private memory (one more huge page of room
    to align in) and how many huge pages the kernel made of it."""
    m = mmap.mmap(-1, (MB << 20) + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    start = -(-base // HUGE) * HUGE
    made = 0
    if huge:
        libc.madvise(start, MB << 20, MADV_HUGEPAGE)
    for i in range(0, len(m), mmap.PAGESIZE):
        m[i] = 1
    if huge:
        made = sum(libc.madvise(a, HUGE, MADV_COLLAPSE) == 0 for a in range(start, start + (MB << 20), HUGE))
    return m, made


def measure(m):
    forks, children = [], []
    for _ in range(ROUNDS):
        t0 = time.process_time_ns()
        pid = fork()
        if pid == 0:
            for a in range(0, len(m) - 1, HUGE):
                m[a] = 2
            os._exit(0)
        forks.append((time.process_time_ns() - t0) / 1e3)
        _, _, ru = os.wait4(pid, 0)
        children.append((ru.ru_utime + ru.ru_stime) * 1e6)
    return statistics.median(forks[3:]), statistics.median(children[3:])


for huge in (False, True):
    m, made = memory(huge)
    f, c = measure(m)
    kind = "huge pages (%d made)" % made if huge else "4 KiB pages"
    print("%d MB in %-22s fork %5.0f us, child %5.0f us" % (MB, kind, f, c))
    m.close()
