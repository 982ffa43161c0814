# What the interpreter's at-fork work costs a forked child of a warm
# worker-like process (pytest imported, the heap frozen): the child's CPU
# and page faults before its first line, forked with os.fork (which runs
# threading's, logging's and random's at-fork handlers and the
# interpreter's own) and with the C library's fork (none of them), then
# with each handler run by hand. 30 children a row; prints the mean CPU and
# the median faults. (A fork server on the C fork was tried and dropped:
# docs/results.md, "Where a run's CPU goes".)
#
#   /usr/bin/python3 scripts/fork-handlers.py
import ctypes
import gc
import logging
import os
import random
import statistics
import threading
import time

import pytest  # noqa: F401 - the worker's imports, roughly
import _pytest.python  # noqa: F401
import _pytest.runner  # noqa: F401
import _pytest.terminal  # noqa: F401

c_fork = ctypes.PyDLL(None).fork
c_fork.restype, c_fork.argtypes = ctypes.c_int, []
gc.collect()
gc.freeze()


def child_cost(how):
    r, w = os.pipe()
    pid = os.fork() if how == "os.fork" else c_fork()
    if pid == 0:
        if "seed" in how:
            random._inst.seed()
        if "threading" in how:
            threading._after_fork()
        if "logging" in how:
            logging._after_at_fork_child_reinit_locks()
        os.write(w, b"%d" % time.process_time_ns())
        os._exit(0)
    os.close(w)
    ns = int(os.read(r, 100))
    os.close(r)
    _, _, ru = os.wait4(pid, 0)
    return ns / 1e6, ru.ru_minflt


for how in ("os.fork", "C fork", "C fork + random's seed", "C fork + threading's handler",
            "C fork + logging's handler", "C fork + seed, threading, logging"):
    runs = [child_cost(how) for _ in range(30)]
    print("%-30s %.2f ms of CPU before the first line, %d page faults" % (
        how, statistics.mean(ms for ms, _ in runs), statistics.median(f for _, f in runs)))
