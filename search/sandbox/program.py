# triage sandbox program: the program process of a run (see README.md, "Two
# processes").
#
# It imports solution.py and answers the judge's requests on one socket: an
# attribute, a call, an operation on one of its objects. Whatever the
# program's code returns crosses as data when it is data (wire.py) and as a
# handle otherwise: the judge holds a proxy, this process the object. The
# judge's objects the program is given (a callback, an object of a class the
# test defines) are proxies here (JudgeProxy) whose use is a request to the
# judge. This process is the program's: everything in it, this file's
# objects included, is the program's to change, and nothing it sends is
# taken on trust. What it adds for the judge, on every reply: the mutations
# of the call's arguments, the output printed since the last message, the
# warnings raised, and with coverage the lines of solution.py that ran.
import builtins
import io
import os
import resource
import sys
import threading
import types
import warnings

import wire

HERE = os.path.abspath(__file__)


class JudgeProxy:
    """An object of the judge's: every use is a request to the judge."""

    __slots__ = ("_triage_jid", "_triage_server", "__weakref__")

    def __init__(self, server, jid):
        object.__setattr__(self, "_triage_jid", jid)
        object.__setattr__(self, "_triage_server", server)

    def __getattr__(self, name):
        return self._triage_server.ask({"op": "getattr", "j": self._triage_jid, "name": name})

    def __setattr__(self, name, value):
        self._triage_server.ask({"op": "setattr", "j": self._triage_jid, "name": name}, (value,))

    def __delattr__(self, name):
        self._triage_server.ask({"op": "delattr", "j": self._triage_jid, "name": name})

    def __call__(self, *args, **kwargs):
        return self._triage_server.ask({"op": "call", "j": self._triage_jid}, args, kwargs)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__

    def __repr__(self):
        return self._triage_server.special(self, "__repr__", ())

    def __str__(self):
        return self._triage_server.special(self, "__str__", ())


def _special(name):
    def method(self, *args):
        return self._triage_server.special(self, name, args)
    method.__name__ = name
    return method


# The operations forwarded from either side to the object's own: never ==
# or ordering on the program's objects in the judge (a handle is equal only
# to itself), but both for the judge's objects here (the judge answers for
# its own objects).
SPECIAL = ("__len__", "__iter__", "__next__", "__reversed__", "__getitem__", "__setitem__", "__delitem__",
           "__contains__", "__bool__", "__enter__", "__exit__", "__format__", "__index__", "__int__", "__float__",
           "__complex__", "__round__", "__trunc__", "__floor__", "__ceil__", "__neg__", "__pos__", "__abs__",
           "__invert__") + tuple("__%s__" % op for base in (
               "add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow", "lshift", "rshift",
               "and", "xor", "or") for op in (base, "r" + base, "i" + base))
ORDERING = ("__lt__", "__le__", "__gt__", "__ge__")

for _name in SPECIAL + ORDERING:
    setattr(JudgeProxy, _name, _special(_name))
del _name


ALWAYS = [("always", None, Warning, None, 0)]


def output_streams():
    """The program process's sys.stdout and sys.stderr, on fds 1 and 2,
    unbuffered: made in the worker once, before any fork, so that each
    program process only points sys at them."""
    return (io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace", newline="",
                             write_through=True),
            io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                             newline="", write_through=True))


def _pad(n, fn, args, kwargs):
    if n > 0:
        return _pad(n - 1, fn, args, kwargs)
    return fn(*args, **kwargs)


class Server:
    """The program process's end of the channel. room_bias calibrates the
    recursion room of a call (see call_at)."""

    def __init__(self, sock, program_path, code=None, room_bias=0, std_prefixes=(), name="solution", spec=None):
        self.sock = sock
        self.chan = wire.Channel(sock)
        self.name = name
        self.path = program_path
        self.code = code
        # The module's spec (program_spec), made before the fork where the
        # worker could; made at the import otherwise.
        self.spec = spec
        self.room_bias = room_bias
        self.std_prefixes = tuple(std_prefixes)
        self.objs = {}  # handle id -> object
        self.ids = {}  # id(object) -> handle id
        self.types = {}  # id(type) -> (type, type id)
        self.classes = {}  # id(exception class) -> (class, class id)
        self.class_by_id = {}
        self.new_types, self.new_classes = [], []
        self.jproxies = {}
        self.depth = 0
        self.thread = threading.get_ident()
        self.lines = None  # coverage of the request being served
        self.warned = []
        self.module = None
        self.out = self.err = None
        self.std_cache = {}
        # The CPU of the program's own code (its import and the operations
        # the judge asked for, not the decoding and encoding around them),
        # counted for requests that ask ("tm", a trusted reference's run
        # whose budget is being measured); None until one does.
        self.own_ns = None

    # ------------------------------------------------------------ set-up

    def capture_output(self, out_fd, err_fd, streams=None):
        """fd 1 and 2 are pipes the judge reads while it waits for this
        process (and writes where its capture has sys.stdout and sys.stderr
        at the time): what the program prints is counted by the judge, as
        its own output, against the output limit. streams: output_streams()
        made before the fork (none of their state is written before)."""
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        for fd in (out_fd, err_fd):
            if fd > 2:
                os.close(fd)
        self.out = self.err = True
        sys.stdout, sys.stderr = streams if streams is not None else output_streams()

    def capture_warnings(self):
        """Every warning raised is sent to the judge, whose filters decide
        (pytest.warns, -W error): here each one is shown, i.e. recorded."""
        # What resetwarnings() and simplefilter("always") leave, the filter
        # made once.
        warnings.filters[:] = ALWAYS
        warnings._filters_mutated()
        warnings.showwarning = self.record_warning

    def record_warning(self, message, category, filename, lineno, file=None, line=None):
        if len(self.warned) < 1000:
            self.warned.append((category, str(message), filename, lineno))

    def program_code(self):
        """solution.py's code: the worker's code object of it while the
        file holds the bytes it was compiled from, else the file's bytes
        compiled as the import system compiles them."""
        with open(self.path, "rb") as f:
            data = f.read()
        if self.code is not None and data == self.code[1]:
            return self.code[0]
        return compile(data, self.path, "exec", dont_inherit=True, optimize=-1)

    # ------------------------------------------------------------ channel

    def serve_forever(self):
        """Answer requests until the judge closes the channel."""
        while True:
            try:
                msg = self.chan.recv()
            except wire.Gone:
                return
            except wire.DataError:
                return
            self.reply(self.serve(msg))

    def reply(self, out):
        self.attach(out)
        self.chan.send(out)

    def attach(self, out):
        """What goes with every message to the judge: new type and class
        descriptors, output, warnings, coverage."""
        if self.new_types:
            out["ty"], self.new_types = self.new_types, []
        if self.new_classes:
            out["xc"], self.new_classes = self.new_classes, []
        if self.own_ns is not None:
            out["oc"] = self.own_ns
        self.flush()
        if self.warned:
            out["w"] = [[self.enc_value(c), m, self.judge_path(f), n] for c, m, f, n in self.warned]
            self.warned = []
        if self.lines:
            out["ln"] = sorted(self.lines)
            self.lines.clear()

    def flush(self):
        """What the program printed is in the pipes before the message that
        follows it."""
        if self.out is None:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - the program's own stream
                pass

    def ask(self, msg, args=(), kwargs=None):
        """A request to the judge from the program's code (a judge object
        used): only from the thread the judge is being served on, while it
        is."""
        if self.depth == 0 or threading.get_ident() != self.thread:
            raise RuntimeError("the test's objects can only be used while the test calls the program")
        enc = wire.Encoder(self.other, storage=True)
        if args or kwargs:
            msg["a"] = [enc.encode(a) for a in args]
            if kwargs:
                msg["k"] = {k: enc.encode(v) for k, v in kwargs.items()}
        self.attach(msg)
        self.chan.send(msg)
        while True:
            try:
                m = self.chan.recv()
            except (wire.Gone, wire.DataError):
                os._exit(0)
            if "r" in m:
                break
            self.reply(self.serve(m))
        dec = wire.Decoder(self.resolve, refs=enc.keep)
        try:
            for slot, form in m.get("wb") or ():
                wire.write_back(enc.keep[slot], dec.decode(form))
            if m["r"] == "ok":
                return dec.decode(m.get("v"))
            exc = self.exception(m.get("x"))
        except (wire.DataError, IndexError, TypeError, KeyError) as e:
            raise RuntimeError("the judge's answer could not be read: %s" % e) from None
        raise exc

    # ------------------------------------------------------------ requests

    def serve(self, msg):
        """One request of the judge's, answered."""
        self.depth += 1
        tracing = msg.get("cov") and self.depth == 1
        if tracing:
            self.start_tracing()
        try:
            return self.answer(msg)
        finally:
            if tracing:
                self.stop_tracing()
            self.depth -= 1

    def answer(self, msg):
        op = msg.get("op")
        room = msg.get("room")
        dec = snaps = None
        out = {"r": "ok"}
        timed = msg.get("tm") is True and self.depth == 1
        try:
            args, kwargs, dec, snaps = self.arguments(msg)
            t0 = own_cpu_ns() if timed else 0
            try:
                if op == "import":
                    value = self.call_at(room, self.import_program)
                elif op == "all":
                    return self.star(room)
                else:
                    fn = OPS.get(op)
                    h = msg.get("h")
                    if fn is None or h not in self.objs:
                        raise LookupError("a request for no operation or object")
                    value = self.call_at(room, fn, self, self.objs[h], msg, args, kwargs)
            finally:
                if timed:
                    self.own_ns = (self.own_ns or 0) + own_cpu_ns() - t0
        except BaseException as e:  # noqa: BLE001 - the program's exception, sent to the judge
            value, out = None, {"r": "exc", "x": self.exc_form(e, frames=True)}
        refs = keep = None
        if dec is not None:
            refs = {id(v): ["a", i] for i, v in enumerate(dec.memo)}
            keep = dec.memo
        enc = wire.Encoder(self.other, refs=refs, keep=keep or (), storage=True)
        try:
            if dec is not None and dec.mutables:
                wb = [[slot, enc.content(obj)] for slot, obj in dec.mutables if wire.changed(obj, snaps[slot])]
                if wb:
                    out["wb"] = wb
            if out["r"] == "ok":
                out["v"] = enc.encode(value)
                if op == "import":
                    out["pre"] = self.module_functions(value, enc)
        except wire.LimitError as e:
            return {"r": "limit", "why": str(e)}
        except Exception as e:  # noqa: BLE001 - a value whose reading raised (a property of the program's)
            return {"r": "exc", "x": self.exc_form(e, frames=True)}
        return out

    def module_functions(self, mod, enc, most=200):
        """The public functions and classes of the program's module, as
        handles, sent with its import: the judge's `from solution import f`
        right after reads them without a request (until its next one)."""
        pre = {}
        for name, v in list(vars(mod).items())[:10000]:
            if type(name) is str and not name.startswith("_") and \
                    (type(v) is types.FunctionType or type(v) is type):
                pre[name] = enc.encode(v)
                if len(pre) >= most:
                    break
        return pre

    def arguments(self, msg):
        a, k = msg.get("a"), msg.get("k")
        if not a and not k:
            return (), {}, None, None
        mutables = []
        dec = wire.Decoder(self.resolve, mutables=mutables)
        args = [dec.decode(x) for x in a or ()]
        kwargs = {str(n): dec.decode(v) for n, v in (k or {}).items()}
        return args, kwargs, dec, {slot: wire.snapshot(obj) for slot, obj in mutables}

    def call_at(self, room, fn, *args):
        """fn(*args) with the recursion room the judge's caller had (room:
        the frames left below it), as if fn were called from there: the
        program's frames then meet the recursion limit where they met it
        when it ran beside the test."""
        if room is None or type(room) is not int or self.room_bias is None:
            return fn(*args)
        here = sys.getrecursionlimit() - wire.frame_depth(sys._getframe()) - self.room_bias
        n = here - room - 1
        return _pad(max(0, min(n, 100000)), fn, args, {})

    def import_program(self):
        """Import solution.py: its module made and registered as the import
        system would, its code executed in it. Not through the import
        machinery, whose objects a fresh process would copy page by page;
        an error at import then has the program's frames alone."""
        if self.module is None:
            code = self.program_code()
            spec = self.spec
            if spec is None or spec.name != self.name or spec.origin != self.path:
                spec = program_spec(self.path, self.name)
            mod = types.ModuleType(self.name)
            mod.__file__, mod.__cached__, mod.__package__ = self.path, None, ""
            mod.__loader__, mod.__spec__ = spec.loader, spec
            sys.modules[self.name] = mod
            try:
                exec(code, mod.__dict__)
            except BaseException:
                sys.modules.pop(self.name, None)
                raise
            self.module = sys.modules.get(self.name, mod)
        return self.module

    def star(self, room):
        """The names `from solution import *` binds, with their values."""
        mod = self.import_program()
        names = self.call_at(room, _star_names, mod)
        values = [self.call_at(room, getattr, mod, n) for n in names]
        return {"r": "ok", "v": wire.Encoder(self.other, storage=True).encode((names, values))}

    # ------------------------------------------------------------ coverage

    def start_tracing(self):
        lines = self.lines = set() if self.lines is None else self.lines

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        def glob(frame, event, arg):
            if os.path.basename(frame.f_code.co_filename) == "solution.py":
                return local
            return None

        sys.settrace(glob)
        threading.settrace(glob)

    def stop_tracing(self):
        sys.settrace(None)
        threading.settrace(None)

    # ------------------------------------------------------------ values

    def handle(self, x):
        hid = self.ids.get(id(x))
        if hid is not None and self.objs[hid] is x:
            return hid
        hid = len(self.objs) + 1
        self.objs[hid] = x
        self.ids[id(x)] = hid
        return hid

    def type_id(self, t):
        known = self.types.get(id(t))
        if known is not None and known[0] is t:
            return known[1]
        tid = len(self.types) + 1
        self.types[id(t)] = (t, tid)
        ops = type_ops(t)
        self.new_types.append([tid, _text(getattr(t, "__name__", "")), _text(getattr(t, "__qualname__", "")),
                               _text(getattr(t, "__module__", "")), ops])
        return tid

    def other(self, x):
        """The form of what is not data."""
        t = type(x)
        if t is JudgeProxy:
            return ["j", object.__getattribute__(x, "_triage_jid")]
        std = self.std_name(x)
        if std is not None:
            return std
        if issubclass(t, type) and issubclass(x, BaseException):
            return ["x", self.exc_class(x)]
        if issubclass(t, BaseException):
            return self.exc_form(x, frames=False)
        return ["h", self.handle(x), self.type_id(t)]

    def std_name(self, x):
        """["S", module, qualname] for a module, class or function of the
        standard library (the judge uses its own), else None."""
        t = type(x)
        if t is types.ModuleType:
            spec = getattr(x, "__spec__", None)
            origin = getattr(spec, "origin", None)
            name = getattr(x, "__name__", None)
            if type(name) is str and name not in ("solution", "__main__") and sys.modules.get(name) is x and \
                    (origin in ("built-in", "frozen") or (type(origin) is str and origin.startswith(self.std_prefixes))):
                return ["S", name, ""]
            return None
        if not (isinstance(x, type) or t in (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
                                             types.WrapperDescriptorType, types.ClassMethodDescriptorType)):
            return None
        key = id(x)
        hit = self.std_cache.get(key)
        if hit is not None and hit[0] is x:
            return hit[1]
        form = None
        try:
            mod, qual = x.__module__, x.__qualname__
            if type(mod) is str and type(qual) is str and "<" not in qual:
                m = sys.modules.get(mod)
                if m is not None and self.std_name(m) is not None:
                    obj = m
                    for part in qual.split("."):
                        obj = getattr(obj, part)
                    if obj is x:
                        form = ["S", mod, qual]
        except Exception:  # noqa: BLE001 - not the standard library's
            form = None
        self.std_cache[key] = (x, form)
        return form

    def exc_class(self, cls):
        known = self.classes.get(id(cls))
        if known is not None and known[0] is cls:
            return known[1]
        bases = []
        for b in cls.__bases__:
            if issubclass(b, BaseException):
                bases.append(self.other(b))
        cid = len(self.classes) + 1
        self.classes[id(cls)] = (cls, cid)
        self.class_by_id[cid] = cls
        own_str = any("__str__" in vars(k) for k in cls.__mro__ if k not in _BUILTIN_EXC)
        self.new_classes.append([cid, _text(cls.__module__), _text(cls.__qualname__), bases, own_str])
        return cid

    def exc_form(self, e, frames, seen=None):
        """An exception as data: its class, args, text, attributes, chain
        and (frames) the frames it passed through in the program."""
        seen = set() if seen is None else seen
        seen.add(id(e))
        enc = wire.Encoder(self.other, storage=True)

        def safe(fn, default):
            try:
                return fn()
            except Exception:  # noqa: BLE001 - the program's own str or attributes
                return default

        args = safe(lambda: enc.encode(tuple(e.args)), [])
        if isinstance(e, OSError) and (e.filename is not None or e.filename2 is not None):
            # The file names are no part of args: the judge makes it again
            # from what OSError's constructor takes.
            args = safe(lambda: enc.encode(("os", e.errno, e.strerror, e.filename, e.filename2)), args)
        text = safe(lambda: _text(str(e)), "<str() failed>")
        attrs = {}
        for k, v in safe(lambda: list(vars(e).items()), []):
            if type(k) is str and not k.startswith("__") and len(attrs) < 64:
                attrs[k] = safe(lambda v=v: enc.encode(v), None)

        def chained(x):
            if x is None or not isinstance(x, BaseException) or id(x) in seen or len(seen) > 16:
                return None
            return self.exc_form(x, frames, seen)

        notes = safe(lambda: [n for n in e.__notes__ if type(n) is str], None) if hasattr(e, "__notes__") else None
        cls = type(e)
        form = ["e", self.handle(e), self.other(cls), args, text, attrs, chained(e.__cause__),
                chained(e.__context__), bool(e.__suppress_context__), notes, None, None]
        if frames:
            form[10], form[11] = self.frames_of(e)
        return form

    def frames_of(self, e):
        """(frames, recursion cut) of e's traceback in the program's code:
        [file as the judge sees it, code's name, first line, line] each, the
        harness's own frames (the request's) left out; the cut is pytest's
        recursion index as (i, j): frame i repeats frame j's position and
        locals."""
        out, raw = [], []
        tb = e.__traceback__
        while tb is not None and len(out) < 10000:
            f = tb.tb_frame
            code = f.f_code
            if code.co_filename != HERE:
                out.append([self.judge_path(code.co_filename), code.co_name, code.co_firstlineno, tb.tb_lineno])
                raw.append((code, tb.tb_lineno, f))
            tb = tb.tb_next
        cut = recursion_cut(raw) if isinstance(e, RecursionError) else None
        return out, cut

    def judge_path(self, path):
        """A file of the program's folder as the judge names it (the run
        folder, where the judge's copy of solution.py is)."""
        folder = os.path.dirname(self.path)
        if type(path) is str and path.startswith(folder + "/"):
            return os.path.join(os.path.dirname(folder), path[len(folder) + 1:])
        return path

    def resolve(self, form):
        """What a non-data form from the judge stands for here."""
        tag = form[0]
        if tag == "h":
            obj = self.objs.get(form[1])
            if obj is None and form[1] not in self.objs:
                raise wire.DataError("no such object")
            return obj
        if tag == "j":
            jid = form[1]
            p = self.jproxies.get(jid)
            if p is None:
                p = self.jproxies[jid] = JudgeProxy(self, jid)
            return p
        if tag == "S":
            try:
                return resolve_std(form[1], form[2])
            except (AttributeError, TypeError):
                raise wire.DataError("no such name") from None
        if tag == "x":
            cls = self.class_by_id.get(form[1])
            if cls is None:
                raise wire.DataError("no such class")
            return cls
        raise wire.DataError("an unknown form %r" % tag)

    def exception(self, form):
        """An exception the judge sent (its callback raised): builtin and
        standard-library classes as themselves, others as RuntimeError."""
        if type(form) is not list or len(form) < 5:
            return RuntimeError("the test's code raised an exception")
        dec = wire.Decoder(self.resolve)
        try:
            cls = dec.decode(form[2])
            args = dec.decode(form[3])
        except wire.DataError:
            cls, args = RuntimeError, ()
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = RuntimeError
            args = (form[4],)
        try:
            exc = cls(*args)
        except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
            exc = RuntimeError(form[4])
        exc._triage_jx = form[1]
        return exc

    def enc_value(self, x):
        return wire.Encoder(self.other, storage=True).encode(x)

    def special(self, proxy, name, args):
        return self.ask({"op": "special", "j": object.__getattribute__(proxy, "_triage_jid"), "name": name}, args)


def program_spec(path, name="solution"):
    """The spec of the program's module at path, with its loader, as the
    import system makes them for a source file. The worker makes it once,
    before the fork server (each program process then copies a page or two
    of it, not the pages of the import machinery's code that makes it:
    about 140 us a run)."""
    import importlib.machinery

    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.machinery.ModuleSpec(name, loader, origin=path)
    spec.has_location = True
    return spec


def own_cpu_ns():
    """This process's CPU, every thread's (a program's threads are its own
    code too), from getrusage: the process clock of a process with a CPU
    rlimit lags by what the running thread has not yet been charged."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return int((ru.ru_utime + ru.ru_stime) * 1e9)


def _star_names(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    return [str(n) for n in names]


def _has(t, name):
    """Whether instances of t have the operation name: found in the dicts
    of t's MRO, as CPython's slots are (not through t's metaclass: every
    class has type.__call__, its instances need not be callable)."""
    try:
        for k in type.__dict__["__mro__"].__get__(t):
            v = type.__dict__["__dict__"].__get__(k).get(name)
            if v is not None:
                return True
    except Exception:  # noqa: BLE001 - a class of the program's
        return False
    return False


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type()

# The operations of the interpreter's own types, by id: the same in every
# run (a static type's dict does not change), found once in the worker (at
# this module's import and in its warm-up) instead of by each program
# process at its first handle of a function or a class (72 names looked up
# in the MRO: about 120 us a run).
_STATIC_OPS = {}


def type_ops(t):
    """The operations instances of t have (SPECIAL, calls, isinstance and
    issubclass), as the judge's Remote class of t forwards them."""
    hit = _STATIC_OPS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    ops = [n for n in SPECIAL + ("__call__", "__instancecheck__", "__subclasscheck__") if _has(t, n)]
    try:
        static = not type.__dict__["__flags__"].__get__(t) & _HEAPTYPE
    except Exception:  # noqa: BLE001 - not a type
        static = False
    if static:
        _STATIC_OPS[id(t)] = (t, ops)
    return ops


def _text(s):
    return s if type(s) is str else ""


_BUILTIN_EXC = frozenset(v for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, BaseException))


def resolve_std(module, qualname):
    mod = sys.modules.get(module)
    if mod is None:
        import importlib

        try:
            mod = importlib.import_module(module)
        except Exception:  # noqa: BLE001
            raise wire.DataError("no module %s" % module) from None
    obj = mod
    for part in qualname.split(".") if qualname else ():
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------- operations

def _op_getattr(s, target, msg, args, kwargs):
    return getattr(target, str(msg.get("name")))


def _op_setattr(s, target, msg, args, kwargs):
    setattr(target, str(msg.get("name")), args[0])


def _op_delattr(s, target, msg, args, kwargs):
    delattr(target, str(msg.get("name")))


def _op_call(s, target, msg, args, kwargs):
    return target(*args, **kwargs)


def _op_callattr(s, target, msg, args, kwargs):
    return getattr(target, str(msg.get("name")))(*args, **kwargs)


def _op_special(s, target, msg, args, kwargs):
    name = msg.get("name")
    fn = _SPECIAL_FUNCS.get(name)
    if fn is None:
        raise wire.DataError("no operation %r" % name)
    return fn(target, *args)


def _op_dir(s, target, msg, args, kwargs):
    return sorted(str(n) for n in dir(target))


OPS = {"getattr": _op_getattr, "setattr": _op_setattr, "delattr": _op_delattr, "call": _op_call,
       "callattr": _op_callattr, "special": _op_special, "dir": _op_dir}


def _dunder(name):
    def fn(obj, *args):
        return getattr(type(obj), name)(obj, *args)
    return fn


_SPECIAL_FUNCS = {n: _dunder(n) for n in SPECIAL}
_SPECIAL_FUNCS.update({
    "__repr__": repr, "__str__": str, "__len__": len, "__iter__": iter, "__next__": next, "__bool__": bool,
    "__contains__": lambda o, x: x in o, "__getitem__": lambda o, k: o[k], "__format__": format,
    "__instancecheck__": lambda o, x: isinstance(x, o), "__subclasscheck__": lambda o, x: issubclass(x, o),
    "__hash__": hash,
})


def recursion_cut(frames):
    """pytest's Traceback.recursionindex over (code, line, frame) with the
    frames' locals compared by ==, here in the program's process: (i, j),
    frame i repeating frame j, or None. Frames of one position are compared
    with each other only, and at most 200,000 comparisons are made."""
    seen = {}
    budget = 200000
    for i, (code, line, f) in enumerate(frames):
        key = (id(code), line)
        earlier = seen.setdefault(key, [])
        try:
            loc = f.f_locals
        except Exception:  # noqa: BLE001
            continue
        for j, other in earlier:
            budget -= 1
            if budget < 0:
                return None
            try:
                if loc == other:
                    return i, j
            except Exception:  # noqa: BLE001 - pytest's == would fail the same way: no cut
                return None
        earlier.append((i, loc))
    return None


# The types whose handles most runs send: functions and classes first.
for _t in (types.FunctionType, type, types.BuiltinFunctionType, types.MethodType, types.GeneratorType,
           types.ModuleType, map, filter, zip, enumerate, reversed, type(iter([])), type(iter(())),
           type(iter("")), type(iter(range(0))), type(iter({})), type({}.keys()), type({}.values()),
           type({}.items()), type(iter(set())), property, staticmethod, classmethod, object):
    type_ops(_t)
del _t
