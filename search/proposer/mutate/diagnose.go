package mutate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"triage/corpus"
)

// failure is what the diagnosis knows about one failing test.
type failure struct {
	Name      string
	Assertion string // first line of an assertion message
	Expected  string // right side of `assert actual == expected`, when parsed
	Actual    string // left side
	Exception string // "IndexError: list index out of range"
	Line      int    // innermost solution.py line of its traceback, 0 if none
	Lines     []int32
}

var (
	sectionRe   = regexp.MustCompile(`(?m)^_{3,} (.+?) _{3,}\s*$`)
	solLineRe   = regexp.MustCompile(`(?m)(?:^|[\s"/])solution\.py(?:", line |:)(\d+)`)
	exceptionRe = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Iteration|Warning)\b`)
	whereRe     = regexp.MustCompile(`^\+\s+where (.+?) = (.+)$`)
)

// parseFailures extracts the failing tests of ex with their compared values,
// exceptions and solution.py traceback lines. Messages come from
// TestResult.Message; tracebacks from the per-test sections of Feedback
// (headed `____ name ____`, as pytest prints them).
func parseFailures(ex corpus.Execution) []failure {
	sections := map[string]string{}
	idx := sectionRe.FindAllStringSubmatchIndex(ex.Feedback, -1)
	for i, m := range idx {
		end := len(ex.Feedback)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		sections[ex.Feedback[m[2]:m[3]]] = ex.Feedback[m[1]:end]
	}
	var out []failure
	for _, tr := range ex.Tests {
		if tr.Passed {
			continue
		}
		f := failure{Name: tr.Name, Lines: tr.Lines}
		msg := strings.TrimSpace(tr.Message)
		first, rest, _ := strings.Cut(msg, "\n")
		first = strings.TrimSpace(first)
		switch {
		case strings.HasPrefix(first, "assert "):
			f.Assertion = first
			f.Actual, f.Expected = splitComparison(strings.TrimPrefix(first, "assert "))
			for _, l := range strings.Split(rest, "\n") {
				if m := whereRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil && m[1] == f.Actual {
					f.Actual = m[1] + " from " + m[2]
					break
				}
			}
		case exceptionRe.MatchString(first):
			f.Exception = first
		case first != "":
			f.Assertion = first
		}
		sec := sections[tr.Name]
		if sec == "" {
			sec = msg
		}
		if ms := solLineRe.FindAllStringSubmatch(sec, -1); len(ms) > 0 {
			f.Line, _ = strconv.Atoi(ms[len(ms)-1][1])
			if f.Exception == "" {
				// An `E   SomeError: ...` line in the section names it.
				for _, l := range strings.Split(sec, "\n") {
					if e := strings.TrimSpace(strings.TrimPrefix(l, "E ")); strings.HasPrefix(l, "E ") && exceptionRe.MatchString(e) {
						f.Exception = e
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// splitComparison splits `a == b` at its top-level `==` (outside brackets
// and quotes); it returns empty strings when there is none.
func splitComparison(s string) (left, right string) {
	at := -1
	forEachTopLevel(s, func(i int) bool {
		if strings.HasPrefix(s[i:], " == ") {
			at = i
			return false
		}
		return true
	})
	if at < 0 {
		return "", ""
	}
	return strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+4:])
}

// forEachTopLevel calls visit with the index of every byte of s that is
// outside quotes and brackets (bracket and quote characters themselves are
// not visited), until visit returns false.
func forEachTopLevel(s string, visit func(i int) bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0:
			if !visit(i) {
				return
			}
		}
	}
}

// suspicion scores lines of the program in [0, 1] and names the method used.
//
// With per-test coverage (TestResult.Lines) it is Ochiai:
// ef / sqrt(F · (ef + ep)), where F is the number of failing tests and ef/ep
// the failing/passing tests that executed the line; the innermost traceback
// line of an exception is raised to the top score. Without coverage it falls
// back to traceback lines (1.0), the lines of the functions the tests import
// (0.5) and every other function line (0.2).
func suspicion(p *program, task *corpus.Task, ex corpus.Execution, fails []failure) (map[int]float64, string) {
	score := map[int]float64{}
	covered := false
	for _, tr := range ex.Tests {
		covered = covered || tr.Lines != nil
	}
	if covered && len(fails) > 0 && ex.Status == corpus.StatusOK {
		ef, ep := map[int]int{}, map[int]int{}
		for _, tr := range ex.Tests {
			for _, l := range tr.Lines {
				if tr.Passed {
					ep[int(l)]++
				} else {
					ef[int(l)]++
				}
			}
		}
		F := float64(len(fails))
		top := 0.0
		for l, e := range ef {
			s := float64(e) / math.Sqrt(F*float64(e+ep[l]))
			score[l] = s
			top = math.Max(top, s)
		}
		for _, f := range fails {
			if f.Exception != "" && f.Line > 0 {
				score[f.Line] = math.Max(score[f.Line], top)
			}
		}
		return score, "Ochiai over per-test line coverage"
	}
	under := map[string]bool{}
	if task != nil {
		for _, n := range importedNames(task.Test) {
			under[n] = true
		}
		if task.EntryPoint != "" {
			under[task.EntryPoint] = true
		}
	}
	for _, f := range p.funcs {
		s := 0.2
		if under[f.name] {
			s = 0.5
		}
		for l := f.firstLine + 1; l <= f.lastLine; l++ {
			score[l] = math.Max(score[l], s)
		}
	}
	for _, f := range fails {
		if f.Line > 0 {
			score[f.Line] = 1
		}
	}
	return score, "traceback lines and the functions under test (no coverage)"
}

var importRe = regexp.MustCompile(`(?m)^\s*from\s+solution\s+import\s+\(?([\w\s,]+)\)?`)

// importedNames returns the names a test file imports from solution.
func importedNames(test string) []string {
	var out []string
	for _, m := range importRe.FindAllStringSubmatch(test, -1) {
		for _, n := range strings.Split(m[1], ",") {
			n = strings.TrimSpace(n)
			if i := strings.Index(n, " as "); i >= 0 {
				n = n[:i]
			}
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !boundary(s, n) {
		n--
	}
	return s[:n] + "…"
}

// diagnosis is the analysis of one program: failures, suspicious lines and
// the text a proposer writes about them.
type diagnosis struct {
	fails   []failure
	susp    map[int]float64
	method  string
	text    string
	timeout bool
}

// maxListed bounds the failing tests and suspicious lines the text lists.
const maxListed = 5

func diagnose(p *program, task *corpus.Task, ex corpus.Execution) diagnosis {
	d := diagnosis{fails: parseFailures(ex), timeout: ex.Status == corpus.StatusTimeout}
	d.susp, d.method = suspicion(p, task, ex, d.fails)
	var b strings.Builder
	total := len(ex.Tests)
	switch ex.Status {
	case corpus.StatusOK:
		fmt.Fprintf(&b, "%d of %d tests fail.\n", len(d.fails), total)
	case corpus.StatusLoadError:
		fmt.Fprintf(&b, "The program does not load: %s\n", clip(firstErrorLine(ex.Feedback), 160))
	case corpus.StatusTimeout:
		fmt.Fprintf(&b, "The test run timed out: probably an infinite loop or a far too slow algorithm.\n")
	default:
		fmt.Fprintf(&b, "The test run ended abnormally (%s).\n", ex.Status)
	}
	if ex.Status == corpus.StatusLoadError {
		if ms := solLineRe.FindAllStringSubmatch(ex.Feedback, -1); len(ms) > 0 {
			l, _ := strconv.Atoi(ms[len(ms)-1][1])
			d.susp[l] = 1
		}
	}
	if len(d.fails) > 0 && ex.Status == corpus.StatusOK {
		b.WriteString("Failing tests:\n")
		for i, f := range d.fails {
			if i == maxListed {
				fmt.Fprintf(&b, "- … and %d more\n", len(d.fails)-maxListed)
				break
			}
			fmt.Fprintf(&b, "- %s: %s\n", f.Name, f.describe(p))
		}
	}
	top := d.ranked()
	if len(top) > 0 {
		fmt.Fprintf(&b, "Suspicious lines (%s):\n", d.method)
		for i, l := range top {
			if i == maxListed {
				break
			}
			fmt.Fprintf(&b, "- line %d (%.2f): `%s`\n", l, d.susp[l], clip(strings.TrimSpace(sourceLine(p.src, l)), 80))
		}
	}
	if len(top) > 0 {
		fmt.Fprintf(&b, "Most likely the fault is on line %d; %s.\n", top[0], d.hint())
	}
	d.text = b.String()
	return d
}

// describe renders a failure in one line.
func (f failure) describe(p *program) string {
	switch {
	case f.Expected != "":
		return fmt.Sprintf("expected %s, got %s", clip(f.Expected, 60), clip(f.Actual, 60))
	case f.Exception != "" && f.Line > 0:
		return fmt.Sprintf("%s at line %d (`%s`)", clip(f.Exception, 80), f.Line, clip(strings.TrimSpace(sourceLine(p.src, f.Line)), 60))
	case f.Exception != "":
		return clip(f.Exception, 100)
	case f.Assertion != "":
		return clip(f.Assertion, 100)
	}
	return "failed"
}

// evidence is the short justification an edit cites.
func (f failure) evidence() string {
	switch {
	case f.Expected != "":
		return fmt.Sprintf("%s expects %s but got %s", f.Name, clip(f.Expected, 40), clip(f.Actual, 40))
	case f.Exception != "" && f.Line > 0:
		return fmt.Sprintf("%s raises %s at line %d", f.Name, clip(f.Exception, 60), f.Line)
	case f.Exception != "":
		return fmt.Sprintf("%s raises %s", f.Name, clip(f.Exception, 60))
	case f.Assertion != "":
		return fmt.Sprintf("%s fails `%s`", f.Name, clip(f.Assertion, 60))
	}
	return f.Name + " fails"
}

// hint summarizes the kind of failure.
func (d diagnosis) hint() string {
	exc, wrong := 0, 0
	for _, f := range d.fails {
		if f.Exception != "" {
			exc++
		} else {
			wrong++
		}
	}
	switch {
	case len(d.fails) == 0:
		return "the program must load and run before its results can be checked"
	case exc > wrong:
		return "the code raises where it should return, which points at an index, a bound or an uninitialized value"
	default:
		return "the code returns wrong values, which points at a condition, a bound or an arithmetic step"
	}
}

// ranked returns the lines with a positive score, most suspicious first
// (ties by line number).
func (d diagnosis) ranked() []int {
	var ls []int
	for l, s := range d.susp {
		if s > 0 {
			ls = append(ls, l)
		}
	}
	sort.Slice(ls, func(i, j int) bool {
		if d.susp[ls[i]] != d.susp[ls[j]] {
			return d.susp[ls[i]] > d.susp[ls[j]]
		}
		return ls[i] < ls[j]
	})
	return ls
}

// sourceLine returns 1-based line l of src ("" when out of range).
func sourceLine(src string, l int) string {
	if l < 1 {
		return ""
	}
	for i := 1; i < l; i++ {
		j := strings.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := strings.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimRight(src, "\r")
}

// firstErrorLine returns the first `E ` line of pytest output, or its first
// non-empty line.
func firstErrorLine(feedback string) string {
	first := ""
	for _, l := range strings.Split(feedback, "\n") {
		if strings.HasPrefix(l, "E ") {
			return strings.TrimSpace(l[2:])
		}
		if first == "" && strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
		}
	}
	return first
}
