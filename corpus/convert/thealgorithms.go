package convert

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"triage/corpus"
)

// TheAlgorithms/Python.
const (
	// TheAlgorithmsSource is the source of its tasks and the word that
	// names the embedded set.
	TheAlgorithmsSource = "thealgorithms"
	// TheAlgorithmsRepo is the upstream repository.
	TheAlgorithmsRepo = "https://github.com/TheAlgorithms/Python"
)

//go:embed extract.py
var extractPy []byte

// Function is one module-level function with doctests as extract.py reads
// it (its header comment says what each field holds).
type Function struct {
	Path      string    `json:"path"`
	Name      string    `json:"name"`
	Line      int       `json:"line"`
	Skip      string    `json:"skip"`
	Async     bool      `json:"async"`
	Signature string    `json:"signature"`
	Prose     string    `json:"prose"`
	Reference string    `json:"reference"`
	Examples  []Example `json:"examples"`
	Modules   []Module  `json:"modules"`
	Builtins  []string  `json:"builtins"`
	Prints    bool      `json:"prints"`
	Attrs     []string  `json:"attrs"`
	Names     []string  `json:"names"`
	Private   []string  `json:"private"`
}

// Example is one doctest example of a Function.
type Example struct {
	Source          string   `json:"source"`
	Expr            string   `json:"expr"`
	Want            string   `json:"want"`
	ExcMsg          *string  `json:"exc_msg"`
	Options         []string `json:"options"`
	IsExpr          bool     `json:"is_expr"`
	NeedsParens     bool     `json:"needs_parens"`
	PrintArg        *string  `json:"print_arg"`
	MultilineString bool     `json:"multiline_string"`
	Parses          bool     `json:"parses"`
	Binds           []string `json:"binds"`
	Displays        bool     `json:"displays"`
	Loads           []string `json:"loads"`
}

// Module is a top-level module a Function's reference or examples import.
type Module struct {
	Name   string `json:"name"`
	Stdlib bool   `json:"stdlib"`
	Local  bool   `json:"local"`
}

// ExtractFunctions runs extract.py with python over the tree at dir and
// returns its functions in path and line order.
func ExtractFunctions(ctx context.Context, python, dir string) ([]Function, error) {
	if python == "" {
		python = "/usr/bin/python3"
	}
	f, err := os.CreateTemp("", "triage-extract-*.py")
	if err != nil {
		return nil, fmt.Errorf("extract doctests: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(extractPy); err != nil {
		f.Close()
		return nil, fmt.Errorf("extract doctests: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("extract doctests: %w", err)
	}
	// -I: no user site, no PYTHONPATH; extract.py imports only the
	// standard library and reads the tree, never imports it.
	cmd := exec.CommandContext(ctx, python, "-I", f.Name(), dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("extract doctests from %s: %w: %s", dir, err, lastLines(stderr.String(), 5))
	}
	return ReadFunctions(out)
}

// ReadFunctions parses extract.py's output.
func ReadFunctions(out []byte) ([]Function, error) {
	var fns []Function
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var fn Function
		if err := json.Unmarshal(sc.Bytes(), &fn); err != nil {
			return nil, fmt.Errorf("extract.py line %d: %w", n, err)
		}
		fns = append(fns, fn)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read extract.py output: %w", err)
	}
	return fns, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TheAlgorithmsTaskID is the task id of function name of the module at
// path: "thealgorithms_", the path without ".py" and the name, joined by
// "_", lower case, every other character than a letter or digit as "_".
func TheAlgorithmsTaskID(path, name string) string {
	s := strings.ToLower(strings.TrimSuffix(path, ".py") + "_" + name)
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return "thealgorithms_" + string(b)
}

// moduleReasons are the reasons to leave out a function that imports one
// of these standard modules: results that vary from run to run, or work
// outside the program (files, network, processes, windows).
var moduleReasons = map[string]string{
	"random": "uses randomness", "secrets": "uses randomness", "uuid": "uses randomness",
	"time": "time-dependent", "timeit": "time-dependent",
	"os": "uses the filesystem or the environment", "pathlib": "uses the filesystem or the environment",
	"shutil": "uses the filesystem or the environment", "tempfile": "uses the filesystem or the environment",
	"glob": "uses the filesystem or the environment", "fileinput": "uses the filesystem or the environment",
	"pickle": "uses the filesystem or the environment", "shelve": "uses the filesystem or the environment",
	"sqlite3": "uses the filesystem or the environment", "csv": "uses the filesystem or the environment",
	"socket": "uses the network", "ssl": "uses the network", "urllib": "uses the network", "http": "uses the network",
	"ftplib": "uses the network", "smtplib": "uses the network", "email": "uses the network",
	"webbrowser": "uses the network", "xmlrpc": "uses the network",
	"subprocess": "runs processes or threads", "multiprocessing": "runs processes or threads",
	"threading": "runs processes or threads", "concurrent": "runs processes or threads",
	"asyncio": "runs processes or threads", "signal": "runs processes or threads",
	"turtle": "draws (turtle, tkinter)", "tkinter": "draws (turtle, tkinter)",
	"doctest": "runs doctest itself", "unittest": "runs tests itself", "pytest": "runs tests itself",
}

// builtinReasons are the reasons to leave out a function whose reference
// or examples use one of these builtins.
var builtinReasons = map[string]string{
	"open": "reads or writes files", "input": "reads standard input",
	"eval": "evaluates code", "exec": "evaluates code", "compile": "evaluates code", "__import__": "evaluates code",
	"breakpoint": "stops for a debugger", "help": "prints help",
	"id": "depends on object identity", "hash": "depends on hashing (str hashes vary from run to run)",
	"globals": "reads interpreter state", "locals": "reads interpreter state", "vars": "reads interpreter state",
	"exit": "exits", "quit": "exits",
}

// attrReasons are the reasons to leave out a function that reads one of
// these attributes.
var attrReasons = map[string]string{
	"now": "time-dependent", "today": "time-dependent", "utcnow": "time-dependent", "time_ns": "time-dependent",
	"perf_counter": "time-dependent", "monotonic": "time-dependent", "process_time": "time-dependent",
	"stdin": "reads standard input", "argv": "reads the command line",
	"setrecursionlimit": "changes the recursion limit",
}

// builtinExceptions are the exception classes a test may name without
// the reference defining them.
var builtinExceptions = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`BaseException Exception ArithmeticError AssertionError AttributeError
		BufferError EOFError FloatingPointError GeneratorExit ImportError ModuleNotFoundError IndexError
		KeyError KeyboardInterrupt LookupError MemoryError NameError NotImplementedError OSError
		OverflowError RecursionError ReferenceError RuntimeError StopIteration StopAsyncIteration
		SyntaxError IndentationError TabError SystemError SystemExit TypeError UnboundLocalError
		UnicodeError UnicodeEncodeError UnicodeDecodeError UnicodeTranslateError ValueError
		ZeroDivisionError EnvironmentError IOError ConnectionError FileExistsError FileNotFoundError
		InterruptedError IsADirectoryError NotADirectoryError PermissionError TimeoutError
		BaseExceptionGroup ExceptionGroup`) {
		builtinExceptions[n] = true
	}
}

// exclusion says why fn cannot be a task, or "": code that cannot be cut
// out, imports outside the standard library or of the repository, the
// modules, builtins and attributes above, and names pytest would collect.
func exclusion(fn *Function) (string, string) {
	if fn.Skip != "" {
		r, d, _ := strings.Cut(fn.Skip, ": ")
		return r, d
	}
	var local, third []string
	for _, m := range fn.Modules {
		switch {
		case m.Local:
			local = append(local, m.Name)
		case !m.Stdlib:
			third = append(third, m.Name)
		}
	}
	switch {
	case len(local) > 0:
		return "imports another module of the repository", strings.Join(local, ", ")
	case len(third) > 0:
		return "imports a package outside the standard library", strings.Join(third, ", ")
	}
	for _, m := range fn.Modules {
		if r, ok := moduleReasons[m.Name]; ok {
			return r, "imports " + m.Name
		}
	}
	for _, b := range fn.Builtins {
		if r, ok := builtinReasons[b]; ok {
			return r, "uses " + b
		}
	}
	for _, a := range fn.Attrs {
		if r, ok := attrReasons[a]; ok {
			return r, "uses ." + a
		}
	}
	if fn.Async {
		return "a coroutine", ""
	}
	for _, n := range fn.Names {
		if strings.HasPrefix(strings.ToLower(n), "test") {
			return "defines a name pytest collects (test*)", n
		}
	}
	return "", ""
}

// algoTest is one test made from a doctest example.
type algoTest struct {
	Name string
	Code string
}

// testHelpers are the functions a test file may need, by name.
const (
	closeHelper = `def _close(got, want):
    """got == want, floats and complex numbers within a relative 1e-9."""
    if isinstance(want, (float, complex)) or isinstance(got, (float, complex)) and isinstance(want, int):
        return (isinstance(got, (int, float, complex)) and not isinstance(got, bool)
                and cmath.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12))
    if isinstance(want, (list, tuple)):
        return (type(got) is type(want) and len(got) == len(want)
                and all(_close(g, w) for g, w in zip(got, want)))
    if isinstance(want, dict):
        return (type(got) is type(want) and got.keys() == want.keys()
                and all(_close(got[k], want[k]) for k in want))
    return got == want
`
	shownHelper = `def _shown(capsys, value):
    """What doctest shows: the printed output, the value's repr (unless None), a final newline."""
    out = capsys.readouterr().out
    if value is not None:
        out += repr(value) + "\n"
    return out if out == "" or out.endswith("\n") else out + "\n"
`
)

// AlgorithmTests turns fn's doctest examples into pytest tests, in
// example order, each named test_N (N: the example's position, from 1).
// Doctest runs a docstring's examples in one namespace; a test runs alone.
// So an example with no expected output is a set-up step, repeated at the
// start of every later test; and an example with one that assigns a name,
// or reads a name an earlier example assigned (`next(primes)` after
// `primes = sieve()`: it may move that state), is repeated at the start
// of every later test that reads one of those names. It returns the tests,
// the examples left out with the reason ("test_N: reason"), and which
// helpers the tests use.
func AlgorithmTests(fn *Function) (tests []algoTest, left []string, needs map[string]bool) {
	needs = map[string]bool{}
	type step struct {
		code    string
		touched []string // nil: a set-up step, repeated always
	}
	var steps []step
	bound := map[string]bool{}
	prints := fn.Prints
	for i, ex := range fn.Examples {
		name := fmt.Sprintf("test_%d", i+1)
		usable := ex.Parses && !ex.MultilineString && !slices.Contains(ex.Options, "SKIP")
		touched := slices.Clone(ex.Binds)
		for _, n := range ex.Loads {
			if bound[n] {
				touched = append(touched, n)
			}
		}
		if usable {
			for _, n := range ex.Binds {
				bound[n] = true
			}
		}
		var prelude strings.Builder
		for _, st := range steps {
			if st.touched == nil || slices.ContainsFunc(st.touched, func(n string) bool { return slices.Contains(ex.Loads, n) }) {
				prelude.WriteString(st.code)
			}
		}
		switch {
		case slices.Contains(ex.Options, "SKIP"):
			left = append(left, name+": marked SKIP")
			continue
		case !ex.Parses:
			left = append(left, name+": the example does not parse")
			continue
		case ex.MultilineString:
			left = append(left, name+": a string of the example spans lines")
			continue
		case ex.Want == "" && ex.ExcMsg == nil:
			steps = append(steps, step{code: indent(ex.Source, "    ")})
			continue
		}
		w, err := ParseWant(ex.Want, ex.ExcMsg, ex.Options)
		if err != nil {
			left = append(left, name+": "+err.Error())
			continue
		}
		body, arg, why := exampleBody(fn, ex, w, prints, needs)
		if why != "" {
			left = append(left, name+": "+why)
			continue
		}
		pre := prelude.String()
		if arg == "capsys" && pre != "" {
			pre += "    capsys.readouterr()\n" // what the set-up printed is not this example's
		}
		tests = append(tests, algoTest{Name: name, Code: "def " + name + "(" + arg + "):\n" + pre + body})
		if len(touched) > 0 {
			code := indent(ex.Source, "    ")
			if w.Kind == WantRaise {
				code = "    with pytest.raises(" + w.ExcType + "):\n" + indent(ex.Source, "        ")
			}
			steps = append(steps, step{code: code, touched: touched})
		}
	}
	return tests, left, needs
}

// exampleBody is the body of ex's test under want w: the check, the
// test's argument ("capsys" when it reads the output), or why the example
// cannot be a test. prints says the reference prints.
func exampleBody(fn *Function, ex Example, w Want, prints bool, needs map[string]bool) (body, arg, why string) {
	switch {
	case w.Kind == WantRaise:
		if !builtinExceptions[w.ExcType] && !slices.Contains(fn.Names, w.ExcType) {
			return "", "", "the exception " + w.ExcType + " is not a builtin or the module's"
		}
		needs["pytest"] = true
		body = "    with pytest.raises(" + w.ExcType + ")"
		if !w.MessageFree {
			body += " as _e"
		}
		body += ":\n" + indent(ex.Source, "        ")
		switch {
		case w.MessageFree:
		case slices.Contains(ex.Options, "NORMALIZE_WHITESPACE"):
			body += "    assert \" \".join(str(_e.value).split()) == " + pyQuote(strings.Join(strings.Fields(w.ExcMessage), " ")) + "\n"
		default:
			body += "    assert str(_e.value) == " + pyQuote(w.ExcMessage) + "\n"
		}
		return body, "", ""
	case ex.PrintArg != nil && !prints:
		return "    assert str(" + *ex.PrintArg + ") == " + pyQuote(strings.TrimSuffix(wantText(ex, w), "\n")) + "\n", "", ""
	case ex.IsExpr && w.Kind == WantValue && !prints:
		lit := w.Literal
		if w.MultiLine {
			lit = "(\n" + indent(lit+"\n", "        ") + "    )"
		}
		if w.Floats {
			needs["close"] = true
			return "    assert _close(" + ex.Expr + ", " + lit + ")\n", "", ""
		}
		return "    assert " + parens(ex.Expr, ex.NeedsParens) + " == " + lit + "\n", "", ""
	case ex.IsExpr && !prints:
		return "    assert repr(" + ex.Expr + ") == " + pyQuote(strings.TrimSuffix(wantText(ex, w), "\n")) + "\n", "", ""
	case ex.IsExpr:
		needs["shown"] = true
		return "    assert _shown(capsys, " + parens(ex.Expr, ex.NeedsParens) + ") == " + pyQuote(wantText(ex, w)) + "\n", "capsys", ""
	case ex.Displays:
		return "", "", "a statement that shows values (doctest's interactive mode)"
	}
	needs["shown"] = true
	return indent(ex.Source, "    ") + "    assert _shown(capsys, None) == " + pyQuote(wantText(ex, w)) + "\n", "capsys", ""
}

// wantText is the output an example shows: the text of a WantText, the
// literal's text of a WantValue.
func wantText(ex Example, w Want) string {
	if w.Kind == WantText {
		return w.Text
	}
	return strings.TrimRight(ex.Want, "\n") + "\n"
}

func parens(expr string, need bool) string {
	if need {
		return "(" + expr + ")"
	}
	return expr
}

// indent prefixes every non-empty line of s with p and ends it with a
// newline.
func indent(s, p string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = p + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// pyQuote writes s as a Python string literal: Go's quoting, whose
// escapes (\a \b \f \n \r \t \v \\ \" \xNN \uNNNN \UNNNNNNNN) Python reads
// the same way for valid UTF-8.
func pyQuote(s string) string { return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD")) }

// AlgorithmTestFile assembles a test file from tests: the star import of
// solution (and its private names the examples use), pytest and cmath
// where used, the helpers, then the tests.
func AlgorithmTestFile(fn *Function, tests []algoTest, needs map[string]bool) string {
	var b strings.Builder
	b.WriteString("from solution import *\n")
	if len(fn.Private) > 0 {
		b.WriteString("from solution import " + strings.Join(fn.Private, ", ") + "\n")
	}
	if needs["close"] {
		b.WriteString("import cmath\n")
	}
	if needs["pytest"] {
		b.WriteString("import pytest\n")
	}
	if needs["close"] {
		b.WriteString("\n\n" + closeHelper)
	}
	if needs["shown"] {
		b.WriteString("\n\n" + shownHelper)
	}
	for _, t := range tests {
		b.WriteString("\n\n" + t.Code)
	}
	return b.String()
}

// algorithmQuestion is the question of fn: where it comes from, then its
// signature and the prose of its docstring as a stub.
func algorithmQuestion(fn *Function) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Implement `%s` (from `%s` of TheAlgorithms/Python):\n\n```python\n%s\n", fn.Name, fn.Path, fn.Signature)
	if strings.TrimSpace(fn.Prose) != "" {
		b.WriteString("    \"\"\"\n" + indent(fn.Prose, "    ") + "    \"\"\"\n")
	} else {
		b.WriteString("    ...\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// algoCandidate is a task before the sandbox has seen it, with its tests
// apart so that those the reference fails can be left out.
type algoCandidate struct {
	task  corpus.Task
	fn    *Function
	tests []algoTest
	needs map[string]bool
}

// TheAlgorithmsTasks turns extract.py's functions into candidate tasks at
// commit, without running anything, and returns what it leaves out. Ids
// are unique: a second function with the same id is left out.
func theAlgorithmsCandidates(fns []Function, commit string) ([]algoCandidate, []Skipped) {
	var out []algoCandidate
	var skipped []Skipped
	seen := map[string]bool{}
	for i := range fns {
		fn := &fns[i]
		id := TheAlgorithmsTaskID(fn.Path, fn.Name)
		if fn.Name == "" {
			id = TheAlgorithmsTaskID(fn.Path, "")
		}
		if r, d := exclusion(fn); r != "" {
			skipped = append(skipped, Skipped{ID: id, Stage: StageConvert, Reason: r, Detail: d})
			continue
		}
		if seen[id] {
			skipped = append(skipped, Skipped{ID: id, Stage: StageConvert, Reason: "a second function with the same id", Detail: fmt.Sprintf("%s:%d", fn.Path, fn.Line)})
			continue
		}
		tests, left, needs := AlgorithmTests(fn)
		for _, l := range left {
			test, reason, _ := strings.Cut(l, ": ")
			s := Skipped{ID: id, Test: test, Stage: StageConvert, Reason: "example: " + exampleReason(reason)}
			if exampleReason(reason) != reason {
				s.Detail = reason
			}
			skipped = append(skipped, s)
		}
		if len(tests) == 0 {
			skipped = append(skipped, Skipped{ID: id, Stage: StageConvert, Reason: "no example with a comparable expected outcome"})
			continue
		}
		seen[id] = true
		category, _, _ := strings.Cut(fn.Path, "/")
		if !strings.Contains(fn.Path, "/") {
			category = "other"
		}
		t := corpus.Task{ID: id, Question: algorithmQuestion(fn), Solution: fn.Reference,
			Test: AlgorithmTestFile(fn, tests, needs), EntryPoint: fn.Name, Split: corpus.SplitFor(id),
			Category: category, Source: TheAlgorithmsSource, License: License,
			Origin: TheAlgorithmsRepo + "/blob/" + commit + "/" + fn.Path + "#L" + strconv.Itoa(fn.Line)}
		out = append(out, algoCandidate{task: t, fn: fn, tests: tests, needs: needs})
	}
	return out, skipped
}

// exampleReason is the category of an example left out (its reason without
// the names in it).
func exampleReason(r string) string {
	if strings.HasPrefix(r, "the exception ") {
		return "the exception is not a builtin or the module's"
	}
	if strings.HasPrefix(r, "the exception line ") {
		return "the exception line names no type"
	}
	return r
}

// dropFailingTests runs each candidate's reference once against all its
// tests and leaves out the tests it fails: a doctest example can depend on
// what an earlier example with output did, or print and show a value at
// once, which a test of its own does not repeat. A run that does not
// complete keeps every test (the input checks then report it); a candidate
// that fails every test is left out.
func dropFailingTests(ctx context.Context, exec corpus.Executor, cands []algoCandidate, o Options, rep *Report) ([]algoCandidate, error) {
	results := make([]corpus.Execution, len(cands))
	var mu sync.Mutex
	err := corpus.ForEach(ctx, len(cands), max(o.Workers, 1), func(i int) error {
		ex, err := corpus.RunWith(ctx, exec, cands[i].task.Solution, cands[i].task.Test, o.Limits.Measure())
		if err != nil {
			return fmt.Errorf("task %s: run the reference: %w", cands[i].task.ID, err)
		}
		mu.Lock()
		results[i] = ex
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []algoCandidate
	for i, c := range cands {
		ex := results[i]
		if ex.Status != corpus.StatusOK {
			out = append(out, c)
			continue
		}
		failed := map[string]string{}
		for _, tr := range ex.Tests {
			if !tr.Passed {
				failed[tr.Name[strings.LastIndex(tr.Name, ":")+1:]] = firstLine(tr.Message)
			}
		}
		var kept []algoTest
		for _, t := range c.tests {
			if msg, bad := failed[t.Name]; bad {
				rep.skip(Skipped{ID: c.task.ID, Test: t.Name, Stage: StageTests, Reason: "the reference fails the example's test", Detail: msg})
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == 0 {
			rep.skip(Skipped{ID: c.task.ID, Stage: StageTests, Reason: "the reference fails every example's test"})
			continue
		}
		if len(kept) < len(c.tests) {
			c.tests = kept
			c.task.Test = AlgorithmTestFile(c.fn, kept, c.needs)
		}
		out = append(out, c)
	}
	return out, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// ConvertTheAlgorithms converts the repository checked out in dir: the
// functions extract.py reads, less those exclusion leaves out, each
// doctest example a test (AlgorithmTests), the tests the reference fails
// left out, then the input checks (see package doc).
func ConvertTheAlgorithms(ctx context.Context, exec corpus.Executor, dir string, o Options) ([]corpus.Task, Report, error) {
	commit, err := Commit(dir, o.Commit)
	if err != nil {
		return nil, Report{}, err
	}
	if err := checkMIT(dir); err != nil {
		return nil, Report{}, err
	}
	if st, err := os.Stat(filepath.Join(dir, "DIRECTORY.md")); err != nil || st.IsDir() {
		return nil, Report{}, corpus.BadInput("%s: not a checkout of TheAlgorithms/Python (no DIRECTORY.md)", dir)
	}
	rep := newReport(TheAlgorithmsSource, commit)
	fns, err := ExtractFunctions(ctx, o.Python, dir)
	if err != nil {
		return nil, rep, err
	}
	rep.Units = len(fns)
	cands, skipped := theAlgorithmsCandidates(fns, commit)
	for _, s := range skipped {
		rep.skip(s)
	}
	cands, err = dropFailingTests(ctx, exec, cands, o, &rep)
	if err != nil {
		return nil, rep, fmt.Errorf("convert thealgorithms: %w", err)
	}
	tasks := make([]corpus.Task, len(cands))
	for i, c := range cands {
		tasks[i] = c.task
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	kept, err := keepValid(ctx, exec, tasks, o, &rep)
	return kept, rep, err
}
