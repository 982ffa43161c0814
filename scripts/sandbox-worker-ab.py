# A/B of two sandbox worker.py files: each started directly (no namespaces,
# no uid change) and driven alternately on the bench suites of
# search/sandbox/benchdata/suites.json; prints the run child's and the
# worker's CPU per run (their own counts) for each, skipping 5 warm-up runs.
#
#   git -C REPO show 8eeafe3:search/sandbox/worker.py > old/worker.py  (and guard.py, confine.py, recheck.py)
#   /usr/bin/python3 scripts/sandbox-worker-ab.py old/ search/sandbox/ 35
import json, os, struct, subprocess, sys, tempfile
n = int(sys.argv[3]); SKIP = 5
suites = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "search", "sandbox", "benchdata", "suites.json")))
pairs = []
for t in suites["tasks"]:
    pairs.append((t["solution"], t["test"]))
    for a, b in t["mutants"]:
        pairs.append((t["solution"].replace(a, b, 1), t["test"]))
class W:
    def __init__(self, here, tag):
        wd = tempfile.mkdtemp(prefix="worker-ab-" + tag + "-"); os.makedirs(wd, exist_ok=True)
        r1, self.w1 = os.pipe(); self.r2, w2 = os.pipe()
        a = os.dup(r1); b = os.dup(w2)
        self.p = subprocess.Popen(["/usr/bin/python3", "-I", os.path.join(here, "worker.py"), json.dumps({"workdir": wd, "uid": -1, "mountns": False})],
                                  pass_fds=(3, 4, a, b), preexec_fn=lambda: (os.dup2(a, 3), os.dup2(b, 4)))
        for f in (r1, w2, a, b): os.close(f)
        self.rd(); self.tot = [0.0, 0.0, 0]
    def rd(self):
        h = b""
        while len(h) < 4: h += os.read(self.r2, 4 - len(h))
        (k,) = struct.unpack(">I", h); d = b""
        while len(d) < k: d += os.read(self.r2, k - len(d))
        return json.loads(d)
    def run(self, rid, prog, tests, count):
        lim = {"cpu_s": 10, "as_bytes": 1 << 30, "nproc": 64, "fsize": 16 << 20, "nofile": 256}
        d = json.dumps({"id": rid, "kind": "run", "program": prog, "tests": tests, "timeout_s": 30, "text_cap": 16000, "limits": lim}).encode()
        os.write(self.w1, struct.pack(">I", len(d)) + d)
        r = self.rd()
        if count:
            self.tot[0] += r.get("child_cpu_ms", 0); self.tot[1] += r.get("worker_cpu_ms", 0); self.tot[2] += 1
old = W(sys.argv[1], "old"); new = W(sys.argv[2], "new")
for i in range(n):
    prog, tests = pairs[i % len(pairs)]
    a, b = (old, new) if i % 2 == 0 else (new, old)
    a.run(i, prog, tests, i >= SKIP); b.run(i, prog, tests, i >= SKIP)
for tag, w in (("old", old), ("new", new)):
    c, k, m = w.tot
    print(f"{tag}: {m} runs, child {c / m:.1f} ms, worker {k / m:.1f} ms, sum {(c + k) / m:.1f} ms per run")
print(f"new/old: {(new.tot[0] + new.tot[1]) / (old.tot[0] + old.tot[1]):.2f}")
