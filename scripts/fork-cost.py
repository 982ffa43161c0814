# What a fork costs the child: forks the interpreter 30 times (bare, or with
# pytest and friends imported; "freeze" calls gc.freeze() first) and prints,
# over the last 25, the child's CPU at its first line, its whole CPU, its
# minor page faults and the parent's time in fork().
#
#   /usr/bin/python3 scripts/fork-cost.py bare
#   /usr/bin/python3 scripts/fork-cost.py pytest
#   /usr/bin/python3 scripts/fork-cost.py pytest-freeze
import gc, os, sys, time, resource
mode = sys.argv[1]
if mode != "bare":
    import pytest, _pytest.main, _pytest.python, _pytest.runner, logging, unittest, ast, inspect, json
big = [dict(a=i) for i in range(int(sys.argv[2]))] if len(sys.argv) > 2 else []
gc.collect()
if "freeze" in mode:
    gc.freeze()
def child(w):
    t = time.process_time_ns()
    os.write(w, b"%d" % t)
    os._exit(0)
res = []
for i in range(30):
    r, w = os.pipe()
    t0 = time.process_time_ns()
    pid = os.fork()
    if pid == 0:
        child(w)
    t1 = time.process_time_ns()
    os.close(w)
    d = os.read(r, 100); os.close(r)
    _, st, ru = os.wait4(pid, 0)
    res.append((int(d) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt, (t1 - t0) / 1e6))
res = res[5:]
n = len(res)
print(mode, "child-at-start %.2f ms, child total %.2f ms, minflt %d, parent fork %.2f ms" % tuple(sum(x[i] for x in res) / n for i in range(4)))
