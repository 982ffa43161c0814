# What forking costs the process that forks, and what a fork server saves
# it: a warm process (pytest imported and configured, gc.freeze()) does
# some of a sandbox worker's own work per cycle (parse a request, parse a
# program's AST, sign and parse twenty result lines, answer) around one
# trivial child, forked by itself ("fork"), by a fork server it forked
# once ("server"), or not at all ("none"). Prints the CPU per cycle of the
# process itself, of its children (the server and its children included),
# and its own minor page faults per cycle: after a fork every page the
# parent writes is shared with the child and costs it a fault.
#
#   /usr/bin/python3 scripts/fork-server-cost.py none|fork|server [CYCLES]
import ast, gc, hashlib, json, os, resource, sys

import _pytest.config

mode = sys.argv[1]
cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 100
config = _pytest.config._prepareconfig(["-p", "no:cacheprovider"])
config._do_configure()
gc.collect()
gc.freeze()
program = open(json.decoder.__file__).read()
request = json.dumps({"program": program, "tests": program * 2, "limits": {"cpu_s": 1}})


def work():
    req = json.loads(request)
    ast.parse(req["program"])
    for i in range(20):
        hashlib.blake2b((str(i) * 50).encode(), key=b"k" * 32, digest_size=16).hexdigest()
        json.loads(json.dumps({"t": "test", "name": "x" * 40, "passed": False, "text": "y" * 200}))
    json.dumps({"id": 1, "events": [{"n": i} for i in range(30)]})


if mode == "server":
    req_r, req_w = os.pipe()
    ack_r, ack_w = os.pipe()
    server = os.fork()
    if server == 0:
        os.close(req_w)
        os.close(ack_r)
        while os.read(req_r, 1):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            os.write(ack_w, b"x")
        os._exit(0)
    os.close(req_r)
    os.close(ack_w)

t0, f0 = os.times(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(cycles):
    work()
    if mode == "fork":
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    elif mode == "server":
        os.write(req_w, b"x")
        os.read(ack_r, 1)
    work()
t1, f1 = os.times(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
if mode == "server":
    os.close(req_w)
    os.waitpid(server, 0)
t2 = os.times()
own = (t1.user + t1.system - t0.user - t0.system) * 1000 / cycles
kids = (t2.children_user + t2.children_system - t0.children_user - t0.children_system) * 1000 / cycles
print("%-6s itself %.2f ms/cycle, its children %.2f ms/cycle, its own faults %d/cycle" % (mode, own, kids, (f1 - f0) / cycles))
