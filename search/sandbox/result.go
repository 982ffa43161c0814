package sandbox

import (
	"fmt"
	"strings"
	"syscall"
	"unicode/utf8"

	"triage/corpus"
)

// testFilePrefix is stripped from pytest node ids to form test names.
const testFilePrefix = "test_solution.py::"

// testName turns a pytest node id into a TestResult name
// ("test_solution.py::TestX::test_y[1-2]" → "TestX::test_y[1-2]").
func testName(nodeid string) string {
	return strings.TrimPrefix(nodeid, testFilePrefix)
}

// runEvents is what the events of a run's child say, read in order.
type runEvents struct {
	tamper       []string
	collected    []string
	haveCollect  bool
	collectErrs  []wireEvent
	internal     []string
	done         *wireEvent
	byName       map[string]wireEvent
	order        []string // tests in the order of their reports
	lastStarted  string
	exitCode     int
	hasExitEvent bool
	outputLimit  bool
}

// readEvents sorts a run's events; two reports for one test are tampering.
func readEvents(events []wireEvent) runEvents {
	r := runEvents{byName: map[string]wireEvent{}, exitCode: -1}
	for i := range events {
		ev := events[i]
		switch ev.T {
		case "collected":
			r.collected = ev.Names
			r.haveCollect = true
		case "collect_error":
			r.collectErrs = append(r.collectErrs, ev)
		case "test":
			if _, ok := r.byName[ev.Name]; !ok {
				r.order = append(r.order, ev.Name)
			} else {
				r.tamper = append(r.tamper, "two reports for "+testName(ev.Name))
			}
			r.byName[ev.Name] = ev
			r.lastStarted = ev.Name
		case "internal":
			r.internal = append(r.internal, ev.Text)
		case "done":
			r.done = &events[i]
			if ev.Exit != nil {
				r.exitCode = *ev.Exit
				r.hasExitEvent = true
			}
			r.outputLimit = ev.OutputLimit
		}
	}
	return r
}

// names returns the run's tests: those pytest collected, or those it
// reported when it did not finish collecting. A report of a test that was
// not collected is tampering, added to r.tamper.
func (r *runEvents) names() []string {
	if !r.haveCollect {
		return r.order
	}
	seen := map[string]bool{}
	for _, n := range r.collected {
		seen[n] = true
	}
	for _, n := range r.order {
		if !seen[n] {
			r.tamper = append(r.tamper, "a report for "+testName(n)+", which pytest did not collect")
		}
	}
	return r.collected
}

// buildExecution turns a worker's response to a run into an Execution. exp
// holds the test ids the test file collects without a program; a run whose
// events show tampering (reports of tests that were not collected, two
// reports of one test, a collection that differs from exp: a program that
// added tests through the test file's star import) gets StatusTamper.
func buildExecution(resp wireResponse, o Options, exp expectation) corpus.Execution {
	r := readEvents(resp.Events)
	names := r.names()
	if exp.known && r.haveCollect && len(r.collectErrs) == 0 && !sameIDs(r.collected, exp.ids) {
		r.tamper = append(r.tamper, "the collected tests differ from the test file's own collection: "+idDifference(r.collected, exp.ids))
	}
	if len(r.tamper) > 0 {
		if exp.known {
			names = exp.ids
		}
		return tamperExecution(names, r.tamper, resp.WallMS, o)
	}
	status, head := runStatus(resp, o, &r, names)
	ex := corpus.Execution{Status: status, DurationMS: resp.WallMS, CPUMS: resp.CPUMS}
	if o.phases || programLimit(kindRun, o) > 0 {
		// The program process's CPU, read by the worker from outside: for
		// references (RunOptions.SplitCPU) and runs with a budget, as before.
		ex.ProgramCPUMS = resp.ProgramCPUMS
	}
	if o.ownCPU && r.done != nil {
		ex.ProgramOwnCPUMS = min(r.done.ProgramOwnMS, ex.ProgramCPUMS)
	}
	ex.Tests = testResults(names, r.byName, status, o.Coverage)
	passed := 0
	for _, tr := range ex.Tests {
		if tr.Passed {
			passed++
		}
	}
	if len(ex.Tests) > 0 {
		ex.PassRate = float64(passed) / float64(len(ex.Tests))
		ex.FailedFrac = float64(len(ex.Tests)-passed) / float64(len(ex.Tests))
	} else {
		ex.FailedFrac = 1
	}
	ex.Feedback = truncateFeedback(feedback(head, r.collectErrs, names, r.byName, passed), o.FeedbackChars)
	return ex
}

// limitText says which limit a run that timed out went over.
func limitText(resp wireResponse, o Options) string {
	if resp.TimeoutKind == "program" {
		return fmt.Sprintf("the program's own code (its import and the test bodies) used more than %v of CPU time", programLimit(kindRun, o))
	}
	if resp.TimeoutKind == "cpu" || (resp.TimeoutKind == "" && o.CPULimit > 0 && resp.CPUMS >= float64(o.CPULimit)/1e6) {
		return fmt.Sprintf("the run used more than %v of CPU time (the program's import and tests, with pytest's collection and reports)", o.CPULimit)
	}
	if o.CPULimit > 0 {
		return fmt.Sprintf("the tests did not finish within the wall-clock backstop of %v (used %.0f ms of the %v CPU limit: sleeping or blocked)", o.Timeout, resp.CPUMS, o.CPULimit)
	}
	return fmt.Sprintf("the tests did not finish within %v", o.Timeout)
}

// runStatus decides the status of a run without tampering and the head
// line of its feedback.
func runStatus(resp wireResponse, o Options, r *runEvents, names []string) (corpus.Status, string) {
	running := ""
	if next := nextUnfinished(names, r.byName); next != "" {
		running = fmt.Sprintf(" (running %s)", testName(next))
	}
	switch {
	case resp.Signal != nil && syscall.Signal(*resp.Signal) == syscall.SIGXCPU:
		return corpus.StatusTimeout, fmt.Sprintf("TIMEOUT: the tests used more than %d s of CPU time (a process's rlimit)", rlimitCPU(o)) + running
	case resp.TimedOut:
		return corpus.StatusTimeout, "TIMEOUT: " + limitText(resp, o) + running
	case r.outputLimit || resp.Overflow:
		return corpus.StatusOutput, fmt.Sprintf("OUTPUT LIMIT: the program wrote more than %d bytes", o.OutputBytes)
	case r.done == nil:
		head := "CRASH: the test process died " + describeExit(resp)
		if !r.haveCollect {
			head += " while importing the tests or solution.py"
		} else if running != "" {
			head += " while running " + testName(nextUnfinished(names, r.byName))
		} else if r.lastStarted != "" {
			head += " after " + testName(r.lastStarted)
		}
		return corpus.StatusCrash, head
	case len(r.collectErrs) > 0:
		return corpus.StatusLoadError, "ERROR collecting test_solution.py (solution.py or the tests failed to import)"
	case !r.hasExitEvent || (r.exitCode != 0 && r.exitCode != 1 && r.exitCode != 5):
		head := fmt.Sprintf("CRASH: pytest stopped early (exit code %d)", r.exitCode)
		if len(r.internal) > 0 {
			head += ": " + strings.Join(r.internal, "; ")
		}
		return corpus.StatusCrash, head
	}
	return corpus.StatusOK, ""
}

// testResults gives each test its verdict; a test passes only in a run of
// status ok.
func testResults(names []string, byName map[string]wireEvent, status corpus.Status, coverage bool) []corpus.TestResult {
	out := make([]corpus.TestResult, 0, len(names))
	for _, n := range names {
		ev, ran := byName[n]
		tr := corpus.TestResult{Name: testName(n)}
		if ran {
			tr.Passed = ev.Passed && status == corpus.StatusOK
			tr.DurationMS = ev.DurMS
			tr.Message = ev.Msg
			if coverage {
				tr.Lines = ev.Lines
				if tr.Lines == nil {
					tr.Lines = []int32{}
				}
			}
		} else {
			tr.Message = "not run: " + string(status)
		}
		out = append(out, tr)
	}
	return out
}

// feedback writes pytest-style text: the head line, collection errors, a
// short summary of the failing tests, their tracebacks and the counts.
func feedback(head string, collectErrs []wireEvent, names []string, byName map[string]wireEvent, passed int) string {
	var b strings.Builder
	if head != "" {
		b.WriteString(head)
		b.WriteString("\n")
	}
	for _, ce := range collectErrs {
		b.WriteString(sectionTitle("ERROR collecting " + ce.NodeID))
		b.WriteString(strings.TrimRight(ce.Text, "\n"))
		b.WriteString("\n")
	}
	var failing []wireEvent
	for _, n := range names {
		if ev, ok := byName[n]; ok && !ev.Passed {
			failing = append(failing, ev)
		}
	}
	if len(failing) > 0 {
		b.WriteString("short test summary:\n")
		for _, ev := range failing {
			line := "FAILED " + testName(ev.Name)
			if ev.Msg != "" {
				line += " - " + firstLine(ev.Msg)
			}
			b.WriteString(line + "\n")
		}
		for _, ev := range failing {
			if strings.TrimSpace(ev.Text) == "" {
				continue
			}
			b.WriteString(sectionTitle(testName(ev.Name)))
			b.WriteString(strings.TrimRight(ev.Text, "\n"))
			b.WriteString("\n")
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(&b, "%d passed, %d failed of %d tests\n", passed, len(names)-passed, len(names))
	}
	return b.String()
}

// nextUnfinished returns the first collected test that has no report.
func nextUnfinished(names []string, byName map[string]wireEvent) string {
	for _, n := range names {
		if _, ok := byName[n]; !ok {
			return n
		}
	}
	return ""
}

func describeExit(resp wireResponse) string {
	switch {
	case resp.Signal != nil && resp.memoryKilled > 0:
		return fmt.Sprintf("(killed by signal %d, %v: its processes held %d MiB, over the memory limit)", *resp.Signal, syscall.Signal(*resp.Signal), resp.memoryKilled>>20)
	case resp.Signal != nil:
		sig := syscall.Signal(*resp.Signal)
		return fmt.Sprintf("(killed by signal %d, %v)", *resp.Signal, sig)
	case resp.Exit != nil:
		return fmt.Sprintf("(exit code %d)", *resp.Exit)
	}
	return ""
}

func sectionTitle(s string) string {
	pad := 70 - len(s) - 2
	if pad < 8 {
		pad = 8
	}
	left := strings.Repeat("_", pad/2)
	return left + " " + s + " " + strings.Repeat("_", pad-pad/2) + "\n"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// truncateFeedback keeps the head of s within max characters (runes) and
// says how much was cut.
func truncateFeedback(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	total := utf8.RuneCountInString(s)
	note := fmt.Sprintf("\n[feedback truncated: first %d of %d characters shown]\n", max, total)
	keep := max - utf8.RuneCountInString(note)
	if keep < 0 {
		keep = 0
	}
	note = fmt.Sprintf("\n[feedback truncated: first %d of %d characters shown]\n", keep, total)
	i, n := 0, 0
	for i < len(s) && n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s[:i] + note
}
