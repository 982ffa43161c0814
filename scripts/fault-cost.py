# What one page fault costs a forked child on this machine, the unit that
# prices a sandbox run (a run's child takes about 2,000 of them): the child
# of a process with 16 MB of written memory writes one byte in each of N
# pages that it shares with its parent (copy-on-write faults), or in N pages
# of a fresh mapping (zero-fill faults), or asks the kernel to fault a
# shared range in at once (MADV_POPULATE_WRITE, Linux 5.14+) and then
# writes them, and reports its CPU per page. Three rounds of each; prints
# the median. Where the populated pages still cost on the first write with
# no fault the guest can see, the cost is the host's (shadow page tables
# of a paravirtualized guest), and no guest-side batching removes it.
#
#   /usr/bin/python3 scripts/fault-cost.py [PAGES]
import ctypes
import mmap
import os
import resource
import statistics
import sys
import time

PAGES = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
PAGE = mmap.PAGESIZE
MADV_POPULATE_WRITE = 23

libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
# Private mappings, as a Python process's memory is: mmap.mmap(-1, n) alone
# is a shared one, whose pages a child's write does not copy (it measured a
# cheaper fault than the copies a forked child pays).
PRIVATE = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
shared = mmap.mmap(-1, PAGES * PAGE, flags=PRIVATE)
for i in range(0, PAGES * PAGE, PAGE):
    shared[i] = 1
shared_addr = ctypes.addressof(ctypes.c_char.from_buffer(shared))


def touch(kind):
    faults0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.process_time_ns()
    if kind == "copy-on-write":
        for i in range(0, PAGES * PAGE, PAGE):
            shared[i] = 2
    elif kind == "zero-fill":
        fresh = mmap.mmap(-1, PAGES * PAGE, flags=PRIVATE)
        for i in range(0, PAGES * PAGE, PAGE):
            fresh[i] = 2
    elif kind.startswith("populate"):
        if libc.madvise(shared_addr, PAGES * PAGE, MADV_POPULATE_WRITE) != 0:
            return None, 0
        if kind == "populate+write":
            for i in range(0, PAGES * PAGE, PAGE):
                shared[i] = 2
    elif kind == "no-fault":
        for i in range(0, PAGES * PAGE, PAGE):
            pass
    t1 = time.process_time_ns()
    return (t1 - t0) / 1e3 / PAGES, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults0


def in_child(kind):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        us, faults = touch(kind)
        os.write(w, b"%r %d" % (us, faults))
        os._exit(0)
    os.close(w)
    data = os.read(r, 100).split()
    os.close(r)
    os.waitpid(pid, 0)
    return (None if data[0] == b"None" else float(data[0])), int(data[1])


print("%d pages, %s" % (PAGES, os.uname().release))
for kind in ("no-fault", "copy-on-write", "zero-fill", "populate", "populate+write"):
    runs = [in_child(kind) for _ in range(3)]
    if any(us is None for us, _ in runs):
        print("%-15s unsupported here" % kind)
        continue
    print("%-15s %.2f us of CPU per page, %d faults" % (kind, statistics.median(us for us, _ in runs), runs[0][1]))
