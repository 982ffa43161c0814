# triage sandbox frames: the program's frames as the judge shows them (see
# README.md, "Two processes").
#
# An exception of the program's comes to the judge with the frames it
# passed through in the program process: fake_traceback makes each one a
# frame of code made here with its file, name and first line, so that
# pytest writes the same text for them (source lines from the file, the
# line from the traceback entry; its recursion check from the repeat the
# program names). clean_traceback takes out the judge's own frames on the
# way (those of HIDING_FILES with __tracebackhide__), which a run in one
# process never had.
import builtins
import types

# The files whose frames with __tracebackhide__ are the judge's own
# (judge.py adds itself).
HIDING_FILES = set()
_fake_codes = {}
_fake_globals = {"__builtins__": builtins, "__name__": "triage_frames"}


class _Raise(BaseException):
    pass


def _fake_function(filename, name, first):
    """A function whose code has the file name, name and first line of a
    frame of the program's: calling it leaves a frame pytest reads as that
    one (its source lines come from the file, the line from the
    traceback entry)."""
    key = (filename, name, first)
    fn = _fake_codes.get(key)
    if fn is None:
        code = compile("def f(_k):\n    raise _Raise\n", filename, "exec", dont_inherit=True).co_consts[0]
        code = code.replace(co_name=name, co_qualname=name, co_firstlineno=max(1, first))
        fn = types.FunctionType(code, dict(_fake_globals, _Raise=_Raise))
        if len(_fake_codes) < 10000:
            _fake_codes[key] = fn
    return fn


def fake_traceback(frames, cut, judge_path):
    """A traceback of frames [file, name, first line, line] made of fake
    frames (see _fake_function). Their locals are {"_k": n}, a number of
    their own, except that with cut (i, j) frame i has frame j's: pytest's
    recursion check then finds the repeat the program's frames had."""
    keys = list(range(len(frames)))
    if type(cut) is list and len(cut) == 2 and all(type(c) is int for c in cut) and 0 <= cut[1] < cut[0] < len(frames):
        keys[cut[0]] = keys[cut[1]]
    made = []
    for (fn_, name, first, line), k in zip(frames, keys):
        if type(fn_) is not str or type(name) is not str or type(first) is not int or type(line) is not int:
            continue
        f = _fake_function(judge_path(fn_), name, first)
        try:
            f(k)
        except _Raise as e:
            tb = e.__traceback__
            made.append((tb.tb_next.tb_frame, tb.tb_next.tb_lasti, line))
    tb = None
    for frame, lasti, line in reversed(made):
        tb = types.TracebackType(tb, frame, lasti, line)
    return tb


def _hidden(tb):
    f = tb.tb_frame
    return f.f_code.co_filename in HIDING_FILES and f.f_locals.get("__tracebackhide__") is True


def clean_traceback(exc):
    """Take the judge's own frames (those on the way of a program's
    exception, each with __tracebackhide__) out of exc's traceback and of
    the tracebacks of the exceptions it chains or groups, in place: a run
    in one process never had them, and pytest writes a chained exception's
    traceback, and an exception group's, without hiding them."""
    seen = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if not isinstance(e, BaseException) or id(e) in seen or len(seen) > 64:
            continue
        seen.add(id(e))
        tb = e.__traceback__
        while tb is not None and _hidden(tb):
            tb = tb.tb_next
        if tb is not e.__traceback__:
            e.__traceback__ = tb
        while tb is not None:
            nxt = tb.tb_next
            while nxt is not None and _hidden(nxt):
                nxt = nxt.tb_next
            if nxt is not tb.tb_next:
                tb.tb_next = nxt
            tb = nxt
        todo.extend((e.__cause__, e.__context__))
        todo.extend(getattr(e, "exceptions", ()) if isinstance(e, BaseExceptionGroup) else ())
