# triage sandbox judge: the judge's end of a run's channel to its program
# process (see README.md, "Two processes").
#
# The test file, pytest (or the direct runner) and every assertion run in
# the judge; solution.py runs in the program process (program.py). Here
# `solution` is a module whose attributes are asked of the program: data
# comes back as the judge's own values (wire.py), anything else as a Remote,
# a proxy whose every use is a request, equal only to itself. The program's
# exceptions come back with their type, args, text and frames (builtin and
# standard-library classes as themselves, the program's own as classes made
# here with the same builtin bases). Arguments the program mutated are
# written back, and a result that is an argument is that argument. The
# test's own objects go to the program as handles, served here by their
# public names.
import builtins
import codecs
import importlib.machinery
import os
import select
import sys
import types
import warnings

import frames
import wire

frames.HIDING_FILES.add(__file__)


def program_special():
    """The operations program.JudgeProxy forwards (program.SPECIAL, without
    importing the program's side here)."""
    ops = ["__len__", "__iter__", "__next__", "__reversed__", "__getitem__", "__setitem__", "__delitem__",
           "__contains__", "__bool__", "__enter__", "__exit__", "__format__", "__index__", "__int__", "__float__",
           "__complex__", "__round__", "__trunc__", "__floor__", "__ceil__", "__neg__", "__pos__", "__abs__",
           "__invert__"]
    for base in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow", "lshift", "rshift",
                 "and", "xor", "or"):
        ops += ["__%s__" % base, "__r%s__" % base, "__i%s__" % base]
    return ops

# The attributes of the test's objects the program may read besides their
# public ones.
JUDGE_DUNDERS = frozenset(("__name__", "__qualname__", "__doc__", "__module__"))
# The program module's attributes the judge answers itself (the import
# system's probes, pytest's and inspect's).
LOCAL_DUNDERS = frozenset(("__path__", "__wrapped__", "__test__", "__pytest_wrapped__", "__getattr__",
                           "__code__", "__func__", "__self__", "__signature__", "__annotations__", "__origin__"))

# What pytest reads of every object in a test module (a fixture's marker),
# answered here for a handle: what it looks for is never a handle, and
# asking cost each run a request (about 0.3 ms of the program process's).
PYTEST_PROBES = frozenset(("_pytestfixturefunction",))

# The largest count of the program's own CPU taken (about 146 years, in ns).
OWN_NS_MAX = 1 << 62


class ProgramDataError(Exception):
    """The program sent what is not data (or over the limits): the test
    that asked fails with this."""

    __module__ = "triage"


class Hidden:
    """Marks the judge's own frames on the way of a program's exception:
    pytest hides them (their locals hold __tracebackhide__)."""


class Client:
    """The judge's end of the channel: the handle tables and the requests."""

    def __init__(self, sock, program_dir, judge_dir, std_prefixes=(), room_bias=None, on_gone=None, output=()):
        self.sock = sock
        self.chan = wire.Channel(sock)
        # The read ends of the program's stdout and stderr: what comes is
        # written, as it comes, where sys.stdout and sys.stderr are.
        self.streams = []
        for fd, name in zip(output, ("stdout", "stderr")):
            os.set_blocking(fd, False)
            self.streams.append((fd, name, codecs.getincrementaldecoder("utf-8")("replace")))
        self.waits = [sock] + [fd for fd, _, _ in self.streams]
        self.pipes = [fd for fd, _, _ in self.streams]
        self.program_dir = program_dir
        self.judge_dir = judge_dir
        self.std_prefixes = tuple(std_prefixes)
        self.room_bias = room_bias  # None: calls carry no recursion room
        self.on_gone = on_gone or (lambda: os._exit(0))
        self.remotes = {}  # handle id -> Remote
        self.proxy_types = {}  # type id -> Remote class
        self.classes = {}  # class id -> exception class made here
        self.class_ids = {}  # id(class made here) -> class id
        self.exc_handles = {}  # id(exception) -> (exception, handle id)
        self.objs = {}  # judge id -> the test's object
        self.jids = {}  # id(object) -> judge id
        self.raised = {}  # judge id of an exception a callback raised -> it
        self.module = None
        self.module_h = None
        self.broken = None
        self.prefetch = {}
        self.coverage = None  # () -> the current test's line set, or None
        self.std_cache = {}
        # timed: ask the program process to count its own code's CPU
        # (program.Server.own_ns), for a trusted reference's run whose
        # budget is being measured; own_ns is its latest count.
        self.timed = False
        self.own_ns = None

    # ------------------------------------------------------------ requests

    def room(self, frame):
        if self.room_bias is None:
            return None
        return sys.getrecursionlimit() - wire.frame_depth(frame) - self.room_bias

    def request(self, msg, args=(), kwargs=None, frame=None):
        """Send msg (with args and kwargs encoded) and return the program's
        answer: a value, or its exception raised here."""
        __tracebackhide__ = True
        if self.broken:
            raise ProgramDataError(self.broken)
        self.prefetch = {}
        enc = wire.Encoder(self.other)
        if args:
            msg["a"] = [enc.encode(a) for a in args]
        if kwargs:
            msg["k"] = {k: enc.encode(v) for k, v in kwargs.items()}
        if frame is not None:
            r = self.room(frame)
            if r is not None:
                msg["room"] = r
        lines = self.coverage() if self.coverage is not None else None
        if lines is not None:
            msg["cov"] = True
        if self.timed:
            msg["tm"] = True
        self.send(msg)
        while True:
            m = self.receive()
            self.take_extras(m)
            if "r" in m:
                break
            self.send(self.serve(m))
        return self.outcome(m, enc)

    def send(self, msg):
        try:
            self.chan.send(msg)
        except OSError:
            self.on_gone()

    def receive(self):
        """The program's next message, what it printed before it written
        first (one select a message: a pipe select finds ready holds what
        was written before the socket's data came)."""
        __tracebackhide__ = True
        try:
            if self.pipes:
                if self.chan.pending():
                    ready, _, _ = select.select(self.pipes, [], [], 0)
                    self.drain(ready)
                else:
                    while True:
                        ready, _, _ = select.select(self.waits, [], [])
                        if ready[-1] is not self.sock or len(ready) > 1:
                            self.drain(ready)
                        if ready[0] is self.sock:
                            break
            return self.chan.recv()
        except (wire.Gone, OSError):
            self.on_gone()
            raise SystemExit(0)  # on_gone does not return; this is for its stand-ins in tests
        except wire.DataError as e:
            # The stream is out of step from here on: every later request
            # fails the same way.
            self.broken = "the program broke the protocol: %s" % e
            raise ProgramDataError(self.broken) from None

    def outcome(self, m, enc):
        __tracebackhide__ = True
        kind = m.get("r")
        if kind == "limit":
            raise ProgramDataError("the program's value is too large to judge: %s" % m.get("why"))
        try:
            dec = wire.Decoder(self.resolve, refs=enc.keep)
            for slot, form in m.get("wb") or ():
                if type(slot) is not int or not 0 <= slot < len(enc.keep) or type(enc.keep[slot]) not in wire.MUTABLE:
                    raise wire.DataError("a write-back to no argument")
                wire.write_back(enc.keep[slot], dec.decode(form))
            if kind == "ok":
                return dec.decode(m.get("v"))
            if kind != "exc":
                raise wire.DataError("an answer of no kind")
            exc = self.exception(m.get("x"), dec)
        except wire.DataError as e:
            raise ProgramDataError("the program's answer is not data: %s" % e) from None
        raise exc.with_traceback(exc.__traceback__)

    def take_extras(self, m):
        """What comes with every message: type and class descriptors,
        output, warnings, coverage."""
        for d in m.get("ty") or ():
            self.add_type(d)
        for d in m.get("xc") or ():
            self.add_class(d)
        for w in m.get("w") or ():
            self.warn(w)
        pre = m.get("pre")
        if type(pre) is dict:
            # The module's functions and classes, sent with its import:
            # its attributes until the next request.
            dec = wire.Decoder(self.resolve)
            try:
                self.prefetch = {n: dec.decode(f) for n, f in pre.items() if type(f) is list and f[:1] == ["h"]}
            except wire.DataError:
                self.prefetch = {}
        # The program's count of its own CPU, asked for a trusted reference's
        # run only; any other run's, or a number no CPU time is, is dropped
        # (the judge turns it into a float at its end).
        own = m.get("oc")
        if self.timed and type(own) is int and 0 <= own < OWN_NS_MAX:
            self.own_ns = own
        lines = m.get("ln")
        if lines:
            sink = self.coverage() if self.coverage is not None else None
            if sink is not None:
                sink.update(n for n in lines if type(n) is int)

    def drain(self, ready=None):
        """Write what the program's pipes hold (those of ready, or all)
        where the judge's sys.stdout and sys.stderr are now: pytest's
        capture of the phase, capsys or capfd. Past the output limit the
        judge's own writes fail and its SIGXFSZ handler marks the run, as a
        program's writes into pytest's capture did."""
        for fd, name, decoder in self.streams:
            if ready is not None and fd not in ready:
                continue
            while True:
                try:
                    data = os.read(fd, 1 << 16)
                except BlockingIOError:
                    break
                except OSError:
                    data = b""
                if not data:
                    self.streams = [s for s in self.streams if s[0] != fd]
                    self.waits = [w for w in self.waits if w != fd]
                    self.pipes = [w for w in self.pipes if w != fd]
                    break
                text = decoder.decode(data)
                if text:
                    try:
                        getattr(sys, name).write(text)
                    except Exception:  # noqa: BLE001 - as a print into that capture would fail
                        pass

    def warn(self, w):
        try:
            dec = wire.Decoder(self.resolve)
            cat = dec.decode(w[0])
            if not (isinstance(cat, type) and issubclass(cat, Warning)):
                cat = UserWarning
            filename = self.judge_path(w[2]) if type(w[2]) is str else "solution.py"
            lineno = w[3] if type(w[3]) is int else 0
            message = w[1] if type(w[1]) is str else ""
        except (wire.DataError, IndexError, TypeError):
            return
        warnings.warn_explicit(message, cat, filename, lineno)

    def judge_path(self, path):
        if path.startswith(self.program_dir + "/"):
            return os.path.join(self.judge_dir, path[len(self.program_dir) + 1:])
        return path

    # ------------------------------------------------------------ values

    def other(self, x):
        """The form of a judge value that is not data."""
        t = type(x)
        if isinstance(x, Remote):
            return ["h", object.__getattribute__(x, "_triage_h")]
        if x is self.module:
            return ["h", self.module_h]
        cid = self.class_ids.get(id(x))
        if cid is not None and self.classes.get(cid) is x:
            return ["x", cid]
        hit = self.exc_handles.get(id(x))
        if hit is not None and hit[0] is x:
            return ["h", hit[1]]
        std = self.std_name(x)
        if std is not None:
            return std
        jid = self.jids.get(id(x))
        if jid is None or self.objs[jid] is not x:
            jid = len(self.objs) + 1
            self.objs[jid] = x
            self.jids[id(x)] = jid
        return ["j", jid]

    def std_name(self, x):
        """["S", module, qualname] for a module, class or function of the
        standard library (the program uses its own), else None."""
        t = type(x)
        if t is types.ModuleType:
            name = getattr(x, "__name__", None)
            if type(name) is str and sys.modules.get(name) is x and self.is_std_module(name):
                return ["S", name, ""]
            return None
        if not (isinstance(x, type) or t in (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
                                             types.WrapperDescriptorType, types.ClassMethodDescriptorType)):
            return None
        hit = self.std_cache.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        form = None
        try:
            mod, qual = x.__module__, x.__qualname__
            if type(mod) is str and type(qual) is str and "<" not in qual and self.is_std_module(mod):
                if self.std_object(mod, qual) is x:
                    form = ["S", mod, qual]
        except Exception:  # noqa: BLE001 - not the standard library's
            form = None
        self.std_cache[id(x)] = (x, form)
        return form

    def is_std_module(self, name):
        """Whether module name is the standard library's (or an installed
        package's): imported from the interpreter's own folders, never the
        run folder."""
        if name in ("solution", "test_solution", "__main__"):
            return False
        m = sys.modules.get(name)
        spec = getattr(m, "__spec__", None) if m is not None else None
        if m is None:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError, AttributeError):
                return False
        origin = getattr(spec, "origin", None)
        return origin in ("built-in", "frozen") or (type(origin) is str and origin.startswith(self.std_prefixes))

    def std_object(self, module, qualname):
        mod = sys.modules.get(module)
        if mod is None:
            if module in STD_IMPORT_DENY or module.split(".")[0] in STD_IMPORT_DENY:
                raise wire.DataError("no module %s here" % module)
            mod = importlib.import_module(module)
        obj = mod
        for part in qualname.split(".") if qualname else ():
            obj = getattr(obj, part)
        return obj

    def resolve(self, form):
        """What a non-data form from the program stands for here."""
        tag = form[0]
        if tag == "h":
            hid = form[1]
            r = self.remotes.get(hid)
            if r is None:
                if len(form) < 3 or type(hid) is not int:
                    raise wire.DataError("an unknown handle")
                cls = self.proxy_types.get(form[2])
                if cls is None:
                    raise wire.DataError("a handle of an unknown type")
                r = cls.__new__(cls)
                object.__setattr__(r, "_triage_h", hid)
                self.remotes[hid] = r
            return r
        if tag == "j":
            obj = self.objs.get(form[1])
            if obj is None and form[1] not in self.objs:
                raise wire.DataError("an unknown object of the test's")
            return obj
        if tag == "S":
            if len(form) != 3 or type(form[1]) is not str or type(form[2]) is not str or \
                    not self.is_std_module(form[1]):
                raise wire.DataError("a name outside the standard library")
            try:
                obj = self.std_object(form[1], form[2])
            except (ImportError, AttributeError):
                raise wire.DataError("no %s.%s here" % (form[1], form[2])) from None
            # A module by its name, or a class or function under its own
            # module and qualified name: never an instance a module holds
            # (pytest.mark, a MarkDecorator), which the test's code would
            # then use as the program chose.
            if form[2] == "":
                if type(obj) is not types.ModuleType:
                    raise wire.DataError("%s is not a module" % form[1])
            elif not (isinstance(obj, type) or type(obj) in STD_FUNCTIONS) or \
                    getattr(obj, "__module__", None) != form[1] or getattr(obj, "__qualname__", None) != form[2]:
                raise wire.DataError("%s.%s is not a class or function of its own name" % (form[1], form[2]))
            return obj
        if tag == "x":
            cls = self.classes.get(form[1])
            if cls is None:
                raise wire.DataError("an unknown exception class")
            return cls
        if tag == "e":
            return self.exception(form, wire.Decoder(self.resolve))
        raise wire.DataError("an unknown tag %r" % tag)

    def add_type(self, d):
        """A Remote class for the program's type of descriptor d: [type id,
        name, qualname, module, the operations its objects have]. One class
        per descriptor for the life of the process (PROXY_CLASSES): the
        worker's warm-up makes those of the common types before any run."""
        if type(d) is not list or len(d) != 5 or type(d[0]) is not int or type(d[4]) is not list:
            raise ProgramDataError("a malformed type descriptor")
        ops = tuple(sorted(op for op in d[4] if op in FORWARDED))
        name = d[1] if type(d[1]) is str and d[1].isidentifier() else "Remote"
        qualname = d[2] if type(d[2]) is str and d[2] else name
        module = d[3] if type(d[3]) is str and d[3] else "solution"
        key = (name, qualname, module, ops)
        cls = PROXY_CLASSES.get(key)
        if cls is None:
            ns = {"__slots__": ()}
            for op in ops:
                ns[op] = FORWARDED[op]
            cls = type(name, (Remote,), ns)
            cls.__qualname__, cls.__module__ = qualname, module
            if len(PROXY_CLASSES) < 4096:
                PROXY_CLASSES[key] = cls
        self.proxy_types[d[0]] = cls

    def add_class(self, d):
        """The judge's exception class for the program's of descriptor d:
        [class id, module, qualname, base forms, whether it has its own
        __str__]."""
        if type(d) is not list or len(d) != 5 or type(d[0]) is not int or type(d[3]) is not list:
            raise ProgramDataError("a malformed class descriptor")
        dec = wire.Decoder(self.resolve)
        try:
            bases = tuple(dec.decode(b) for b in d[3])
        except wire.DataError as e:
            raise ProgramDataError("a malformed class descriptor: %s" % e) from None
        bases = tuple(b for b in bases if isinstance(b, type) and issubclass(b, BaseException)) or (Exception,)
        qualname = d[2] if type(d[2]) is str and d[2] else "ProgramError"
        name = qualname.rpartition(".")[2]
        ns = {"__module__": d[1] if type(d[1]) is str and d[1] else "solution", "__qualname__": qualname}
        if d[4]:
            ns["__str__"] = _stored_str
        try:
            cls = type(name, bases, ns)
        except TypeError:
            cls = type(name, (Exception,), ns)
        self.classes[d[0]] = cls
        self.class_ids[id(cls)] = d[0]

    def exception(self, form, dec):
        """The exception of form ["e", handle, class, args, text, attributes,
        cause, context, suppress context, notes, frames, recursion cut]."""
        if type(form) is not list or len(form) != 12 or form[0] != "e":
            raise wire.DataError("a malformed exception")
        attrs = dec.decode(["d"] + [x for k, v in (form[5] or {}).items() for x in (k, v)]) \
            if type(form[5]) is dict else {}
        jx = attrs.pop("_triage_jx", None)
        if type(jx) is int and jx in self.raised:
            return self.raised[jx]  # the test's own exception, back through the program
        cls = dec.decode(form[2])
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise wire.DataError("an exception whose class is not an exception class")
        args = dec.decode(form[3])
        args = tuple(args) if type(args) is tuple else (args,)
        if issubclass(cls, OSError) and len(args) == 5 and args[0] == "os":
            # errno, strerror, filename, filename2: as OSError's constructor takes them.
            ctor = (args[1], args[2], args[3], None, args[4])
            exc = cls.__new__(cls, *ctor)
            exc.__init__(*ctor)
        elif self.class_ids.get(id(cls)) is not None:
            exc = cls.__new__(cls, *args)
            exc.args = args
        else:
            try:
                exc = cls(*args)
            except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
                exc = cls.__new__(cls)
                exc.args = args
        if type(form[4]) is str and self.class_ids.get(id(cls)) is not None:
            exc._triage_str = form[4]
        if isinstance(exc, SyntaxError) and type(exc.filename) is str:
            exc.filename = self.judge_path(exc.filename)
        for k, v in attrs.items():
            if type(k) is str and k not in ("args", "_triage_str") and not k.startswith("__"):
                try:
                    setattr(exc, k, v)
                except (AttributeError, TypeError):
                    pass
        if type(form[9]) is list:
            exc.__notes__ = [n for n in form[9] if type(n) is str]
        cause = form[6]
        if cause is not None:
            exc.__cause__ = self.exception(cause, dec)
        context = form[7]
        if context is not None:
            exc.__context__ = self.exception(context, dec)
        exc.__suppress_context__ = form[8] is True
        if type(form[1]) is int:
            self.exc_handles[id(exc)] = (exc, form[1])
        if type(form[10]) is list and form[10]:
            exc.__traceback__ = frames.fake_traceback(form[10], form[11], self.judge_path)
        return exc

    # ------------------------------------------------------------ the program's requests

    def serve(self, m):
        """A request of the program's on one of the test's objects."""
        op = m.get("op")
        dec = None
        try:
            jid = m.get("j")
            if jid not in self.objs:
                raise LookupError("no such object of the test's")
            obj = self.objs[jid]
            mutables = []
            dec = wire.Decoder(self.resolve, mutables=mutables)
            args = [dec.decode(a) for a in m.get("a") or ()]
            kwargs = {str(k): dec.decode(v) for k, v in (m.get("k") or {}).items()}
            snaps = {slot: wire.snapshot(o) for slot, o in mutables}
            name = m.get("name")
            if op in ("getattr", "setattr", "delattr"):
                if type(name) is not str or (name.startswith("_") and name not in JUDGE_DUNDERS):
                    raise AttributeError("the test's objects show their public attributes only (%r)" % (name,))
                if op == "getattr":
                    value = getattr(obj, name)
                elif op == "setattr":
                    setattr(obj, name, args[0])
                    value = None
                else:
                    delattr(obj, name)
                    value = None
            elif op == "call":
                value = obj(*args, **kwargs)
            elif op == "special" and name in JUDGE_SPECIAL:
                value = JUDGE_SPECIAL[name](obj, *args)
            else:
                raise TypeError("no operation %r on the test's objects" % (op,))
            out = {"r": "ok"}
        except BaseException as e:  # noqa: BLE001 - the test's code raised: the program sees it
            value, out = None, {"r": "exc", "x": self.judge_exc_form(e)}
            snaps = {}
        enc = wire.Encoder(self.other, refs={id(v): ["a", i] for i, v in enumerate(dec.memo)} if dec else None,
                           keep=dec.memo if dec else ())
        if dec is not None and dec.mutables and snaps:
            wb = [[slot, enc.content(o)] for slot, o in dec.mutables if wire.changed(o, snaps[slot])]
            if wb:
                out["wb"] = wb
        if out["r"] == "ok":
            try:
                out["v"] = enc.encode(value)
            except wire.LimitError as e:
                return {"r": "exc", "x": self.judge_exc_form(ValueError(str(e)))}
        return out

    def judge_exc_form(self, e):
        jid = len(self.raised) + 1
        self.raised[jid] = e
        enc = wire.Encoder(self.other)
        cls = type(e)
        std = self.std_name(cls)
        try:
            args = enc.encode(tuple(e.args)) if std is not None else []
        except Exception:  # noqa: BLE001
            args = []
        try:
            text = str(e)
        except Exception:  # noqa: BLE001
            text = cls.__name__
        return ["e", jid, std if std is not None else ["S", "builtins", "RuntimeError"], args, text]


PROXY_CLASSES = {}  # (name, qualname, module, operations) -> Remote class
STD_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
                 types.WrapperDescriptorType, types.ClassMethodDescriptorType)
STD_IMPORT_DENY = frozenset(("antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "webbrowser",
                             "pydoc", "test", "ensurepip", "venv", "lib2to3", "pdb", "code", "cProfile", "profile"))


def _stored_str(self):
    text = self.__dict__.get("_triage_str")
    if type(text) is str:
        return text
    return BaseException.__str__(self)


# ---------------------------------------------------------------- Remote

_client = [None]


def client():
    return _client[0]


class Remote:
    """An object of the program's. Equal only to itself; every other use a
    request."""

    __slots__ = ("_triage_h", "__weakref__")

    def __getattr__(self, name):
        __tracebackhide__ = True
        if (name.startswith("__") and name.endswith("__") and name in LOCAL_DUNDERS) or name in PYTEST_PROBES:
            raise AttributeError(name)
        return _client[0].request({"op": "getattr", "h": object.__getattribute__(self, "_triage_h"), "name": name},
                                  frame=sys._getframe(1))

    def __setattr__(self, name, value):
        __tracebackhide__ = True
        _client[0].request({"op": "setattr", "h": object.__getattribute__(self, "_triage_h"), "name": name}, (value,),
                           frame=sys._getframe(1))

    def __delattr__(self, name):
        __tracebackhide__ = True
        _client[0].request({"op": "delattr", "h": object.__getattribute__(self, "_triage_h"), "name": name},
                           frame=sys._getframe(1))

    def __dir__(self):
        __tracebackhide__ = True
        return _client[0].request({"op": "dir", "h": object.__getattribute__(self, "_triage_h")})

    def __repr__(self):
        __tracebackhide__ = True
        return _special(self, "__repr__", (), sys._getframe(1))

    def __str__(self):
        __tracebackhide__ = True
        return _special(self, "__str__", (), sys._getframe(1))

    def __format__(self, spec):
        __tracebackhide__ = True
        return _special(self, "__format__", (spec,), sys._getframe(1))

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        raise TypeError("an object of the program's cannot be copied or pickled in the test")

    def __copy__(self):
        raise TypeError("an object of the program's cannot be copied in the test")

    def __deepcopy__(self, memo):
        raise TypeError("an object of the program's cannot be copied in the test")


def _special(self, name, args, frame):
    __tracebackhide__ = True
    return _client[0].request({"op": "special", "h": object.__getattribute__(self, "_triage_h"), "name": name}, args,
                              frame=frame)


def _forward(name):
    def method(self, *args):
        __tracebackhide__ = True
        return _special(self, name, args, sys._getframe(1))
    method.__name__ = name
    return method


def _call(self, *args, **kwargs):
    __tracebackhide__ = True
    return _client[0].request({"op": "call", "h": object.__getattribute__(self, "_triage_h")}, args, kwargs,
                              frame=sys._getframe(1))


# The operations of a program's object the judge asks the program: its
# protocol as a container, an iterator, a context manager and a class. Not
# ==, ordering, arithmetic or numeric conversion: a handle is equal only to
# itself and is no number (`abs(handle - 0.3)` raises, where a program's
# object could answer 0.0 to any difference).
SPECIAL = ("__len__", "__iter__", "__next__", "__reversed__", "__getitem__", "__setitem__", "__delitem__",
           "__contains__", "__bool__", "__enter__", "__exit__", "__instancecheck__", "__subclasscheck__")
FORWARDED = {n: _forward(n) for n in SPECIAL}
FORWARDED["__call__"] = _call

# What the program may do with the test's objects besides attributes and
# calls: the operations of program.JudgeProxy, each the object's own (the
# judge answers for its own objects).
JUDGE_SPECIAL = {n: (lambda n: lambda o, *a: getattr(type(o), n)(o, *a))(n) for n in program_special()}
JUDGE_SPECIAL.update({"__repr__": repr, "__str__": str, "__len__": len, "__iter__": iter, "__next__": next,
                      "__bool__": bool, "__contains__": lambda o, x: x in o, "__getitem__": lambda o, k: o[k],
                      "__format__": format, "__lt__": lambda o, x: o < x, "__le__": lambda o, x: o <= x,
                      "__gt__": lambda o, x: o > x, "__ge__": lambda o, x: o >= x})


# ---------------------------------------------------------------- the solution module

class ProgramModule(types.ModuleType):
    """The judge's `solution`: its attributes are the program module's."""

    def __getattr__(self, name):
        __tracebackhide__ = True
        c = _client[0]
        if name in c.prefetch:
            return c.prefetch[name]
        if name.startswith("__") and name.endswith("__"):
            if name == "__all__":
                got = c.request({"op": "all"}, frame=sys._getframe(1))
                if type(got) is not tuple or len(got) != 2 or type(got[0]) is not list or type(got[1]) is not list:
                    raise ProgramDataError("the program's names for `import *` are not a list of names")
                # Names only, and no dunder: a star import binds them in the
                # test module (its __builtins__ would be the program's).
                names = [n for n in got[0] if type(n) is str and n.isidentifier() and not n.startswith("__")]
                c.prefetch = {n: v for n, v in zip(got[0], got[1]) if n in names}
                return names
            if name in LOCAL_DUNDERS or name not in ("__version__", "__author__"):
                raise AttributeError("module %r has no attribute %r" % (self.__name__, name))
        return c.request({"op": "getattr", "h": c.module_h, "name": name}, frame=sys._getframe(1))

    def __setattr__(self, name, value):
        __tracebackhide__ = True
        if name.startswith("__") and name.endswith("__"):
            types.ModuleType.__setattr__(self, name, value)
            return
        c = _client[0]
        c.request({"op": "setattr", "h": c.module_h, "name": name}, (value,), frame=sys._getframe(1))

    def __delattr__(self, name):
        __tracebackhide__ = True
        if name.startswith("__") and name.endswith("__"):
            types.ModuleType.__delattr__(self, name)
            return
        c = _client[0]
        c.request({"op": "delattr", "h": c.module_h, "name": name}, frame=sys._getframe(1))

    def __dir__(self):
        c = _client[0]
        return c.request({"op": "dir", "h": c.module_h})


def _import_program(module):
    """The program's import, asked of the program process; its exception
    raised here with the program's frames."""
    __tracebackhide__ = True
    c = _client[0]
    got = c.request({"op": "import"}, frame=sys._getframe(3))
    if not isinstance(got, Remote):
        raise ProgramDataError("the program's import answered with no module")
    hid = object.__getattribute__(got, "_triage_h")
    c.module, c.module_h = module, hid
    c.remotes[hid] = module


def _make_exec_module():
    """exec_module of the judge's loader of solution: its code carries
    importlib's file name and it calls _import_program through
    _call_with_frames_removed, so that CPython trims both from the
    traceback of an error at import, as it trims a plain import's own."""
    import importlib._bootstrap as bootstrap

    text = ("def exec_module(module):\n"
            "    _call_removed(_import_program, module)\n")
    ns = {"__builtins__": builtins, "_call_removed": bootstrap._call_with_frames_removed,
          "_import_program": _import_program}
    exec(compile(text, "<frozen importlib._bootstrap_external>", "exec", dont_inherit=True), ns)
    return ns["exec_module"]


_EXEC_MODULE = _make_exec_module()


class ProgramFinder:
    """The judge's meta path finder of `solution` (of name)."""

    def __init__(self, path, name="solution"):
        self.path, self.name = path, name
        self.exec_module = _EXEC_MODULE

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        return importlib.machinery.ModuleSpec(name, self, origin=self.path)

    def create_module(self, spec):
        m = ProgramModule(self.name)
        types.ModuleType.__setattr__(m, "__file__", self.path)
        return m


def install(c, path, name="solution"):
    """Make c the judge's client and `solution` (name) the program's module
    (at path, the judge's copy of solution.py, as the program's frames name
    it); c None forgets the client and makes its handles stale (a kept
    judge after its run)."""
    if c is None and _client[0] is not None:
        for r in _client[0].remotes.values():
            if isinstance(r, Remote):
                object.__setattr__(r, "_triage_h", -1)
    _client[0] = c
    if c is None:
        return None
    sys.modules.pop(name, None)
    sys.meta_path.insert(0, ProgramFinder(path, name))
    return sys.meta_path[0]
