# triage sandbox guard: tamper evidence for the worker (see doc.go, "Verdicts
# the program cannot write").
#
# Loaded by worker.py into a private namespace (never a module in
# sys.modules). Two parts:
#
#   install_audit_hook: a sys.addaudithook hook, installed in the worker before
#   any untrusted code exists and inherited by every forked run. It is inert
#   until a run's child raises the one-way event "triage.sandbox.arm" (with
#   its reporter and mode); from then on it refuses the events through which a
#   program reaches the harness's frames or memory, and reports each refusal
#   (an authenticated tamper event) before the operation fails:
#     - frames: sys._getframe and tb_frame only for a few standard-library
#       functions that use the frame and return strings (namedtuple, typing,
#       enum, logging's findCaller, traceback's extract/format/print without
#       captured locals), identified by code object, not by name or file, so
#       neither a look-alike nor a call laundered through C callables
#       (functools.partial, map, weakref callbacks) passes; gi_frame,
#       cr_frame, ag_frame and sys._current_frames never. In the pytest
#       harness ("pytest" mode) pytest's own traceback code, and the direct
#       runner's writer of the same text (worker.py's short_failure_text),
#       may also read frames while no untrusted code is on the stack; in the recheck
#       harness nothing else may.
#     - sys.settrace/sys.setprofile in the main thread (a tracer sees every
#       frame), except the pytest harness's coverage tracer;
#     - gc object walks, new audit hooks, ctypes, new code objects and
#       replacing __code__ (except types.coroutine setting its flag), imports
#       of native modules that write memory (ctypes, cffi, _testcapi, ...),
#       unmarshalling byte code other than importlib's from outside the run
#       folder (or the harness's own pyc).
#   It also passes on, without refusing anything, the lies that compare.py's
#   checked comparisons find in the pytest harness ("triage.sandbox.lie").
#   Code is told apart by code object identity, never by file name: a
#   program can compile code under any file name it likes (and the C
#   traceback printer compiles source lines under their own names), so a
#   file name grants nothing in the re-check. Only the pytest harness's
#   allowance for pytest's own traceback code also asks that no frame of a
#   file outside the Python installation, the harness and the test file be
#   on the stack; a forgery of file names there meets the re-check.
#   Python code cannot remove an audit hook, and nothing Python-visible refers
#   to this one or to its state (closure cells of a function only the
#   interpreter's hook list holds); gc walks that would find it are refused.
#
#   static_findings: an ast check of the program for what no honest solution
#   needs: imports of the harness (pytest, _pytest, pluggy, __main__) or of
#   introspection and memory tools (gc, inspect, ctypes, cffi, marshal,
#   atexit, unittest.mock), frame and tracing attributes, os._exit,
#   sys.modules, __import__/__builtins__, strings naming the harness, /proc or
#   the test file, and comparison methods that ignore their other argument
#   (an __eq__ that is always True passes any assert ==, in any harness).

FRAME_ATTRS = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))

# Events refused whenever the hook is armed.
ALWAYS = frozenset((
    "sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys.addaudithook",
))

# Native modules through which Python code writes process memory.
DENY_MODULES = frozenset((
    "ctypes", "_ctypes", "cffi", "_cffi_backend", "_testcapi", "_testinternalcapi",
    "_testbuffer", "_testmultiphase", "_testimportmultiple", "_testclinic",
    "_xxsubinterpreters", "_xxtestfuzz", "_ctypes_test",
))


def code_ids(objs):
    """ids of the code objects of functions (and of the code nested in them)."""
    out = set()

    def add(co):
        if id(co) in out:
            return
        out.add(id(co))
        keep.append(co)
        for c in co.co_consts:
            if type(c) is type(add.__code__):
                add(c)

    for o in objs:
        o = getattr(o, "__func__", o)
        co = getattr(o, "__code__", None)
        if co is not None:
            add(co)
    return out


keep = []


def module_code_ids(modules):
    """ids of every code object of the functions and methods of modules."""
    objs = []
    for m in modules:
        for v in list(vars(m).values()):
            if isinstance(v, type) and v.__module__ == m.__name__:
                for a in list(vars(v).values()):
                    a = getattr(a, "__func__", a)
                    if isinstance(a, property):
                        objs.extend(x for x in (a.fget, a.fset, a.fdel) if x is not None)
                    elif hasattr(a, "__code__"):
                        objs.append(a)
            elif hasattr(v, "__code__") and getattr(v, "__module__", None) == m.__name__:
                objs.append(v)
    return code_ids(objs)


def install_audit_hook(spec):
    """Install the hook. spec (built by worker.py before any run):
    prefixes/names: what counts as trusted code by file name (the Python
    installation, the harness files, the test file; never the run folder);
    work: the run folder; allowed_pyc: byte code the harness itself placed;
    no_leak: {"getframe"|"tb_frame": code ids}; capture_check: code ids whose
    capture_locals must be false; helpers: code ids skipped when finding the
    consumer; pytest_context: {"tb_frame"|"trace": code ids} allowed in
    pytest mode with no untrusted frame on the stack; marshal: {code id: name
    of the local holding the byte-code path}; code_flaggers:
    code ids that may make code objects and set __code__ (types.coroutine,
    which only sets a flag); main_thread: its ident."""
    import sys
    import _thread

    getframe = sys._getframe
    get_ident = _thread.get_ident
    b_isinstance, b_id, b_str, b_bytes, b_type = isinstance, id, str, bytes, type
    prefixes = tuple(spec["prefixes"])
    names = frozenset(spec["names"])
    work_prefix = spec["work"].rstrip("/") + "/"
    allowed_pyc = frozenset(spec["allowed_pyc"])
    no_leak = {k: frozenset(v) for k, v in spec["no_leak"].items()}
    capture_check = frozenset(spec["capture_check"])
    helpers = frozenset(spec["helpers"])
    pytest_context = {k: frozenset(v) for k, v in spec["pytest_context"].items()}
    marshal_consumers = dict(spec["marshal"])
    code_flaggers = frozenset(spec["code_flaggers"])
    main_thread = spec["main_thread"]
    path_types = tuple(spec.get("path_types", ()))
    frame_attrs, always, deny_modules = FRAME_ATTRS, ALWAYS, DENY_MODULES
    busy = set()
    armed = False
    reporter = None
    mode = "recheck"
    reported = 0
    lies = 0

    def trusted(fn):
        if fn in names:
            return True
        return not fn.startswith(work_prefix) and fn.startswith(prefixes)

    # Frames whose whole chain of callers was found trusted, kept alive here
    # (their identity is the key: a frame held cannot be freed and its id
    # reused). While a frame runs, the frames below it stay the same, so a
    # walk that meets one of these knows the rest; a generator's frame is
    # never kept (each resumption gives it other callers). pytest's text of
    # a deep traceback reads tb_frame once per entry from the same loop: the
    # 4,000 reads of a recursion's failure walked the whole stack each (about
    # 30 ms of CPU a failing test).
    trusted_chains = {}  # id(frame) -> frame
    resumable = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR

    def untrusted_frame(f):
        top = f
        while f is not None:
            if trusted_chains.get(b_id(f)) is f:
                return None
            if not trusted(f.f_code.co_filename):
                return f
            f = f.f_back
        # The whole chain is trusted: keep the frames two to five below the
        # one that asked (a loop's frame is among them) for the next walks.
        f, n = top, 0
        while f is not None and n < 6:
            if n >= 2 and not f.f_code.co_flags & resumable:
                trusted_chains[b_id(f)] = f
            f = f.f_back
            n += 1
        if len(trusted_chains) > 8:
            # list() copies the keys in one step: another thread's walk may
            # add or drop entries between two of these lines.
            for k in list(trusted_chains)[:-8]:
                trusted_chains.pop(k, None)
        return None

    def where(f):
        g = untrusted_frame(f) or f
        co = g.f_code
        return "%s:%d (%s)" % (co.co_filename.rsplit("/", 1)[-1], g.f_lineno, co.co_name)

    def as_path(p):
        if b_isinstance(p, b_str):
            return p
        if b_isinstance(p, b_bytes):
            return p.decode("utf-8", "replace")
        if path_types and b_type(p) in path_types:
            return b_str(p)
        return None

    # The frame whose last frame access (kind, in mode) was let through. A
    # frame that is not a generator's decides the same for as long as it
    # runs: its code, and the frames below it, stay what they were (the
    # capture_check code, whose locals decide, is never kept). A failure
    # text reads tb_frame once for each of a recursion's 1,000 frames from
    # one loop; each decision read f_code and called id() (audit events
    # too, through this hook) four times.
    let_through = [(None, None, None)]  # (frame, kind, mode); replaced whole, never torn between threads

    def remember(f, kind, cid):
        if cid not in capture_check and not f.f_code.co_flags & resumable:
            let_through[0] = (f, kind, mode)

    def decide(kind):
        """None when the event may proceed; else where it was asked from."""
        f = getframe(2)  # 0 decide, 1 hook, 2 the code that raised the event
        if kind == "always":
            return where(f)
        if kind in ("getframe", "tb_frame"):
            last = let_through[0]
            if last[0] is f and last[1] == kind and last[2] == mode:
                return None
        c = f
        while c is not None and b_id(c.f_code) in helpers:
            c = c.f_back
        cid = b_id(c.f_code) if c is not None else None
        if kind in ("getframe", "tb_frame"):
            if cid in no_leak[kind] and not (cid in capture_check and c.f_locals.get("capture_locals")):
                remember(f, kind, cid)
                return None
            if mode == "pytest" and cid in pytest_context[kind] and untrusted_frame(f) is None:
                remember(f, kind, cid)
                return None
            return where(f)
        if kind == "trace":
            if mode == "pytest" and cid in pytest_context["trace"]:
                return None
            return where(f)
        if kind == "marshal":
            local = marshal_consumers.get(cid)
            if local is not None:
                p = as_path(c.f_locals.get(local))
                if p is not None and (p in allowed_pyc or (p.startswith("/") and not p.startswith(work_prefix) and p.startswith(prefixes))):
                    return None
            return where(f)
        if kind == "code":
            return None if cid in code_flaggers else where(f)
        return where(f)

    def refuse(what, place):
        nonlocal reported
        if reporter is not None and reported < 8:
            reported += 1
            try:
                reporter("audit hook: %s from %s" % (what, place))
            except BaseException:  # noqa: BLE001 - the refusal below still happens
                pass
        raise RuntimeError("sandbox: %s is not allowed" % what)

    interesting = frozenset(("sys._getframe", "sys.settrace", "sys.setprofile", "marshal.loads", "marshal.load",
                             "code.__new__", "import", "object.__setattr__", "object.__delattr__",
                             "triage.sandbox.arm", "triage.sandbox.lie")) | always

    def hook(event, args):
        nonlocal armed, reporter, mode, lies
        # The common events first, in as few steps as possible: a run raises
        # about a thousand (mostly object.__getattr__ of __code__ and open).
        if event == "object.__getattr__":
            if args[1] not in frame_attrs:
                return
        elif event not in interesting and not event.startswith("ctypes."):
            return
        if not armed:
            if event == "triage.sandbox.arm":
                armed = True
                reporter = args[0] if len(args) > 0 else None
                mode = args[1] if len(args) > 1 and args[1] == "pytest" else "recheck"
            return
        if event == "triage.sandbox.lie":
            if reporter is not None and lies < 8:
                lies += 1
                try:
                    reporter("comparison: %s" % (args[0] if args else "?",))
                except BaseException:  # noqa: BLE001 - a report that fails is not the run's verdict
                    pass
            return
        tid = get_ident()
        if tid in busy:
            return
        if event == "object.__getattr__":
            attr = args[1]
            kind = "tb_frame" if attr == "tb_frame" else "always"
            what = "access to " + attr
        elif event == "sys._getframe":
            kind, what = "getframe", event
        elif event == "sys.settrace" or event == "sys.setprofile":
            if tid != main_thread:
                return  # a thread's own tracer sees only that thread
            kind, what = "trace", event
        elif event == "marshal.loads" or event == "marshal.load":
            kind, what = "marshal", event
        elif event in always or event.startswith("ctypes."):
            kind, what = "always", event
        elif event == "code.__new__":
            kind, what = "code", event
        elif event == "import":
            mod = args[0]
            if not b_isinstance(mod, b_str) or mod.partition(".")[0] not in deny_modules:
                return
            kind, what = "always", "import of " + mod
        elif event == "object.__setattr__" or event == "object.__delattr__":
            if args[1] != "__code__":
                return
            kind, what = "code", "replacing a function's __code__"
        else:
            return
        busy.add(tid)
        try:
            place = decide(kind)
        finally:
            busy.discard(tid)
        if place is not None:
            refuse(what, place)

    sys.addaudithook(hook)


# ---------------------------------------------------------------- static check

STATIC_MODULES = {
    "_pytest": "imports _pytest (the harness)",
    "pytest": "imports pytest (the harness)",
    "pluggy": "imports pluggy (the harness's plugin manager)",
    "__main__": "imports __main__ (the harness)",
    "gc": "imports gc (object walks)",
    "inspect": "imports inspect (frame access)",
    "ctypes": "imports ctypes (memory writes)",
    "_ctypes": "imports _ctypes (memory writes)",
    "cffi": "imports cffi (memory writes)",
    "_cffi_backend": "imports _cffi_backend (memory writes)",
    "marshal": "imports marshal (hand-made code)",
    "atexit": "imports atexit",
    "mock": "imports mock (objects equal to anything)",
    "unittest.mock": "imports unittest.mock (objects equal to anything)",
    "_testcapi": "imports _testcapi (memory writes)",
    "_testinternalcapi": "imports _testinternalcapi (memory writes)",
    "_xxsubinterpreters": "imports _xxsubinterpreters",
}
STATIC_ATTRS = {
    "_getframe": "sys._getframe (frame access)",
    "_current_frames": "sys._current_frames (frame access)",
    "settrace": "settrace (tracing)",
    "setprofile": "setprofile (tracing)",
    "addaudithook": "addaudithook",
    "_exit": "os._exit (ends the harness)",
    "f_back": "frame attribute f_back",
    "f_locals": "frame attribute f_locals",
    "f_globals": "frame attribute f_globals",
    "f_code": "frame attribute f_code",
    "tb_frame": "traceback attribute tb_frame",
    "gi_frame": "generator attribute gi_frame",
    "cr_frame": "coroutine attribute cr_frame",
    "ag_frame": "async generator attribute ag_frame",
    "__closure__": "__closure__",
    "cell_contents": "cell_contents",
    "__globals__": "__globals__",
    "__code__": "__code__",
    "__subclasses__": "__subclasses__",
    "__import__": "__import__",
    "__builtins__": "__builtins__",
}
STATIC_NAMES = {"__import__": "__import__", "__builtins__": "__builtins__"}
STATIC_STRINGS = ("_pytest", "pluggy", "test_solution", "conftest", "/proc/", "/dev/fd", "@triage")
COMPARISONS = frozenset(("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__"))


def static_findings(src, limit=8):
    """Findings of the static check of a program, as "line N: what" strings
    (at most limit). A program that does not parse has none: it fails to load."""
    import ast

    try:
        tree = ast.parse(src, "solution.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return []
    out = []

    def add(node, what):
        if len(out) < limit:
            out.append("line %d: %s" % (getattr(node, "lineno", 0), what))

    def module_finding(name):
        if name in STATIC_MODULES:
            return STATIC_MODULES[name]
        top = name.partition(".")[0]
        if top in STATIC_MODULES and top != "unittest":
            return STATIC_MODULES[top]
        return None

    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))

    def ignores_other(args, body_nodes, returns_value):
        params = list(args.posonlyargs) + list(args.args)
        if len(params) >= 2:
            other = params[1].arg
        elif args.vararg is not None:
            other = args.vararg.arg
        else:
            return True
        for n in body_nodes:
            for sub in ast.walk(n):
                if isinstance(sub, ast.Name) and sub.id == other:
                    return False
        return returns_value

    def returns_something(fn):
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Return) and sub.value is not None:
                v = sub.value
                if isinstance(v, ast.Name) and v.id == "NotImplemented":
                    continue
                return True
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                w = module_finding(a.name)
                if w:
                    add(node, w)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            w = module_finding(mod)
            if w:
                add(node, w)
            elif mod == "unittest" and any(a.name == "mock" for a in node.names):
                add(node, STATIC_MODULES["unittest.mock"])
            elif mod in ("sys", "os", "builtins"):
                for a in node.names:
                    if a.name in STATIC_ATTRS or a.name == "modules":
                        add(node, "imports %s.%s" % (mod, a.name))
        elif isinstance(node, ast.Attribute):
            if node.attr in STATIC_ATTRS:
                add(node, STATIC_ATTRS[node.attr])
            elif node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys":
                add(node, "sys.modules (the harness's modules)")
        elif isinstance(node, ast.Name):
            if node.id in STATIC_NAMES:
                add(node, STATIC_NAMES[node.id])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for s in STATIC_STRINGS:
                if s in node.value:
                    add(node, "string naming %s" % s)
                    break
            if node.value in COMPARISONS:
                add(node, "string %s (a comparison set from outside the class)" % node.value)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in COMPARISONS:
                    if ignores_other(item.args, item.body, returns_something(item)):
                        add(item, "%s ignores the object it compares with" % item.name)
                elif isinstance(item, ast.Assign):
                    for t in item.targets:
                        if isinstance(t, ast.Name) and t.id in COMPARISONS and isinstance(item.value, ast.Lambda):
                            lam = item.value
                            if ignores_other(lam.args, [lam.body], True):
                                add(item, "%s ignores the object it compares with" % t.id)
    return out
