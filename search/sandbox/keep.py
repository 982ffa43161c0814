# triage sandbox keep: a judge kept across the runs of one test file (see
# README.md, "A judge kept across runs").
#
# A fresh judge a run copies ~1,300 of the fork server's pages, and its
# fork and exit cost ~1 ms more: about a third of a run's CPU. The judge
# runs no code of the program's, only the test file, pytest's pieces and
# the harness, so the fork server keeps a direct run's judge for the next
# run with the same judge request (the test file, plan, limits and
# settings). The program process is new each run, as before; the kept
# judge gets the run's descriptors over its control socket. The server
# keeps it only while the run's program process was the last process made
# in the namespace (ns_last_pid, read before and after it is ended):
# a program that made a process or a thread may have left one, and then the
# server ends everything but itself and the worker, the judge with it, as
# after every fresh judge's run.
#
# Before its next run the judge puts back what a run's test code could have
# changed in it and a fresh copy of the server would not have: modules the
# run added (but the standard library's and installed packages') and
# modules it replaced, the attributes of the modules the test file imports,
# sys.path and the meta path, the warning filters and
# their once-registry, the builtins, the environment, the recursion limit,
# the folder, the umask, trace and profile functions, the standard
# streams, the int-to-str digit limit, the root logger and logging's
# disable level, gc's switch, decimal's context, pytest's tmp_path factory,
# the collector's per-run state, and the caches of source lines and of
# modules by file; each run gets a new seed for `random` and its own CPU
# limit, as after a fork, and the run's handles are made stale (judge.py).
# It is not kept (it ends, and the next run forks a fresh one) after a run
# that did not end as a direct run (pytest's run, a fallback, the program
# gone, the output cap), with a thread left running, with its peak memory
# grown by more than MAX_GROWTH_KB, or after MAX_RUNS runs.
import gc
import math
import os
import resource
import sys
import time
import types
from copy import copy

MAX_RUNS = 250
MAX_GROWTH_KB = 128 << 10  # ru_maxrss is in KiB on Linux


def clock_ns():
    return time.clock_gettime_ns(time.CLOCK_PROCESS_CPUTIME_ID)


def set_cpu_limit(cpu_s):
    """RLIMIT_CPU at cpu_s seconds more than this process has used: the soft
    limit only, so that the next run can raise it again without a
    privilege (the hard one stays the fork server's)."""
    if cpu_s <= 0:
        return
    ru = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = int(math.ceil(ru.ru_utime + ru.ru_stime)) + int(cpu_s)
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
    except (ValueError, OSError):
        pass


def _settings(logging, warnings):
    """(read, write) of each process-wide setting a test can change with
    one call and a fresh judge would find as the server left it."""
    out = [(sys.getrecursionlimit, sys.setrecursionlimit), (os.getcwd, os.chdir),
           (sys.gettrace, sys.settrace), (sys.getprofile, sys.setprofile),
           (_umask, os.umask),
           (lambda: (sys.stdin, sys.stdout, sys.stderr), _set_streams),
           (lambda: warnings.showwarning, lambda f: setattr(warnings, "showwarning", f))]
    if hasattr(sys, "get_int_max_str_digits"):
        out.append((sys.get_int_max_str_digits, sys.set_int_max_str_digits))
    if logging is not None:
        root = logging.root
        out += [(lambda: list(root.handlers), lambda h: root.handlers.__setitem__(slice(None), h)),
                (lambda: root.level, root.setLevel),
                (lambda: root.manager.disable, logging.disable)]
    return out


_MODULE_DICT = types.ModuleType.__dict__["__dict__"]


def _namespace(m):
    """A module's dict, read through the module type's own descriptor: a
    module class's hooks (solution's module answers from the program, a
    lazy module imports) never run."""
    return _MODULE_DICT.__get__(m)


def _put_back(d, saved):
    """Make d hold saved's entries again, touching only those that
    differ."""
    for k in [k for k in d if k not in saved]:
        del d[k]
    for k, v in saved.items():
        if d.get(k, _put_back) is not v:
            d[k] = v


def _umask():
    """The process's umask (read by setting it, and back)."""
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _set_streams(streams):
    """sys.stdin, stdout and stderr from a tuple."""
    sys.stdin, sys.stdout, sys.stderr = streams


class Kept:
    """The state of a kept judge: its control socket, and what it puts
    back between runs, taken before the first run's test code ran."""

    def __init__(self, ctx, ctl):
        import builtins
        import inspect
        import linecache
        import warnings

        self.ctl = ctl
        self.std = tuple(ctx["std_prefixes"])
        self.modules = dict(sys.modules)
        self.namespaces = None  # watch()'s
        self.path, self.meta_path = list(sys.path), list(sys.meta_path)
        self.warnings, self.filters = warnings, list(warnings.filters)
        self.settings = [(read, write, read()) for read, write in _settings(sys.modules.get("logging"), warnings)]
        # Dicts put back: the builtins, the environment, and
        # linecache's and inspect's caches (keyed by file: the run folder's
        # files are new each run).
        self.dicts = [(d, dict(d)) for d in (builtins.__dict__, os.environ, linecache.cache, inspect.modulesbyfile,
                                             inspect._filesbymodname)]
        # The collector's per-run state (coverage lines, CPU marks) as a
        # fresh judge finds it.
        self.collector = ctx["collector"]
        self.collected = {k: copy(v) for k, v in vars(self.collector).items()}
        # pytest's tmp_path factory keeps its base folder, which the worker
        # removes with the run folder after each run.
        factory = getattr(ctx["config"], "_tmp_path_factory", None)
        self.tmp = (factory, dict(vars(factory))) if factory is not None and hasattr(factory, "__dict__") else None
        self.gc = gc.isenabled()
        self.peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.runs = 0
        self.base_ns = 0  # this judge's CPU when the run began (0: the run of its fork)
        self.minflt = 0

    def watch(self, code):
        """Keep the namespaces of the loaded modules whose names the test
        file's code uses (its imports, at module level or in a test), as
        the server left them: a test that sets an attribute of a module it
        imports (math.pi = 3, a wrapper around json.dumps) has it put back
        after its run. Only those: a copy of every module's namespace
        touches every object of the worker's, a page copy each."""
        names, codes = set(), [code]
        while codes:
            c = codes.pop()
            names.update(c.co_names)
            codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        found = {}
        for name in names:
            m = self.modules.get(name)
            if isinstance(m, types.ModuleType):
                found[name] = m
                for sub, v in list(_namespace(m).items()):
                    if sub in names and isinstance(v, types.ModuleType):
                        found[name + "." + sub] = v
        self.namespaces = [(m, dict(_namespace(m))) for m in found.values()]

    def begin(self, req):
        """A later run's first steps, in place of confine: its CPU limit
        from now on, a new seed for `random`."""
        self.base_ns = clock_ns()
        self.minflt = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        set_cpu_limit(req["limits"]["cpu_s"])
        import forkserver

        forkserver.reseed()

    def reusable(self):
        """Whether this judge may take another run (after restore)."""
        if self.runs >= MAX_RUNS:
            return False
        threading = sys.modules.get("threading")
        if threading is not None and threading.active_count() > 1:
            return False
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - self.peak_kb <= MAX_GROWTH_KB

    def restore(self):
        """Put back what the run's test code could have changed."""
        modules = sys.modules
        for m, saved in self.namespaces or ():
            _put_back(_namespace(m), saved)
        for name in [n for n in modules if n not in self.modules]:
            m = modules.get(name)
            f = _namespace(m).get("__file__") if isinstance(m, types.ModuleType) else None
            if not (type(f) is str and f.startswith(self.std)):
                modules.pop(name, None)
        for name, m in self.modules.items():
            if modules.get(name) is not m:
                modules[name] = m
        sys.path[:] = self.path
        sys.meta_path[:] = self.meta_path
        w = self.warnings
        w.filters[:] = self.filters
        w._filters_mutated()
        for read, write, value in self.settings:
            try:
                if read() != value:
                    write(value)
            except Exception:  # noqa: BLE001 - a setting that cannot be put back ends the judge
                self.runs = MAX_RUNS
        for d, saved in self.dicts:
            _put_back(d, saved)
        d = sys.modules.get("decimal")
        if d is not None:
            d.setcontext(d.Context())
        if self.tmp is not None:
            vars(self.tmp[0]).update(self.tmp[1])
        vars(self.collector).update({k: copy(v) for k, v in self.collected.items()})
        if gc.isenabled() != self.gc:
            gc.enable() if self.gc else gc.disable()

    def next_run(self):
        """Report this run's end to the fork server and wait for the next
        run's descriptors (forkserver.kept_judge_side: result pipe, start
        mark, request, socket, program's output read ends), or None when
        the server ends this judge."""
        import forkserver

        self.runs += 1
        ru = resource.getrusage(resource.RUSAGE_SELF)
        try:
            forkserver.send_head(self.ctl, b'{"cpu_ns": %d, "base_ns": %d, "minflt": %d}' % (
                clock_ns(), self.base_ns, ru.ru_minflt - self.minflt))
            msg, _, fds = forkserver.recv_frame(self.ctl)
        except (OSError, ValueError):
            return None
        return forkserver.kept_judge_side(fds) if msg is not None else None
