# triage sandbox testids: a test file's test ids and the direct runner's
# plan, read from its text (see README.md, "Reference ids").
#
# A test file of plain shape runs nothing of the program when it is
# imported, and pytest collects exactly its test functions and methods, in
# definition order: its ids are known from its syntax alone (with pytest's
# own id maker for literal parameter sets), and the direct runner can call
# its tests without pytest's collection. Everything else is collected by
# pytest, with a stand-in for the program.
import hashlib

# Module-level names that pytest or one of its builtin plugins reads from a
# test module: marks, plugins, parametrization hooks, xunit and nose set-up.
PYTEST_NAMES = frozenset(("pytestmark", "pytest_plugins", "__test__", "collect_ignore", "collect_ignore_glob",
                          "setup_module", "teardown_module", "setUpModule", "tearDownModule", "setup", "teardown",
                          "setup_function", "teardown_function"))


def static_test_ids(tests, function_prefixes, class_prefixes, parameter_ids=None):
    """The node ids pytest collects from tests with a stand-in for the
    program, read from the file's syntax alone; None when they might depend
    on anything else, and the file is then collected. Only a file of plain
    shape qualifies (test_file_shape): executing such a file runs no code
    of the program and cannot fail but at an import, and pytest collects
    exactly its test functions and the test methods of its classes, in
    definition order, one id each, or one per parameter set for a test
    under `@pytest.mark.parametrize`. The file's own fixtures change no id.
    A parametrized test's ids come from parameter_ids(argnames, values,
    nodeid, name) (make_static_ids: pytest's own id maker), and only where
    every value is a literal and no `ids=` is given; without
    parameter_ids, a file with a parametrized test is collected. An import
    that fails makes every run's collection fail, where the ids are not
    compared."""
    import ast

    shape = test_file_shape(tests, function_prefixes, class_prefixes)
    if shape is None:
        return None
    out = []
    for name, params, _, cls, _ in shape[0]:
        base = "test_solution.py::" + (cls + "::" if cls else "") + name
        if params is None:
            out.append(base)
            continue
        deco = params[2]
        if parameter_ids is None or deco.keywords:
            return None
        names_node, values_node = deco.args
        try:
            # A name (perhaps the program's) or a call is no literal: refused here.
            argnames = ast.literal_eval(names_node)
            values = ast.literal_eval(values_node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        ids = parameter_ids(argnames, values, base, name)
        if ids is None or len(ids) != params[1]:
            return None
        out.extend("%s[%s]" % (base, i) for i in ids)
    return out


def make_parameter_ids(config):
    """ids(argnames, values, nodeid, name): the ids pytest's Metafunc gives
    the parameter sets of `@pytest.mark.parametrize(argnames, values)` (no
    `ids=`), through pytest's own ParameterSet and IdMaker under this
    session's config; None where pytest would fail the parametrization or
    this pytest lacks those pieces."""
    try:
        from _pytest.mark.structures import ParameterSet
        from _pytest.python import IdMaker
    except ImportError:
        return None

    def ids(argnames, values, nodeid, name):
        try:
            names, sets = ParameterSet._for_parametrize(argnames, values, None, config, nodeid)
            if "request" in names:
                return None  # Metafunc.parametrize fails it
            if not sets or any(len(ps.values) != len(names) or ps.marks or ps.id is not None for ps in sets):
                return None
            got = IdMaker(names, sets, None, None, config, nodeid, name).make_unique_parameterset_ids()
        except BaseException:  # noqa: BLE001 - pytest's failure of the parametrization: collected as usual
            return None
        return got if all(type(i) is str for i in got) else None

    return ids


# pytest's own fixtures the direct runner sets up, with pytest's own fixture
# functions: what they read of their request (the config, the test's name,
# the fixture's name) is all the direct runner's request has. Any other
# fixture (caplog, capfd, request, ...) sends the file to pytest.
DIRECT_BUILTIN_FIXTURES = {"tmp_path": "_pytest.tmpdir", "tmp_path_factory": "_pytest.tmpdir",
                           "capsys": "_pytest.capture", "monkeypatch": "_pytest.monkeypatch"}
DIRECT_BUILTIN_ARGS = {"tmp_path": ("request", "tmp_path_factory"), "tmp_path_factory": ("request",),
                       "capsys": ("request",), "monkeypatch": ()}


def plain_args(a):
    """The names of a def's parameters when they are plain positional ones
    without defaults (what pytest passes fixtures and parameters to), else
    None."""
    if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
        return None
    return [x.arg for x in a.args]


def is_fixture_decorator(deco):
    """A bare `@pytest.fixture` or `@pytest.fixture()`: a function-scoped,
    unparametrized fixture under the function's own name."""
    import ast

    if isinstance(deco, ast.Call):
        if deco.args or deco.keywords:
            return False
        deco = deco.func
    return isinstance(deco, ast.Attribute) and deco.attr == "fixture" and isinstance(deco.value, ast.Name) \
        and deco.value.id == "pytest"


def test_file_shape(tests, function_prefixes, class_prefixes):
    """A file of plain shape as (entries, fixtures), None when it is not of
    that shape. entries are its tests in definition order as (name, params,
    takes_args, cls, argnames): params is None, or (argnames, count,
    decorator node) for a
    test under one `@pytest.mark.parametrize(NAMES, [v1, v2, ...])` whose
    names are a literal and whose values are a list or tuple display of
    count entries (none a pytest.param); takes_args says whether the
    function has parameters, argnames names them (None when they are not
    plain ones); cls is the test class of a method, or None. fixtures maps
    each fixture the file defines (a module function under a bare
    `@pytest.fixture`, returning or yielding its value) to its parameters.
    At module level a plain file has nothing but imports (a star import
    from solution only, which brings nothing from the stand-in), functions
    without decorators but those, test classes, assignments of literals or
    bare names, a docstring and an `if __name__ == "__main__":` block; no
    generator or coroutine function but a fixture, no name pytest reads, no
    module dunder but inert ones, no name bound twice and no other bound
    name that pytest would collect. A test class has a test prefix, no
    bases, keywords or decorators, and nothing but a docstring and test
    methods (self first, under that one decorator at most)."""
    import ast

    try:
        tree = ast.parse(tests, "test_solution.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    bound, out, fixtures = set(), [], {}
    pytest_imported = False

    def bind(name, test_def=False):
        if name in bound or name in PYTEST_NAMES or name.startswith("pytest_"):
            return False
        # A module's own dunders steer its import and attribute lookups
        # (__name__ opens the main guard, __getattr__ answers pytest's
        # getattr of __test__); only inert ones are plain.
        if name.startswith("__") and name.endswith("__") and name not in ("__all__", "__doc__", "__version__", "__author__"):
            return False
        if not test_def and name.startswith(function_prefixes + class_prefixes):
            return False
        bound.add(name)
        return True

    def yields(node):
        return any(isinstance(sub, (ast.Yield, ast.YieldFrom, ast.Await)) for sub in ast.walk(node))

    def test_entry(node, cls, method):
        """The entry of a test function or method, None when it is not plain."""
        params = None
        if node.decorator_list:
            if len(node.decorator_list) != 1 or not pytest_imported:
                return None
            params = parametrize_shape(node.decorator_list[0])
            if params is None:
                return None
            params += (node.decorator_list[0],)
        if yields(node):
            return None
        a = node.args
        names = plain_args(a)
        if method:
            if not names or names[0] != "self":
                return None
            names = names[1:]
        takes_args = names is None or bool(names)
        if params is not None and (names is None or not set(params[0]) <= set(names)):
            return None
        return (node.name, params, takes_args, cls, names)

    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not bind(a.asname or a.name.partition(".")[0]):
                    return None
                if a.name == "pytest" and a.asname is None:
                    pytest_imported = True
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    if node.module != "solution" or node.level:
                        return None
                elif not bind(a.asname or a.name):
                    return None
        elif isinstance(node, ast.FunctionDef):
            is_test = node.name.startswith(function_prefixes)
            if not bind(node.name, True):
                return None
            if is_test:
                entry = test_entry(node, None, False)
                if entry is None:
                    return None
                out.append(entry)
            elif node.decorator_list:
                if len(node.decorator_list) != 1 or not pytest_imported or not is_fixture_decorator(node.decorator_list[0]):
                    return None
                args = plain_args(node.args)
                if args is None or any(isinstance(sub, ast.Await) for sub in ast.walk(node)):
                    return None
                fixtures[node.name] = args
            elif yields(node):
                return None
        elif isinstance(node, ast.ClassDef):
            if not node.name.startswith(class_prefixes) or node.bases or node.keywords or node.decorator_list or \
                    not bind(node.name, True):
                return None
            methods = set()
            for j, sub in enumerate(node.body):
                if j == 0 and isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Constant) and isinstance(sub.value.value, str):
                    continue
                if not isinstance(sub, ast.FunctionDef) or not sub.name.startswith(function_prefixes) or sub.name in methods:
                    return None
                methods.add(sub.name)
                entry = test_entry(sub, node.name, True)
                if entry is None:
                    return None
                out.append(entry)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None or not plain_value(node.value):
                return None
            if not all(isinstance(t, ast.Name) and bind(t.id) for t in targets):
                return None
        elif i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            pass
        elif not is_main_guard(node):
            return None
    return out, fixtures


def fixture_closure(names, fixtures):
    """Whether every fixture behind names is one the direct runner sets up
    (the file's own, or one of DIRECT_BUILTIN_FIXTURES under a name the
    file does not take), with no fixture needing itself."""
    def args_of(name):
        if name in fixtures:
            return fixtures[name]
        return DIRECT_BUILTIN_ARGS.get(name)

    state = {}

    def ok(name, depth=0):
        if state.get(name) == 1 or depth > 64:
            return False  # a cycle (pytest reports it at set-up)
        if state.get(name) == 2:
            return True
        args = args_of(name)
        if args is None:
            return False
        state[name] = 1
        # request: only pytest's own fixtures get one (the direct runner's
        # is what they read of it, no more).
        good = all(a != name and ((a == "request" and name not in fixtures) or (a != "request" and ok(a, depth + 1)))
                   for a in args)
        state[name] = 2
        return good

    return all(n != "request" and ok(n) for n in names)

def parametrize_shape(deco):
    """(argnames, count) of a `pytest.mark.parametrize(NAMES, VALUES)`
    decorator (an `ids=` literal allowed) whose NAMES is a string or a list
    or tuple of strings, distinct, and whose VALUES is a list or tuple
    display of count > 0 entries, none starred or a pytest.param call;
    None for any other decorator."""
    import ast

    f = deco.func if isinstance(deco, ast.Call) else None
    if not (isinstance(f, ast.Attribute) and f.attr == "parametrize" and isinstance(f.value, ast.Attribute)
            and f.value.attr == "mark" and isinstance(f.value.value, ast.Name) and f.value.value.id == "pytest"):
        return None
    if len(deco.args) != 2 or any(k.arg != "ids" or not plain_value(k.value) or isinstance(k.value, ast.Name)
                                  for k in deco.keywords):
        return None
    names_node, values = deco.args
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = split_argnames(names_node.value)
    elif isinstance(names_node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names_node.elts):
        names = [e.value for e in names_node.elts]
    else:
        return None
    if not names or len(set(names)) != len(names) or not isinstance(values, (ast.List, ast.Tuple)) or not values.elts:
        return None
    for e in values.elts:
        if isinstance(e, ast.Starred):
            return None
        if isinstance(e, ast.Call) and isinstance(e.func, (ast.Attribute, ast.Name)) and \
                (getattr(e.func, "attr", None) == "param" or getattr(e.func, "id", None) == "param"):
            return None
    return tuple(names), len(values.elts)


def split_argnames(names):
    """parametrize's argnames given as one string, split as pytest splits
    them."""
    return [x.strip() for x in names.split(",") if x.strip()]


def plain_value(node):
    """A literal or a bare name: evaluating it runs no code."""
    import ast

    if isinstance(node, ast.Name):
        return True
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def is_main_guard(node):
    """An `if __name__ == "__main__":` block without else: never run on
    import."""
    import ast

    if not isinstance(node, ast.If) or node.orelse:
        return False
    t = node.test
    return (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
            and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) and len(t.comparators) == 1
            and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value == "__main__")


def direct_plan(tests, ids, function_prefixes, class_prefixes):
    """How the direct runner runs tests, whose collection gave ids: a list
    of (id, function name, index of its parameter set or None, test class
    or None), one per id in order; None when the file is not of plain shape
    (test_file_shape), a test takes a fixture the direct runner does not
    set up (fixture_closure) or a parameter that is also a fixture's name,
    or the ids are not exactly its tests in definition order, one per
    parameter set."""
    shape = test_file_shape(tests, function_prefixes, class_prefixes)
    if not shape or not ids:
        return None
    entries, fixtures = shape
    if any(name in DIRECT_BUILTIN_FIXTURES or name == "request" for name in fixtures):
        return None  # overriding pytest's own fixture (and perhaps asking for it)
    plan, i = [], 0
    for name, params, takes_args, cls, argnames in entries:
        if takes_args:
            taken = set(params[0]) if params is not None else set()
            if argnames is None or any(p in fixtures or p in DIRECT_BUILTIN_FIXTURES or p == "request" for p in taken):
                return None
            if not fixture_closure([a for a in argnames if a not in taken], fixtures):
                return None
        base = "test_solution.py::" + (cls + "::" if cls else "") + name
        if params is None:
            if i >= len(ids) or ids[i] != base:
                return None
            plan.append((ids[i], name, None, cls))
            i += 1
            continue
        for k in range(params[1]):
            if i >= len(ids) or not (ids[i].startswith(base + "[") and ids[i].endswith("]")):
                return None
            plan.append((ids[i], name, k, cls))
            i += 1
    return plan if i == len(ids) else None


def make_direct_plan(config):
    """plan(tests, ids): direct_plan under this session's python_functions
    and python_classes, or None (always, when a prefix is a glob)."""
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return lambda tests, ids: None
    fp, cp = prefixes
    cache = {}

    def plan(tests, ids):
        h = hashlib.sha256(tests.encode("utf-8", "surrogatepass"))
        for i in ids:
            h.update(b"\0" + str(i).encode("utf-8", "surrogatepass"))
        key = h.digest()
        if key not in cache:
            if len(cache) >= 512:
                cache.pop(next(iter(cache)))
            cache[key] = direct_plan(tests, [str(i) for i in ids], fp, cp)
        return cache[key]

    return plan


def make_static_ids(config):
    """ids(tests): static_test_ids under this session's python_functions and
    python_classes, with pytest's own ids of parameter sets, or None
    (always, when a prefix is a glob)."""
    prefixes = plain_prefixes(config)
    if prefixes is None:
        return lambda tests: None
    fp, cp = prefixes
    parameter_ids = make_parameter_ids(config)
    return lambda tests: static_test_ids(tests, fp, cp, parameter_ids)


def plain_prefixes(config):
    """This session's python_functions and python_classes as prefix tuples,
    or None when one is a glob (pytest matches those with fnmatch, which the
    readings of a file's text do not follow)."""
    fp = tuple(config.getini("python_functions"))
    cp = tuple(config.getini("python_classes"))
    if not fp or not all(p and not any(c in p for c in "*?[") for p in fp + cp):
        return None
    return fp, cp


