# triage sandbox failtext: a failing test's text as pytest writes it, for
# less (see README.md, "Failure texts that cost less").
#
# Used in the judge (the direct runner and pytest's own run): the statement
# ranges pytest finds are remembered, a traceback entry's frame is read
# once, inspect's module map is filled before any run, and the common shape
# of a failure (one exception, frames in the run folder) is written here
# without pytest's formatter, character for character what pytest's
# --tb=short writes for it. A program's frames are frames of code the judge
# made (frames.fake_traceback) and read as pytest reads them.
import inspect
import os

import judge
from frames import clean_traceback

# The judge's frames on the way of a program's exception (each with
# __tracebackhide__) are in this file.
HIDDEN_FILE = judge.__file__

def memoize_statement_ranges():
    """Make pytest's getstatementrange_ast remember its answers for the
    life of a run's child (statement_range_memo). A failing test's text
    parses the whole file of every frame it shows and walks its tree to
    find the failing statement; a run with many failing tests parsed the
    same test file and program again for each (about a sixth of a failing
    run's CPU). The worker forks with the memo empty: what a child adds
    dies with it."""
    from _pytest._code import code as pytest_code

    memo = statement_range_memo(pytest_code.getstatementrange_ast)
    pytest_code.getstatementrange_ast = memo
    return memo


def cache_traceback_frames():
    """While pytest writes a failure's text (Node._repr_failure_py), give
    each traceback entry's frame (TracebackEntry.frame) once and the same
    Frame after: an entry's tb_frame never changes, and pytest reads it
    again and again (cut, filter, the recursion check, each line), each
    read an audit event the sandbox's hook checks against the stack. A
    recursion's failure made some 4,000 entries and 20,000 reads per test.
    Outside that call, and after it (the cache is dropped), frame is
    pytest's own. Installed before the audit hook's spec is built: the
    hook lets pytest's code read tb_frame by code identity, and this getter
    is counted as pytest's as a property of its class (module_code_ids)."""
    from _pytest import nodes
    from _pytest._code import code as pytest_code

    entry_type, frame_type = pytest_code.TracebackEntry, pytest_code.Frame
    inner = getattr(nodes.Node, "_repr_failure_py", None)
    if not isinstance(inspect.getattr_static(entry_type, "frame", None), property) or inner is None:
        return
    cache = {}  # id(raw entry) -> (raw entry, Frame); the entry held so its id stays its own
    active = [0]

    def frame(self):
        raw = self._rawentry
        if not active[0]:
            return frame_type(raw.tb_frame)
        hit = cache.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1]
        f = frame_type(raw.tb_frame)
        cache[id(raw)] = (raw, f)
        return f

    def _repr_failure_py(self, excinfo, style=None):
        clean_traceback(excinfo.value)
        active[0] += 1
        try:
            return inner(self, excinfo, style)
        finally:
            active[0] -= 1
            if not active[0]:
                cache.clear()

    frame.__doc__ = inspect.getattr_static(entry_type, "frame").__doc__
    entry_type.frame = property(frame)
    _repr_failure_py.__wrapped__ = inner
    nodes.Node._repr_failure_py = _repr_failure_py


def warm_module_scan(here):
    """Map every loaded module's file in inspect's caches, as the scan of
    inspect.getmodule does on its first miss: done once here, a run's child
    that reports a collection error (or any text of pytest's that looks up
    the module of a frame of the program's) finds every module of the
    worker mapped and resolves no path (the scan took 15-20 ms of such a
    child, a realpath of every module's file)."""
    try:
        inspect.getmodule(compile("", os.path.join(here, "<no module>"), "exec"))
    except Exception:  # noqa: BLE001 - a cache left cold costs time, not a verdict
        pass


# Characters that str.splitlines breaks a line at besides "\n" (and "\r",
# which the universal-newline read of a source file leaves none of): pytest
# splits a frame's source with splitlines after joining it, so a line with
# one of these is not the line at its index any more.
SPLITLINES_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class ShortFailure:
    """A failing test's --tb=short text, as pytest's ExceptionChainRepr
    would write it (toterminal), with its crash location (reprcrash, what
    the short summary shows)."""

    __slots__ = ("text", "reprcrash")

    def __init__(self, text, reprcrash):
        self.text, self.reprcrash = text, reprcrash

    def toterminal(self, tw):
        tw.write(self.text)


def short_failure_text(excinfo, func, workdir):
    """pytest's --tb=short text of the failure excinfo of the test function
    func, without pytest's formatting machinery (FormattedExcinfo, its
    statement ranges, TerminalWriter): a failing test's text costs a run's
    child about 5 ms and 150 page faults that way, most of its reporting.
    None for every shape whose text could differ from pytest's, which then
    writes it: a chained exception, a RecursionError whose frames' locals
    pytest would compare while they hold more than plain data (see
    recursion_index), an exception group, pytest.fail(pytrace=False), a frame of
    a file outside workdir (or gone from it), a frame with __tracebackhide__ (or
    namespaces that are not plain dicts), a traceback that does not start
    at the test function, a frame whose line pytest would not find as is
    (a blank or comment line, outside its function, a file with a character
    that splitlines breaks at), a working directory that moved (pytest then
    writes absolute paths). The source is read as inspect.findsource reads
    it for pytest (linecache, checked against the file first).

    What pytest writes, for these shapes (FormattedExcinfo.repr_traceback
    with style short after Function._prunetraceback, ReprEntry.toterminal):
    for each frame "<file>:<line>: in <name>", its source line stripped
    behind four spaces; after the last, each line of the exception's
    exconly(tryshort=True) behind "E   ". A RecursionError's frames end at
    the first whose position and locals repeat an earlier frame's, with
    "!!! Recursion detected (same locals & position)" after the exception
    (FormattedExcinfo._truncate_recursive_traceback); its crash location is
    still the deepest frame's. Such a failure has some 1,000 frames: pytest's
    formatter took 10-15 ms of a run's child for each, this well under one
    (each file's checks are made once, not once per frame)."""
    import linecache

    from _pytest.outcomes import Failed

    e = excinfo.value
    if isinstance(e, BaseExceptionGroup) or (isinstance(e, Failed) and not e.pytrace):
        return None
    if e.__cause__ is not None or (e.__context__ is not None and not e.__suppress_context__):
        return None
    try:
        if os.getcwd() != workdir:
            return None
    except OSError:
        return None
    code0 = getattr(getattr(func, "__func__", func), "__code__", None)
    t = excinfo.tb
    if t is None or t.tb_frame.f_code is not code0:
        return None
    # In the sandbox every id() and f_code read is an audit event, and each
    # tb_frame read several: a recursion's 1,000 frames are read once each
    # and matched by identity without id() (numbers).
    recursion = isinstance(e, RecursionError)
    entries = []  # (file, line, code's name, source line) of each frame
    frames = []  # ((number of the code object, line), locals) of each frame, for a recursion
    files = {}  # file -> its lines, for the files found in workdir (checked once)
    spans = {}  # (file, code's first line, line) -> the source line shown
    numbers = {}  # code -> [(code object, its number, its name)], of those equal to it in value
    while t is not None:
        frame = t.tb_frame
        code = frame.f_code
        if code.co_filename == HIDDEN_FILE and frame.f_locals.get("__tracebackhide__") is True:
            t = t.tb_next  # the judge's own frame on a program's exception: pytest hides it
            continue
        same = numbers.setdefault(code, [])
        for c, number, name in same:
            if c is code:
                break
        else:
            number, name = len(entries), code.co_name.split("\n", 1)[0]  # len(entries): new at each frame
            same.append((code, number, name))
        fn = code.co_filename
        lines = files.get(fn) if type(fn) is str else None
        if lines is None:
            if type(fn) is not str or os.path.dirname(fn) != workdir or not os.path.exists(fn):
                return None
            linecache.checkcache(fn)
            lines = files[fn] = linecache.getlines(fn)
        loc, glob = frame.f_locals, frame.f_globals
        if type(loc) is not dict or type(glob) is not dict or "__tracebackhide__" in loc or "__tracebackhide__" in glob:
            return None
        lineno = t.tb_lineno
        first = code.co_firstlineno - 1
        src = spans.get((fn, first, lineno))
        if src is None:
            if type(lineno) is not int or lineno < 1 or first < 0 or first > lineno - 1 or lineno > len(lines):
                return None
            src = lines[lineno - 1].strip()
            if not src or src.startswith("#") or any(c in line for line in lines[first:lineno] for c in SPLITLINES_BREAKS):
                return None
            spans[(fn, first, lineno)] = src
        entries.append((fn, lineno, name, src))
        if recursion:
            frames.append(((number, lineno), loc))
        t = t.tb_next
    shown, extra = entries, ""
    if recursion:
        try:
            index = recursion_index(frames)
        except NotPlainData:
            return None
        if index is not None:
            shown, extra = entries[:index + 1], "!!! Recursion detected (same locals & position)\n"
    out = ["%s:%d: in %s\n    %s\n" % (os.path.basename(fn), lineno, name, src) for fn, lineno, name, src in shown]
    out.extend("E   %s\n" % line for line in excinfo.exconly(tryshort=True).split("\n"))
    out.append(extra)
    # pytest asks for the exception's text twice, for the traceback and then
    # for the crash line: so does this, for a __str__ that counts its calls.
    # The crash line is the deepest frame's, past a recursion's cut.
    return "".join(out), entries[-1][0], entries[-1][1], excinfo.exconly(tryshort=True)


class NotPlainData(Exception):
    """plain_hash met a value whose == could run a program's code."""


# The types whose == recursion_index lets run: builtins that compare
# without calling any code of the program's (exact types, not subclasses),
# and the tag plain_hash gives each container type (a set and a frozenset
# can be equal, a list and a tuple cannot).
PLAIN_SCALARS = frozenset((int, float, complex, str, bytes, bool, type(None)))
PLAIN_CONTAINERS = {tuple: "t", list: "l", dict: "d", set: "s", frozenset: "s"}
TYPE_MRO = type.__dict__["__mro__"].__get__  # read past any metaclass
TYPE_DICT = type.__dict__["__dict__"].__get__


def compared_by_identity(kind):
    """Whether == on an instance of kind is object's, identity: no class in
    its MRO but object defines __eq__ (functions, modules, classes, and a
    program's objects that leave == alone). Read from the classes' own
    dicts, so that nothing of the program's runs."""
    return all(k is object or "__eq__" not in TYPE_DICT(k) for k in TYPE_MRO(kind))


def plain_hash(v, memo, room, depth=0):
    """A hash of v such that values that are == have the same one, for
    data whose == runs no program code: v and everything in it (keys and
    values of dicts, recursively, at most 32 deep) of a type in
    PLAIN_SCALARS or PLAIN_CONTAINERS, or compared by identity (its hash is
    then its identity's, not its __hash__), within room[0] more objects in all;
    else NotPlainData. The numbers' hashes agree across int, float, complex
    and bool as their == does, and a NaN's is its identity's, as is its ==
    inside a container. memo: id -> (container, its hash), and (id,) ->
    (type, compared_by_identity)."""
    kind = type(v)
    if kind in PLAIN_SCALARS:
        return hash(v)
    hit = memo.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    room[0] -= len(v) + 1 if kind in PLAIN_CONTAINERS else 1
    if room[0] < 0 or depth >= 32:
        raise NotPlainData()
    tag = PLAIN_CONTAINERS.get(kind)
    if tag == "d":
        h = hash((tag, frozenset((plain_hash(k, memo, room, depth + 1), plain_hash(x, memo, room, depth + 1))
                                 for k, x in v.items())))
    elif tag == "s":
        h = hash((tag, frozenset(plain_hash(x, memo, room, depth + 1) for x in v)))
    elif tag is not None:
        h = hash((tag, tuple(plain_hash(x, memo, room, depth + 1) for x in v)))
    else:
        known = memo.get((id(kind),))  # a key no container's id can be
        if known is None or known[0] is not kind:
            known = memo[(id(kind),)] = (kind, compared_by_identity(kind))
        if not known[1]:
            raise NotPlainData()
        return object.__hash__(v)  # its identity's (not its class's __hash__)
    memo[id(v)] = (v, h)
    return h


def recursion_index(frames):
    """pytest's Traceback.recursionindex over frames (position, locals),
    position the identity of the frame's code object and its line: the
    index of the first frame whose position and locals equal an earlier
    frame's, or None. pytest compares each frame's locals dict with those
    of every earlier frame at the same position, one by one; a recursion
    that never repeats makes that some 500,000 comparisons. Here a frame's
    locals are compared only with the earlier ones of the same plain_hash,
    which are all those that can be equal: the same answer, as long as the
    comparisons run no code of the program's (which pytest, given the
    failure back, would run again). So every locals dict that pytest would
    compare must hold plain data, else NotPlainData."""
    seen = {}  # position -> [first locals dict, {plain_hash: [locals dicts]} or None]
    memo = {}
    room = [200000]
    for i, (position, loc) in enumerate(frames):
        slot = seen.get(position)
        if slot is None:
            seen[position] = [loc, None]
            continue
        if slot[1] is None:
            slot[1] = {plain_hash(slot[0], memo, room): [slot[0]]}
        same = slot[1].setdefault(plain_hash(loc, memo, room), [])
        # list's `in` is `other == loc` for each in turn, stopping at the
        # first equal (distinct dicts: its identity test never decides).
        if loc in same:
            return i
        same.append(loc)
    return None


def statement_range_memo(original):
    """original (pytest's getstatementrange_ast), answering a repeat from
    the first call: the answer is a function of the file's lines, the line
    number and the flag alone. A repeat passes through the same warning
    filters as pytest's parse; an AST handed in that is not the one parsed
    from these lines goes to original. freeze() keeps the answers and drops
    the trees (pytest only hands a tree back to this function): what the
    worker learned at its start-up (the frames of pytest's own files in a
    collection error) costs the server no more than the answers."""
    import warnings

    parsed, ranges = {}, {}
    frozen = object()  # stands for a tree dropped by freeze()

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        content = tuple(source.lines)
        node = parsed.get(content)
        if astnode is not None and astnode is not node:
            return original(lineno, source, assertion, astnode)
        key = (content, lineno, assertion)
        if node is None or (node is frozen and key not in ranges):
            node, start, end = original(lineno, source, assertion, None)
            parsed[content] = node
            ranges[key] = (start, end)
            return node, start, end
        if astnode is None:
            with warnings.catch_warnings():  # what pytest's parse does to the filters
                warnings.simplefilter("ignore")
        found = ranges.get(key)
        if found is None:
            _, start, end = original(lineno, source, assertion, node)
            found = ranges[key] = (start, end)
        return node, found[0], found[1]

    def freeze():
        for content in parsed:
            parsed[content] = frozen

    getstatementrange_ast.freeze = freeze
    return getstatementrange_ast


