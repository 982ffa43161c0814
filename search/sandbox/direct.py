# triage sandbox direct: the direct runner (see README.md, "The direct
# runner").
#
# In the judge, for a test file of plain shape (testids.direct_plan): its
# tests are called without pytest's collection and per-test protocol, with
# pytest's own pieces where they decide a verdict or its text. Anything it
# does not reproduce goes back to pytest's own run.
import inspect
import os
import sys
import time
import types

import failtext
import harness
import testids
from testids import DIRECT_BUILTIN_ARGS, DIRECT_BUILTIN_FIXTURES, PYTEST_NAMES, plain_prefixes, split_argnames

# The dunders of a plain class body (what Python puts there itself).
CLASS_DUNDERS = frozenset(("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                           "__static_attributes__"))


def pytest_fixtures(config):
    """pytest's own fixtures of DIRECT_BUILTIN_FIXTURES as {name: (function,
    argnames)}: the last definition of each, where it is pytest's own,
    unparametrized function under that name (a plugin that overrides one
    leaves it out, and a file that asks for it goes to pytest)."""
    fm = config.pluginmanager.get_plugin("funcmanage")
    out = {}
    for name, module in DIRECT_BUILTIN_FIXTURES.items():
        defs = getattr(fm, "_arg2fixturedefs", {}).get(name) or ()
        fd = defs[-1] if defs else None
        fn = getattr(fd, "func", None)
        if fd is None or getattr(fn, "__module__", None) != module or getattr(fn, "__name__", None) != name or \
                getattr(fd, "baseid", None) != "" or getattr(fd, "params", None) is not None or \
                tuple(getattr(fd, "argnames", ())) != DIRECT_BUILTIN_ARGS[name]:
            continue
        out[name] = (fn, DIRECT_BUILTIN_ARGS[name])
    return out


# The dunders of a module that pytest's collection of it does not read.
MODULE_DUNDERS = frozenset(("__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__",
                            "__builtins__", "__all__", "__version__", "__author__", "__annotations__",
                            "__warningregistry__"))


class Fallback(Exception):
    """The direct runner met what only pytest's own run reports, once tests
    had run: the worker runs the file again with pytest, in a fresh child."""


class PytestRuns(Exception):
    """The direct runner met what only pytest's own run reports before any
    test ran (an import that fails, a module pytest would collect more
    from): pytest runs the file in this child."""


# What inspect.signature reads of a function beyond its code, defaults and
# annotations: where a function carries one of these, pytest's own
# getfuncargnames decides its argument names.
SIGNATURE_ATTRS = frozenset(("__wrapped__", "__signature__", "_partialmethod", "__text_signature__"))


def plain_funcargnames(func, name, cls, getfuncargnames):
    """What pytest's getfuncargnames(func, name=name, cls=cls) returns, read
    from the code object of a plain function (what inspect.signature reads
    for one: the positional-or-keyword and keyword-only parameters without
    a default, in order; the first one dropped when func is a method of
    cls), without building its Signature; anything else goes to
    getfuncargnames."""
    if type(func) is not types.FunctionType or not SIGNATURE_ATTRS.isdisjoint(func.__dict__):
        return getfuncargnames(func, name=name, cls=cls)
    code = func.__code__
    positional = code.co_varnames[:code.co_argcount]
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    defaults, kwdefaults = func.__defaults__, func.__kwdefaults__
    required = len(positional) - (len(defaults) if defaults else 0)
    names = positional[code.co_posonlyargcount:required] if required > code.co_posonlyargcount else ()
    names += tuple(n for n in keyword_only if kwdefaults is None or n not in kwdefaults)
    if cls is not None and not isinstance(inspect.getattr_static(cls, name, None), staticmethod):
        names = names[1:]
    return names


def make_direct_runner(config, collector, work):
    """run(plan, code) for a run's judge, or None where pytest would
    not import the test module as it does: the tests of a plain test file
    (direct_plan; code is its rewritten module) run without pytest's
    collection and per-test protocol, with pytest's own pieces where they
    decide a verdict or its text: the import of the test module (as
    import_path and the assertion-rewriting hook import it, from the code
    object of the hook's cached pyc), the warning filters and log handlers
    of each phase, the assertion plugin's comparison explanations, global
    capture read after every phase, the fixtures (the file's own, and
    pytest's own functions for tmp_path, capsys and monkeypatch) set up and
    torn down in pytest's order, and the failure text from pytest's
    Function.repr_failure and TestReport, fed to the same Collector. Each
    test is called with as many frames free below it as pytest's run leaves
    (pad; set_padding, measured once per worker). Anything else goes back
    to pytest: before any test ran (an import that fails, a module that
    gives pytest more to collect than the plan, a fixture it does not set
    up) run returns None and the child runs pytest's session itself; after
    (a test that raises skip, xfail, unittest.SkipTest, exit or
    KeyboardInterrupt, a fixture that fails) it raises Fallback, and the
    worker runs the file with pytest in a fresh child.
    pytest.fail (what pytest.raises raises when nothing was raised),
    SystemExit and any other BaseException fail the test as pytest's call
    phase fails it."""
    import inspect
    from pathlib import Path

    from _pytest.python import IGNORED_ATTRIBUTES, Function
    from _pytest.reports import TestReport
    from _pytest.runner import _update_current_test_var
    from _pytest.warnings import catch_warnings_for_item
    from _pytest._code import ExceptionInfo
    from _pytest.mark.structures import Mark, ParameterSet
    from _pytest.compat import safe_getattr
    from importlib.util import module_from_spec, spec_from_file_location
    from types import FunctionType
    from warnings import warn
    from _pytest.logging import LogCaptureHandler, catching_logs
    from _pytest.warning_types import PytestReturnNotNoneWarning
    from _pytest.outcomes import Exit, Skipped, XFailed
    from _pytest.compat import getfuncargnames, is_generator
    from _pytest.fixtures import FixtureFunctionMarker, FixtureLookupError, getfixturemarker
    from _pytest.config import ConftestImportFailure
    from _pytest._code.code import ReprFileLocation
    from _pytest.assertion import rewrite

    hook = next((f for f in sys.meta_path if type(f).__name__ == "AssertionRewritingHook"), None)
    if hook is None or config.getoption("importmode") != "prepend":
        return None  # pytest would not import the rewritten module this way

    capman = config.pluginmanager.getplugin("capturemanager")
    assertion = config.pluginmanager.getplugin("assertion")
    logs = config.pluginmanager.get_plugin("logging-plugin")
    if capman is None or logs is None:
        return None
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return None
    fp, cp = prefixes
    test_path = Path(work) / "test_solution.py"
    pyc_of_test = str(rewrite.get_cache_dir(test_path) / ("test_solution" + rewrite.PYC_TAIL))
    written = [None]  # (mtime, size) of the test file before the program ran, as a pyc's header has them
    builtin_fixtures = pytest_fixtures(config)

    methods = {"iter_markers": lambda self, name=None: iter(()),
               "iter_markers_with_node": lambda self, name=None: iter(()),
               "get_closest_marker": lambda self, name, default=None: default}
    for name in ("repr_failure", "_repr_failure_py", "_prunetraceback", "_traceback_filter"):
        f = inspect.getattr_static(Function, name, None)
        if f is not None:
            methods[name] = f
    Item = type("DirectItem", (), methods)

    def item_of(nodeid, name, func):
        it = Item()
        it.config, it.ihook, it.session = config, config.hook, None
        it.nodeid, it.name, it.path = nodeid, nodeid.rpartition("::")[2], test_path
        it._obj = it.obj = func
        it.keywords, it.own_markers, it.user_properties = {}, [], []
        return it

    def phase_capture(fn, *args):
        """fn under the global capture, and the capsys fixture's own where
        the test has one, as pytest's item_capture runs each phase."""
        capman.resume_global_capture()
        capman.activate_fixture()
        try:
            return fn(*args)
        finally:
            capman.deactivate_fixture()
            capman.suspend_global_capture(in_=False)
            capman.read_global_capture()

    def load(code):
        """Import the test module as pytest's import_path (prepend mode) and
        the rewriting hook do, from the code object the hook would read from
        its pyc: the module's attributes from its spec, registered in
        sys.modules while it executes, the run folder first on sys.path."""
        try:
            st = os.stat(test_path)
            written[0] = harness.pyc_stamp(st)
        except OSError:
            written[0] = None
        with catch_warnings_for_item(config, config.hook, "collect", None):
            try:
                if sys.path[:1] != [work]:
                    sys.path.insert(0, work)
                spec = spec_from_file_location("test_solution", str(test_path), loader=hook)
                mod = module_from_spec(spec)
                sys.modules["test_solution"] = mod
                try:
                    exec(code, mod.__dict__)
                except BaseException:
                    sys.modules.pop("test_solution", None)
                    raise
                return sys.modules["test_solution"]
            except BaseException as e:  # noqa: BLE001 - pytest reports it as a collection error
                raise PytestRuns("the test module did not import: %s" % type(e).__name__)

    def offer_code(code):
        """Give pytest's import of the test file, next in this child (run
        returned None), code as the pyc the worker places for a pytest run
        would: the file's modification time and size checked as that pyc's
        header has them (the file as written, before the program ran), and
        code when they match. pytest then neither rewrites and compiles the
        file again (about 2 ms of a child whose program does not import) nor
        reads a pyc the program could have made in the run folder. Read
        once; any other file goes to pytest's own _read_pyc."""
        if written[0] is None:
            return
        original = rewrite._read_pyc

        def read_pyc(source, pyc, trace=lambda x: None):
            if str(source) != str(test_path) or str(pyc) != pyc_of_test:
                return original(source, pyc, trace)
            rewrite._read_pyc = original
            try:
                st = os.stat(source)
            except OSError:
                return None
            if harness.pyc_stamp(st) != written[0]:
                return None
            return code

        rewrite._read_pyc = read_pyc

    def test_file_function(obj):
        """Whether obj is a plain function whose code is the test file's."""
        code = getattr(obj, "__code__", None)
        return type(obj) is FunctionType and code is not None and code.co_filename == str(test_path)

    def module_fixtures(d):
        """The file's fixtures by name, as (function, argnames): every object
        in the module that pytest's parsefactories would take for one,
        each a bare `@pytest.fixture` on a function of the test file."""
        out = {}
        for name, obj in list(d.items()):
            marker = getfixturemarker(obj)
            if marker is None:
                continue
            real = getattr(getattr(obj, "__pytest_wrapped__", None), "obj", None)
            if type(marker) is not FixtureFunctionMarker or marker.scope != "function" or marker.params is not None or \
                    marker.autouse or marker.ids is not None or marker.name is not None or \
                    not test_file_function(real) or real.__name__ != name:
                raise PytestRuns("%s is not a plain fixture of the test file" % name)
            args = tuple(plain_funcargnames(real, name, None, getfuncargnames))
            if "request" in args:
                raise PytestRuns("the fixture %s asks for its request" % name)
            out[name] = (real, args)
        return out

    def plain_class(name, obj, methods):
        """Whether obj, the test class name, holds nothing pytest would
        read but the planned methods: a fresh instance of it per test is
        what pytest makes."""
        if type(obj) is not type or obj.__bases__ != (object,) or obj.__name__ != name:
            return False
        for k, v in obj.__dict__.items():
            if k in methods:
                if not test_file_function(v) or not set(v.__dict__) <= {"pytestmark"}:
                    return False
            elif k not in CLASS_DUNDERS:
                return False
        return True

    def bind_tests(mod, plan):
        """The function, parameters and fixtures of each planned test,
        checked against what pytest would collect from mod."""
        d = mod.__dict__
        classes = {cls for _, _, _, cls in plan if cls is not None}
        names = {name for _, name, _, cls in plan if cls is None} | classes
        fixtures = module_fixtures(d)
        for name, obj in list(d.items()):
            if name in names or name in fixtures or name in IGNORED_ATTRIBUTES or name in MODULE_DUNDERS:
                continue
            # A dunder a star import brought (__getattr__ answers pytest's
            # getattr of the module's __test__), a name pytest reads, or one
            # it would collect.
            if (name.startswith("__") and name.endswith("__")) or name in PYTEST_NAMES or name.startswith("pytest_") or \
                    (name.startswith(fp) and callable(obj)) or (name.startswith(cp) and isinstance(obj, type)) or \
                    safe_getattr(obj, "__test__", False) is True:
                raise PytestRuns("the module holds %r, which pytest would read" % name)
        for cls in classes:
            methods = {name for _, name, _, c in plan if c == cls}
            if not plain_class(cls, d.get(cls), methods):
                raise PytestRuns("%s is not a plain test class" % cls)
        known = dict(builtin_fixtures)
        for name in fixtures:
            if name in known:
                raise PytestRuns("the file's fixture %s overrides pytest's" % name)
        known.update(fixtures)
        out, values, planned = [], {}, {}
        for _, name, _, cls in plan:
            planned[(cls, name)] = planned.get((cls, name), 0) + 1
        for nodeid, name, k, cls in plan:
            holder = d.get(cls).__dict__ if cls is not None else d
            func = holder.get(name)
            if not test_file_function(func):
                raise PytestRuns("%s is not the test file's function" % name)
            marks = func.__dict__.get("pytestmark")
            argnames = tuple(plain_funcargnames(func, name, d.get(cls) if cls is not None else None, getfuncargnames))
            if k is None:
                if marks:
                    raise PytestRuns("%s carries marks" % name)
                params = {}
            else:
                if (cls, name) not in values:
                    if type(marks) is not list or len(marks) != 1 or type(marks[0]) is not Mark or marks[0].name != "parametrize":
                        raise PytestRuns("%s does not carry one parametrize mark" % name)
                    m = marks[0]
                    pnames, argvalues = m.args[0], list(m.args[1])
                    pnames = split_argnames(pnames) if isinstance(pnames, str) else list(pnames)
                    sets = []
                    for v in argvalues:
                        if isinstance(v, ParameterSet):
                            raise PytestRuns("%s has a pytest.param" % name)
                        vals = (v,) if len(pnames) == 1 else v
                        if len(vals) != len(pnames):
                            raise PytestRuns("%s has a parameter set of another length" % name)
                        sets.append(dict(zip(pnames, vals)))
                    values[(cls, name)] = sets
                sets = values[(cls, name)]
                if planned[(cls, name)] != len(sets):
                    raise PytestRuns("%s has %d parameter sets" % (name, len(sets)))
                params = sets[k]
            closure = fixture_order(argnames, params, known)
            if cls is not None:
                func = getattr(d[cls](), name)  # pytest's fresh instance per test
            out.append((nodeid, func, argnames, params, closure))
        return out, known

    def fixture_order(argnames, params, known):
        """The names pytest fills for a test, in its order: the closure of
        argnames over the fixtures' own arguments (getfixtureclosure, the
        test's parameters not expanded), session-scoped ones first."""
        names = list(argnames)
        for name in names:  # grows as it goes, as pytest's closure does
            if name in params or name == "request":
                continue
            if name not in known:
                raise PytestRuns("the test asks for the fixture %s" % name)
            for a in known[name][1]:
                if a == name:
                    raise PytestRuns("the fixture %s asks for itself" % name)
                if a not in names:
                    names.append(a)
        if all(n in params or n == "request" for n in names):
            return []  # no fixture: the setup and teardown phases run no code
        return sorted(names, key=lambda n: 0 if n == "tmp_path_factory" else 1)

    class Request:
        """What pytest's own fixtures (tmp_path, capsys) read of the
        request pytest hands them."""

        scope = "function"

        def __init__(self, item, fixturename):
            self.config, self.node, self.fixturename = config, item, fixturename

        def raiseerror(self, msg):
            raise Fallback("fixture %s: %s" % (self.fixturename, str(msg)[:200]))

    def set_up(it, closure, params, known):
        """The setup phase's fixtures, as pytest's _fillfixtures computes
        them: each after the fixtures it asks for, each generator's first
        value. Returns (values, generators in the order they were set up);
        any error sends the file to pytest (Fallback)."""
        values, gens, busy = {}, [], set()

        def value(name, asker):
            if name == "request":
                return Request(it, asker)
            if name in params:
                return params[name]
            if name in values:
                return values[name]
            if name in busy:
                raise Fallback("fixtures ask for each other")
            busy.add(name)
            fn, args = known[name]
            kwargs = {a: value(a, name) for a in args}
            try:
                if is_generator(fn):
                    gen = fn(**kwargs)
                    values[name] = next(gen)
                    gens.append((name, gen))
                else:
                    values[name] = fn(**kwargs)
            except Fallback:
                raise
            except BaseException as e:  # noqa: BLE001 - an error at set-up: pytest's run reports it
                raise Fallback("fixture %s raised %s at set-up" % (name, type(e).__name__))
            return values[name]

        for name in closure:
            if name not in params and name != "request":
                value(name, None)
        return values, gens

    def tear_down(gens):
        """The teardown phase: each generator fixture finished, the last set
        up first; an error, or a second yield, sends the file to pytest."""
        for name, gen in reversed(gens):
            try:
                next(gen)
            except StopIteration:
                continue
            except BaseException as e:  # noqa: BLE001 - an error at teardown: pytest's run reports it
                raise Fallback("fixture %s raised %s at teardown" % (name, type(e).__name__))
            raise Fallback("fixture %s yielded twice" % name)

    def in_phase(fn, *args):
        """fn under the two log handlers pytest's logging plugin puts on
        the root logger in a setup or teardown phase."""
        caplog, report_log = log_handlers
        caplog.reset()
        report_log.reset()
        with catching_logs(caplog, level=logs.log_level), catching_logs(report_log, level=logs.log_level):
            return fn(*args)

    # pytest's --tb=short text written here for the shapes short_failure_text
    # knows, when pytest's options are those it writes for and pytest started
    # in the run folder (as the test file's folder, fixed once the worker runs).
    short_text = (config.getoption("tbstyle", "auto") == "short" and not config.getoption("fulltrace", False)
                  and not config.getoption("showlocals", False) and str(config.invocation_params.dir) == work)

    def failure_repr(it, excinfo):
        """What Function.repr_failure returns for excinfo, or a ShortFailure
        with the same text and crash location."""
        if short_text and not isinstance(excinfo.value, (FixtureLookupError, ConftestImportFailure)):
            fast = failtext.short_failure_text(excinfo, it.obj, work)
            if fast is not None:
                text, path, lineno, exconly = fast
                return failtext.ShortFailure(text, ReprFileLocation(path, lineno, exconly))
        return it.repr_failure(excinfo)

    def report(nodeid, name, when, outcome, longrepr, dur):
        collector.pytest_runtest_logreport(TestReport(nodeid, ("test_solution.py", 0, name), {}, outcome, longrepr,
                                                      when, (), dur))

    def call_test(nodeid, func, kwargs):
        """The call phase as pytest_runtest_call and pytest_pyfunc_call run
        it, with two caplog handlers on the root logger as pytest's logging
        plugin adds them: None, or the ExceptionInfo of a failure."""
        cpu = collector.cpu
        caplog, report_log = log_handlers
        caplog.reset()
        report_log.reset()
        with catching_logs(caplog, level=logs.log_level), catching_logs(report_log, level=logs.log_level):
            if cpu is not None:
                began = time.process_time_ns()
            try:
                result = pad(func, kwargs)
                if hasattr(result, "__await__") or hasattr(result, "__aiter__"):
                    raise Fallback("the test returned an awaitable")
                if result is not None:
                    warn(PytestReturnNotNoneWarning(
                        f"Expected None, but {nodeid} returned {result!r}, which will be an error in a "
                        "future version of pytest.  Did you mean to use `assert` instead of `return`?"))
                return None
            except Fallback:
                raise
            except Exception as e:
                if is_skip_test(e):
                    raise Fallback("the test raised unittest.SkipTest")
                sys.last_type, sys.last_value, sys.last_traceback = type(e), e, e.__traceback__
                return ExceptionInfo.from_exc_info((type(e), e, from_test_frame(e.__traceback__)))
            except (Exit, KeyboardInterrupt, Skipped, XFailed) as e:
                # A stop of the session, a skip or an xfail: pytest's own run reports them.
                raise Fallback("the test raised %s" % type(e).__name__)
            except BaseException as e:  # noqa: BLE001 - pytest's call phase reports it as a failure
                # pytest.fail (pytest.raises that saw nothing), SystemExit: a
                # failed test, as pytest's CallInfo catches it, with no
                # sys.last_* (pytest_runtest_call keeps those for Exception).
                return ExceptionInfo.from_exc_info((type(e), e, from_test_frame(e.__traceback__)))
            finally:
                if cpu is not None:
                    cpu["tests"] = cpu.get("tests", 0) + time.process_time_ns() - began

    def run_test(nodeid, func, argnames, params, closure, known):
        """One test's setup, call and teardown with their reports; with
        coverage, under the line tracer, set and cleared around it all as
        the Coverage plugin does around pytest's protocol of a test (here,
        not in a wrapper, which would cost the test a frame of room)."""
        tracing = collector.coverage
        if tracing:
            harness.start_line_tracing(collector)
        try:
            it = item_of(nodeid, func.__name__, func)
            name = it.name
            # No setup report: a passed one with no duration changes nothing
            # the Collector keeps (the call's report starts the test's entry).
            proto = assertion.pytest_runtest_protocol(it) if assertion is not None else None
            if proto is not None:
                next(proto)
            try:
                with catch_warnings_for_item(config, config.hook, "runtest", it):
                    gens = ()
                    if closure:
                        _update_current_test_var(it, "setup")
                        values, gens = phase_capture(in_phase, set_up, it, closure, params, known)
                        kwargs = {a: values[a] if a in values else params[a] for a in argnames}
                    else:
                        kwargs = params
                    _update_current_test_var(it, "call")
                    t = time.perf_counter()
                    excinfo = phase_capture(call_test, nodeid, func, kwargs)
                    dur = time.perf_counter() - t
                    if excinfo is None:
                        report(nodeid, name, "call", "passed", None, dur)
                    else:
                        report(nodeid, name, "call", "failed", failure_repr(it, excinfo), dur)
                    _update_current_test_var(it, "teardown")
                    if gens:
                        phase_capture(in_phase, tear_down, gens)
                    report(nodeid, name, "teardown", "passed", None, 0.0)
            finally:
                _update_current_test_var(it, None)
                if proto is not None:
                    next(proto, None)
            return excinfo is None
        finally:
            if tracing:
                harness.stop_line_tracing(collector)

    depth = [0]
    # The caplog and report handlers pytest's logging plugin puts on the
    # root logger in each phase: made once, before any fork (each run's
    # judge has its own copy), emptied per test.
    log_handlers = [LogCaptureHandler(), LogCaptureHandler()]

    def is_skip_test(e):
        """Whether e is a unittest.SkipTest, which pytest's unittest plugin
        turns into a skip (an isinstance that fails: pytest's check would
        meet the same, so pytest runs the file)."""
        unittest = sys.modules.get("unittest")
        if unittest is None:
            return False
        try:
            skip_test = getattr(unittest, "SkipTest")
            return isinstance(e, skip_test)
        except BaseException:  # noqa: BLE001 - whatever the program made of unittest
            return True

    def pad(func, kwargs, n=None):
        if n is None:
            n = depth[0]
        if n > 0:
            return pad(func, kwargs, n - 1)
        return func(**kwargs)

    def from_test_frame(tb):
        """tb from the test function's frame on, when the exception came
        from there: call_test's frame and pad's come first, and pytest's
        cut to the test function would only pass over them, reading each
        one's file path from disk. Counted, not read from the frames (a
        frame of the traceback is not the runner's to look at)."""
        t, skip = tb, depth[0] + 2
        while skip and t is not None:
            t, skip = t.tb_next, skip - 1
        return t if t is not None else tb

    def run(plan, code):
        """The run's pytest exit code, or None when pytest is to run the
        file in this child (PytestRuns): the test module is then dropped
        from sys.modules, as a failed import leaves it, and pytest imports
        it again (what the program's import already did stays done)."""
        try:
            # The session-wide log handlers of pytest's collection and loop.
            with catching_logs(logs.log_cli_handler, level=logs.log_cli_level), \
                    catching_logs(logs.log_file_handler, level=logs.log_file_level):
                return run_tests(plan, code)
        except PytestRuns as e:
            sys.modules.pop("test_solution", None)
            offer_code(code)
            collector.emit({"t": "pytest_runs", "why": str(e)[:300]})
            return None

    def run_tests(plan, code):
        mod = phase_capture(load, code)
        tests, known = bind_tests(mod, plan)
        if collector.cpu is not None:
            collector.cpu["collected"] = time.process_time_ns()
        collector.emit({"t": "collected", "names": [entry[0] for entry in plan]})
        harness.map_source_files()
        failed = 0
        for nodeid, func, argnames, params, closure in tests:
            if not run_test(nodeid, func, argnames, params, closure, known):
                failed += 1
        return 1 if failed else 0

    run.set_padding = lambda n: depth.__setitem__(0, n)
    return run


def direct_runner_or_none(config, collector, work, warnings):
    """make_direct_runner, or None (with a warning) where this pytest lacks
    a piece it uses."""
    try:
        return make_direct_runner(config, collector, work)
    except (ImportError, AttributeError, TypeError) as e:
        warnings.append("direct runner off: %s: %s" % (type(e).__name__, e))
        return None


