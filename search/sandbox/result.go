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

// buildExecution turns a worker's response to a run into an Execution. exp
// holds the test ids the test file collects without a program; a run whose
// events show tampering (refusals of the audit hook, findings of the static
// check, forged lines, reports of tests that were not collected, a
// collection that differs from exp) gets StatusTamper.
func buildExecution(resp wireResponse, o Options, exp expectation) corpus.Execution {
	var (
		tamper       []string
		collected    []string
		collectErrs  []wireEvent
		internal     []string
		done         *wireEvent
		byName       = map[string]wireEvent{}
		order        []string
		outputLimit  bool
		haveCollect  bool
		lastStarted  string
		exitCode     = -1
		hasExitEvent bool
	)
	for i := range resp.Events {
		ev := resp.Events[i]
		switch ev.T {
		case "collected":
			collected = ev.Names
			haveCollect = true
		case "collect_error":
			collectErrs = append(collectErrs, ev)
		case "test":
			if _, ok := byName[ev.Name]; !ok {
				order = append(order, ev.Name)
			} else {
				tamper = append(tamper, "two reports for "+testName(ev.Name))
			}
			byName[ev.Name] = ev
			lastStarted = ev.Name
		case "tamper":
			tamper = append(tamper, ev.Why)
		case "internal":
			internal = append(internal, ev.Text)
		case "done":
			done = &resp.Events[i]
			if ev.Exit != nil {
				exitCode = *ev.Exit
				hasExitEvent = true
			}
			outputLimit = ev.OutputLimit
		}
	}
	names := collected
	if !haveCollect {
		names = order
	} else {
		seen := map[string]bool{}
		for _, n := range names {
			seen[n] = true
		}
		for _, n := range order {
			if !seen[n] {
				tamper = append(tamper, "a report for "+testName(n)+", which pytest did not collect")
			}
		}
	}
	if resp.Forged > 0 {
		tamper = append(tamper, fmt.Sprintf("%d forged line(s) on the result channel (first: %q)", resp.Forged, clip(resp.ForgedSample, 120)))
	}
	if exp.known && haveCollect && len(collectErrs) == 0 && !sameIDs(collected, exp.ids) {
		tamper = append(tamper, "the collected tests differ from the test file's own collection: "+idDifference(collected, exp.ids))
	}
	if len(tamper) > 0 {
		if exp.known {
			names = exp.ids
		}
		return tamperExecution(names, tamper, resp.WallMS, o)
	}
	var status corpus.Status
	var head string
	cpuLimit := resp.Signal != nil && syscall.Signal(*resp.Signal) == syscall.SIGXCPU
	switch {
	case cpuLimit:
		status = corpus.StatusTimeout
		head = fmt.Sprintf("TIMEOUT: the tests used more than %v of CPU time", o.Timeout)
		if next := nextUnfinished(names, byName); next != "" {
			head += fmt.Sprintf(" (running %s)", testName(next))
		}
	case resp.TimedOut:
		status = corpus.StatusTimeout
		head = fmt.Sprintf("TIMEOUT: the tests did not finish within %v", o.Timeout)
		if next := nextUnfinished(names, byName); next != "" {
			head += fmt.Sprintf(" (running %s)", testName(next))
		}
	case outputLimit || resp.Overflow:
		status = corpus.StatusOutput
		head = fmt.Sprintf("OUTPUT LIMIT: the program wrote more than %d bytes", o.OutputBytes)
	case done == nil:
		status = corpus.StatusCrash
		head = "CRASH: the test process died " + describeExit(resp)
		if !haveCollect {
			head += " while importing the tests or solution.py"
		} else if next := nextUnfinished(names, byName); next != "" {
			head += " while running " + testName(next)
		} else if lastStarted != "" {
			head += " after " + testName(lastStarted)
		}
	case len(collectErrs) > 0:
		status = corpus.StatusLoadError
		head = "ERROR collecting test_solution.py (solution.py or the tests failed to import)"
	case !hasExitEvent || (exitCode != 0 && exitCode != 1 && exitCode != 5):
		status = corpus.StatusCrash
		head = fmt.Sprintf("CRASH: pytest stopped early (exit code %d)", exitCode)
		if len(internal) > 0 {
			head += ": " + strings.Join(internal, "; ")
		}
	default:
		status = corpus.StatusOK
	}

	ex := corpus.Execution{Status: status, Tests: make([]corpus.TestResult, 0, len(names)), DurationMS: resp.WallMS}
	passed := 0
	for _, n := range names {
		ev, ran := byName[n]
		tr := corpus.TestResult{Name: testName(n)}
		if ran {
			tr.Passed = ev.Passed && status == corpus.StatusOK
			tr.DurationMS = ev.DurMS
			tr.Message = ev.Msg
			if o.Coverage {
				tr.Lines = ev.Lines
				if tr.Lines == nil {
					tr.Lines = []int32{}
				}
			}
		} else {
			tr.Message = "not run: " + string(status)
		}
		if tr.Passed {
			passed++
		}
		ex.Tests = append(ex.Tests, tr)
	}
	if len(ex.Tests) > 0 {
		ex.PassRate = float64(passed) / float64(len(ex.Tests))
		ex.FailedFrac = float64(len(ex.Tests)-passed) / float64(len(ex.Tests))
	} else {
		ex.FailedFrac = 1
	}

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
	ex.Feedback = truncateFeedback(b.String(), o.FeedbackChars)
	return ex
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
