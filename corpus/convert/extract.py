"""Reads the Python modules of a source tree with ast and symtable (never
imports or runs them) and writes one JSON line per module-level function
whose docstring holds doctest examples, for convert.ConvertTheAlgorithms:

  path, name, line        where the function is
  signature, prose        its def line (ast.unparse) and its docstring with
                          the examples taken out (the task's question)
  reference               the function with what it needs of its module:
                          the module-level statements whose names it uses,
                          transitively, and those the examples use, in the
                          module's order, imports cut to the names used,
                          "from __future__ import annotations" first when
                          it annotates (ANNOTATIONS); no `if __name__ ==
                          "__main__":` block; the examples taken out of every
                          docstring kept
  examples                doctest.DocTestParser's examples: source, want,
                          exc_msg, options (names), is_expr (the source is
                          one expression), expr (its text without comments),
                          needs_parens (it binds looser than ==), binds and
                          loads (the names it assigns, not by import or def,
                          and those it reads), displays (a statement that
                          shows a value of an expression inside it, as
                          doctest's "single" mode does), print_arg (the source is
                          print(E): E's source), multiline_string (a string
                          of the source spans lines, so it cannot be
                          re-indented)
  modules                 every top-level module the reference and examples
                          import, each with "stdlib" (sys.stdlib_module_names)
                          and "local" (a folder or module of the tree)
  builtins                the builtins of interest they call (open, input,
                          print, eval, exec, ...)
  prints                  the reference itself calls print
  attrs                   the attribute names of interest they use (now,
                          today, ...: time-dependent calls)
  names                   the module-level names the reference defines
  private                 the names starting with "_" the examples use
  skip                    set instead of the rest when the function cannot be
                          cut out (the reason)

Usage: python3 extract.py ROOT > functions.jsonl. A module that does not
parse gives one line with path and skip. Output is in path order, then
line order: the same tree gives the same bytes.
"""

import ast
import doctest
import io
import json
import os
import re
import symtable
import sys
import tokenize

BUILTINS_OF_INTEREST = {"open", "input", "print", "eval", "exec", "breakpoint", "__import__", "help",
                        "compile", "globals", "locals", "vars", "exit", "quit", "id", "hash"}
ATTRS_OF_INTEREST = {"now", "today", "utcnow", "time_ns", "perf_counter", "monotonic", "process_time",
                     "stdin", "argv", "setrecursionlimit"}
HEADER = re.compile(r"^\s*((example|examples|doctest|doctests|test|tests|usage|example usage|"
                    r"test cases|sample|samples|for example|e\.g\.)\s*[:.]*|-{3,}|={3,})\s*$", re.I)
# Statements whose names are not an example's state.
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# Expressions that bind tighter than ==: "E == want" compares E itself.
ATOMS = (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.List, ast.Dict, ast.Set,
         ast.ListComp, ast.SetComp, ast.DictComp, ast.BinOp, ast.JoinedStr)
PROMPT = re.compile(r"^\s*>>>")
OPTION_NAMES = {v: k for k, v in doctest.OPTIONFLAGS_BY_NAME.items()}


def is_main_guard(stmt):
    if not isinstance(stmt, ast.If):
        return False
    t = stmt.test
    return (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)
            and isinstance(t.left, ast.Name) and t.left.id == "__name__"
            and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value == "__main__")


def docstring_node(node):
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0]
    return None


def root_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class Bindings(ast.NodeVisitor):
    """The names a module-level statement binds in module scope, or changes:
    the names assigned, and those whose items or attributes are assigned
    (sieve[j] = False) or whose methods are called as a statement
    (primes.append(p)), so that a reference that needs sieve gets the loop
    that fills it."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_Subscript(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)) and root_name(node):
            self.names.add(root_name(node))
        self.generic_visit(node)

    visit_Attribute = visit_Subscript

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and root_name(node.value.func.value):
            self.names.add(root_name(node.value.func.value))
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.names.add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Import(self, node):
        for a in node.names:
            self.names.add(a.asname or a.name.split(".")[0])

    def visit_ImportFrom(self, node):
        for a in node.names:
            if a.name != "*":
                self.names.add(a.asname or a.name)


def bindings(stmt):
    b = Bindings()
    b.visit(stmt)
    return b.names


def loads(node):
    """Every name node.walk reads (over-approximates module-scope reads)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def table_globals(table):
    """The global names a function or class table, and its children, use."""
    out = set()
    for s in table.get_symbols():
        if s.is_global() and (s.is_referenced() or s.is_assigned()):
            out.add(s.get_name())
    for c in table.get_children():
        out |= table_globals(c)
    return out


class Module:
    def __init__(self, path, src, tree, local):
        self.path, self.src, self.tree, self.local = path, src, tree, local
        self.lines = src.splitlines(keepends=True)
        self.stmts = []  # (index, stmt) of the candidates to include
        self.binders = {}
        for i, s in enumerate(tree.body):
            if is_main_guard(s) or (i == 0 and docstring_node(tree) is s):
                continue
            if isinstance(s, ast.ImportFrom) and s.module == "__future__":
                continue  # only annotations matter, and the reference sets them (ANNOTATIONS)
            self.stmts.append(s)
            for n in bindings(s):
                self.binders.setdefault(n, []).append(len(self.stmts) - 1)
        try:
            top = symtable.symtable(src, path, "exec")
            self.tables = {}
            for c in top.get_children():
                self.tables.setdefault(c.get_name(), []).append(c)
        except (SyntaxError, ValueError):
            self.tables = {}
        self.refs = [self.references(s) for s in self.stmts]

    def references(self, s):
        """The module-level names statement s needs."""
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out = set()
            for t in self.tables.get(s.name, []):
                out |= table_globals(t)
            outer = list(s.decorator_list)
            if isinstance(s, ast.ClassDef):
                outer += s.bases + [k.value for k in s.keywords]
            else:
                a = s.args
                outer += a.defaults + [d for d in a.kw_defaults if d is not None]
                # Annotations are not read: the reference defers them (see
                # ANNOTATIONS).
            for o in outer:
                out |= loads(o)
            return out
        if isinstance(s, ast.AnnAssign):
            # A module-level annotation is deferred too: only the value counts.
            return (loads(s.value) if s.value is not None else set()) | loads(s.target)
        return loads(s)

    def closure(self, start, extra_names):
        need = set(start)
        todo = list(start)
        names = set(extra_names)
        for n in names:
            for j in self.binders.get(n, []):
                if j not in need:
                    need.add(j)
                    todo.append(j)
        while todo:
            i = todo.pop()
            for n in self.refs[i]:
                for j in self.binders.get(n, []):
                    if j not in need:
                        need.add(j)
                        todo.append(j)
        return sorted(need)

    def used_names(self, idxs):
        out = set()
        for i in idxs:
            out |= self.refs[i]
        return out

    def stmt_lines(self, s):
        start = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
        return start, s.end_lineno

    def shares_lines(self, s):
        a, b = self.stmt_lines(s)
        for o in self.tree.body:
            if o is s:
                continue
            oa, ob = self.stmt_lines(o)
            if oa <= b and ob >= a:
                return True
        return False

    def stripped_docstring_lines(self, s):
        """The source lines (1-based) to drop from statement s: its
        docstrings' examples (and the headers left with nothing), and lines
        to replace (the closing line of a docstring whose last example ends
        on it). Raises ValueError when a docstring's lines cannot be mapped
        to its source."""
        drop, replace = set(), {}
        for node in ast.walk(s):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            d = docstring_node(node)
            if d is None or ">>>" not in d.value.value:
                continue
            value = d.value.value
            seg = ast.get_source_segment(self.src, d.value)
            if seg is None or seg.count("\n") != value.count("\n") or "\\\n" in seg:
                raise ValueError("a docstring's escapes shift its lines")
            vlines = value.split("\n")
            removed = set()
            for ex in doctest.DocTestParser().get_examples(value):
                # An exception's want holds its traceback lines too.
                n = ex.source.count("\n") + ex.want.count("\n")
                removed.update(range(ex.lineno, ex.lineno + max(n, 1)))
            # Prompts doctest does not run (">>> # a comment") go too.
            removed.update(k for k, l in enumerate(vlines) if PROMPT.match(l))
            if 0 in removed:
                raise ValueError("an example shares the docstring's first line")
            last = len(vlines) - 1
            # Headers ("Examples:", "Doctests") left with nothing under them.
            for h in range(len(vlines)):
                if h in removed or not HEADER.match(vlines[h]):
                    continue
                j, saw = h + 1, False
                while j <= last and (j in removed or not vlines[j].strip()):
                    saw = saw or j in removed
                    j += 1
                if saw and (j > last or HEADER.match(vlines[j]) or j == last):
                    removed.add(h)
            # Blank lines left in runs: keep the first of each run.
            prev_blank = False
            for k in range(len(vlines)):
                if k in removed:
                    continue
                blank = not vlines[k].strip()
                if blank and prev_blank and k != last:
                    removed.add(k)
                prev_blank = blank
            if all(k in removed or not vlines[k].strip() for k in range(len(vlines))) and len(node.body) > 1 \
                    and node.body[1].lineno > d.end_lineno and d.lineno > node.lineno:
                # Nothing but examples: the docstring goes whole.
                drop.update(range(d.lineno, d.end_lineno + 1))
                continue
            for k in sorted(removed):
                line = d.value.lineno + k
                if k == last:
                    src_line = self.lines[line - 1]
                    close = src_line.rstrip("\n")
                    q = close.rfind(close.rstrip()[-3:]) if close.rstrip().endswith(('"""', "'''")) else -1
                    if q < 0:
                        raise ValueError("an example shares the docstring's closing line")
                    indent = len(src_line) - len(src_line.lstrip())
                    replace[line] = " " * indent + close[q:].strip() + "\n"
                else:
                    drop.add(line)
            # A blank line left just before the closing quotes.
            k = last - 1
            while k > 0 and (k in removed or not vlines[k].strip()):
                if k not in removed:
                    drop.add(d.value.lineno + k)
                k -= 1
        return drop, replace

    def source_of(self, s, names_needed):
        """Statement s's text for the reference (no trailing newline)."""
        if isinstance(s, ast.Import):
            keep = [a for a in s.names if (a.asname or a.name.split(".")[0]) in names_needed]
            if len(keep) != len(s.names):
                return ast.unparse(ast.Import(names=keep))
        if isinstance(s, ast.ImportFrom) and s.module != "__future__":
            keep = [a for a in s.names if (a.asname or a.name) in names_needed]
            if len(keep) != len(s.names):
                return ast.unparse(ast.ImportFrom(module=s.module, names=keep, level=s.level))
        if self.shares_lines(s):
            if docstring_node(s) is not None and ">>>" in docstring_node(s).value.value:
                raise ValueError("a statement with examples shares its lines")
            return ast.get_source_segment(self.src, s)
        drop, replace = self.stripped_docstring_lines(s)
        a, b = self.stmt_lines(s)
        out = []
        for ln in range(a, b + 1):
            if ln in drop:
                continue
            out.append(replace.get(ln, self.lines[ln - 1]))
        return "".join(out).rstrip("\n").rstrip()

    def prose(self, fn):
        d = docstring_node(fn)
        value = d.value.value
        vlines = value.split("\n")
        removed = set()
        for ex in doctest.DocTestParser().get_examples(value):
            n = ex.source.count("\n") + ex.want.count("\n")
            removed.update(range(ex.lineno, ex.lineno + max(n, 1)))
        kept = [l for k, l in enumerate(vlines) if k not in removed and not PROMPT.match(l)]
        text = "\n".join(kept)
        import inspect
        text = inspect.cleandoc(text)
        out, prev_blank = [], False
        for l in text.split("\n"):
            blank = not l.strip()
            if blank and prev_blank:
                continue
            out.append(l.rstrip())
            prev_blank = blank
        lines = out
        # Trailing headers with nothing under them.
        while lines and (not lines[-1].strip() or HEADER.match(lines[-1])):
            lines.pop()
        return "\n".join(lines).strip("\n")


# The repository targets Python 3.14, whose annotations are evaluated only
# when asked for (PEP 649): its modules annotate with names they never
# import, or import only under TYPE_CHECKING, and name classes before they
# are defined. A reference with annotations starts with this import, which
# gives older Pythons the same behaviour for what the reference runs.
ANNOTATIONS = "from __future__ import annotations"


def has_annotations(stmts):
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.AnnAssign) or isinstance(n, ast.arg) and n.annotation is not None \
                    or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
                return True
    return False


def example_facts(ex):
    src = ex.source
    facts = {"source": src, "want": ex.want, "exc_msg": ex.exc_msg, "lineno": ex.lineno,
             "options": sorted(OPTION_NAMES.get(k, str(k)) for k, v in ex.options.items() if v),
             "binds": [], "loads": [], "displays": False, "is_expr": False, "expr": None, "needs_parens": True, "print_arg": None, "multiline_string": False, "parses": True}
    try:
        tree = ast.parse(src)
    except SyntaxError:
        facts["parses"] = False
        return facts, None
    facts["binds"] = sorted(set().union(set(), *(bindings(st) for st in tree.body
                                               if not isinstance(st, DEFINITIONS))))
    facts["loads"] = sorted(loads(tree))
    facts["is_expr"] = len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
    if facts["is_expr"]:
        call = tree.body[0].value
        facts["expr"] = ast.get_source_segment(src, call)
        facts["needs_parens"] = not isinstance(call, ATOMS)
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
                and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred)):
            facts["print_arg"] = ast.get_source_segment(src, call.args[0])
    else:
        # Doctest compiles an example in "single" mode: an expression
        # statement inside a loop or an if shows its value too.
        facts["displays"] = any(
            isinstance(n, ast.Expr) and not (isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                                             and n.value.func.id == "print")
            for st in tree.body for n in ast.walk(st))
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
                facts["multiline_string"] = True
    except (tokenize.TokenError, SyntaxError, IndentationError):
        facts["parses"] = False
    return facts, tree


def exc_name(exc_msg):
    head = exc_msg.split("\n", 1)[0]
    name = head.split(":", 1)[0].strip()
    return name.rsplit(".", 1)[-1]


def modules_of(nodes, local, path):
    out = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Import):
                for a in n.names:
                    out[a.name.split(".")[0]] = 0
            elif isinstance(n, ast.ImportFrom):
                if n.level > 0:
                    out["." * n.level + (n.module or "")] = n.level
                elif n.module != "__future__":
                    out[n.module.split(".")[0]] = 0
    res = []
    for m in sorted(out):
        rel = m.startswith(".")
        res.append({"name": m, "stdlib": (not rel) and m in sys.stdlib_module_names,
                    "local": rel or m in local})
    return res


def function_record(mod, fn_index, fn, local):
    rec = {"path": mod.path, "name": fn.name, "line": fn.lineno}
    value = docstring_node(fn).value.value
    try:
        examples = doctest.DocTestParser().get_examples(value)
    except ValueError as e:  # a malformed example (bad indentation)
        rec["skip"] = "malformed doctest: " + str(e).split("\n")[0]
        return rec
    facts, trees, names = [], [], set()
    for ex in examples:
        f, tree = example_facts(ex)
        facts.append(f)
        if tree is not None:
            trees.append(tree)
            names |= loads(tree)
        if ex.exc_msg:
            names.add(exc_name(ex.exc_msg))
    idxs = mod.closure([fn_index], names)
    needed = mod.used_names(idxs) | names
    stmts = [mod.stmts[i] for i in idxs]
    parts = []
    try:
        for s in stmts:
            parts.append((s, mod.source_of(s, needed)))
    except ValueError as e:
        rec["skip"] = str(e)
        return rec
    text = ""
    if has_annotations(stmts):
        text = ANNOTATIONS + ("\n\n\n" if isinstance(stmts[0], DEFINITIONS[2:]) else "\n\n")
    prev = None
    for s, t in parts:
        if prev is not None:
            simple = lambda x: not isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            text += "\n" if simple(prev) and simple(s) and type(prev) is type(s) else "\n\n\n"
        text += t
        prev = s
    text += "\n"
    defined = set()
    for s in stmts:
        defined |= bindings(s)
    def called(n):
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in defined

    prints = any(called(n) and n.func.id == "print" for s in stmts for n in ast.walk(s))
    builtins_used, attrs_used = set(), set()
    for node in stmts + trees:
        for n in ast.walk(node):
            if called(n) and n.func.id in BUILTINS_OF_INTEREST:
                builtins_used.add(n.func.id)
            elif isinstance(n, ast.Attribute) and n.attr in ATTRS_OF_INTEREST:
                attrs_used.add(n.attr)
    header = ast.FunctionDef(name=fn.name, args=fn.args, body=[ast.Pass()], decorator_list=[],
                             returns=fn.returns, type_comment=None)
    if isinstance(fn, ast.AsyncFunctionDef):
        header = ast.AsyncFunctionDef(name=fn.name, args=fn.args, body=[ast.Pass()], decorator_list=[],
                                      returns=fn.returns, type_comment=None)
    ast.copy_location(header, fn)
    if sys.version_info >= (3, 12):
        header.type_params = getattr(fn, "type_params", [])
    signature = ast.unparse(header).rsplit("\n", 1)[0]
    rec.update({
        "async": isinstance(fn, ast.AsyncFunctionDef),
        "signature": signature, "prose": mod.prose(fn), "reference": text, "examples": facts,
        "modules": modules_of(stmts + trees, local, mod.path),
        "builtins": sorted(builtins_used), "attrs": sorted(attrs_used), "prints": prints,
        "names": sorted(defined),
        "private": sorted(n for n in names if n.startswith("_") and n in defined
                          and not (n.startswith("__") and n.endswith("__"))),
    })
    return rec


def main(root):
    local = set()
    for e in os.listdir(root):
        if os.path.isdir(os.path.join(root, e)) and not e.startswith("."):
            local.add(e)
        elif e.endswith(".py"):
            local.add(e[:-3])
    paths = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            if f.endswith(".py"):
                paths.append(os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"))
    paths.sort()
    out = sys.stdout
    for path in paths:
        with open(os.path.join(root, path), "rb") as fh:
            raw = fh.read()
        try:
            src = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            tree = ast.parse(src, path)
        except (UnicodeDecodeError, SyntaxError, ValueError) as e:
            if b">>>" in raw:
                out.write(json.dumps({"path": path, "skip": "the module does not parse: " + type(e).__name__},
                                     sort_keys=True) + "\n")
            continue
        mod = None
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            d = docstring_node(node)
            if d is None or ">>>" not in d.value.value:
                continue
            if mod is None:
                mod = Module(path, src, tree, local)
            idx = next(i for i, s in enumerate(mod.stmts) if s is node)
            try:
                rec = function_record(mod, idx, node, local)
            except RecursionError:
                rec = {"path": path, "name": node.name, "line": node.lineno, "skip": "too deeply nested to read"}
            except Exception as e:  # noqa: BLE001 - one function's surprise must not end the tree's
                rec = {"path": path, "name": node.name, "line": node.lineno,
                       "skip": "extract.py failed: %s: %s" % (type(e).__name__, str(e).split("\n")[0])}
            out.write(json.dumps(rec, sort_keys=True) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main(sys.argv[1])
