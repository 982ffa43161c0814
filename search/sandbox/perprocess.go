package sandbox

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"triage/corpus"
)

// PerProcess runs `python3 -m pytest` in a fresh process and temp dir per
// run and reads the verdicts from its JUnit XML report. It has no isolation
// beyond a process group killed on timeout: it is the reference that the
// Pool's verdicts are compared with (parity tests, `triage bench sandbox`).
type PerProcess struct {
	// Python is the interpreter with pytest (default /usr/bin/python3).
	Python string
	// Timeout is the wall-clock limit of one run (default 10s).
	Timeout time.Duration
	// FeedbackChars truncates the feedback (pytest's own output; default 4000).
	FeedbackChars int
}

// Run implements corpus.Executor.
func (pp PerProcess) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	python := pp.Python
	if python == "" {
		python = "/usr/bin/python3"
	}
	timeout := pp.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	fb := pp.FeedbackChars
	if fb <= 0 {
		fb = 4000
	}
	dir, err := os.MkdirTemp("", "triage-pytest-")
	if err != nil {
		return corpus.Execution{}, fmt.Errorf("pytest temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "solution.py"), []byte(program), 0o644); err != nil {
		return corpus.Execution{}, fmt.Errorf("write solution: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test_solution.py"), []byte(tests), 0o644); err != nil {
		return corpus.Execution{}, fmt.Errorf("write tests: %w", err)
	}
	report := filepath.Join(dir, "report.xml")
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short",
		"--junitxml="+report, "test_solution.py")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + dir, "TMPDIR=" + dir, "PYTHONHASHSEED=" + pythonHashSeed}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out := &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	start := time.Now()
	runErr := cmd.Run()
	ms := float64(time.Since(start).Microseconds()) / 1000
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // daemons left in the group
	}
	if ctx.Err() != nil {
		return corpus.Execution{}, ctx.Err()
	}
	if rctx.Err() != nil {
		return failedExecution(corpus.StatusTimeout, "TIMEOUT", ms), nil
	}
	code := 0
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return corpus.Execution{}, fmt.Errorf("run pytest: %w", runErr)
		}
		code = ee.ExitCode()
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return failedExecution(corpus.StatusCrash, truncateFeedback(out.String(), fb), ms), nil
	}
	return junitExecution(data, code, truncateFeedback(out.String(), fb), ms), nil
}

// junitExecution is the execution pytest's JUnit report data says, with its
// exit code, output and wall time.
func junitExecution(data []byte, code int, feedback string, ms float64) corpus.Execution {
	cases, collectErr, err := ParseJUnit(data)
	if err != nil {
		return failedExecution(corpus.StatusCrash, "unreadable junit report: "+err.Error(), ms)
	}
	status := corpus.StatusOK
	switch {
	case collectErr:
		status = corpus.StatusLoadError
	case code != 0 && code != 1 && code != 5:
		status = corpus.StatusCrash
	}
	ex := corpus.Execution{Status: status, Tests: make([]corpus.TestResult, 0, len(cases)), DurationMS: ms,
		Feedback: feedback}
	passed := 0
	for _, c := range cases {
		tr := corpus.TestResult{Name: c.Name, Passed: c.Passed && status == corpus.StatusOK, DurationMS: c.Seconds * 1000, Message: c.Message}
		if tr.Passed {
			passed++
		}
		ex.Tests = append(ex.Tests, tr)
	}
	if len(ex.Tests) > 0 {
		ex.PassRate = float64(passed) / float64(len(ex.Tests))
		ex.FailedFrac = 1 - ex.PassRate
	} else {
		ex.FailedFrac = 1
	}
	return ex
}

// JUnitCase is one test case of a pytest JUnit XML report, named as the
// Pool names tests ("test_x[1-2]", "TestCls::test_y").
type JUnitCase struct {
	Name    string
	Passed  bool
	Seconds float64
	Message string
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failures  []junitResult `xml:"failure"`
	Errors    []junitResult `xml:"error"`
	Skipped   []junitResult `xml:"skipped"`
}

type junitSuite struct {
	Cases []junitCase `xml:"testcase"`
}

type junitDoc struct {
	XMLName xml.Name
	Suites  []junitSuite `xml:"testsuite"`
	Cases   []junitCase  `xml:"testcase"`
}

// ParseJUnit reads a pytest JUnit XML report (root <testsuites> or
// <testsuite>). collectErr reports a collection error of test_solution.py.
// A test passed when it has no failure, error or skipped element.
func ParseJUnit(data []byte) (cases []JUnitCase, collectErr bool, err error) {
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, false, fmt.Errorf("parse junit xml: %w", err)
	}
	var raw []junitCase
	switch doc.XMLName.Local {
	case "testsuites":
		for _, s := range doc.Suites {
			raw = append(raw, s.Cases...)
		}
	case "testsuite":
		raw = doc.Cases
	default:
		return nil, false, fmt.Errorf("parse junit xml: unexpected root <%s>", doc.XMLName.Local)
	}
	for _, c := range raw {
		if c.ClassName == "" && len(c.Errors) > 0 && (c.Name == "test_solution" || strings.HasPrefix(c.Name, "test_solution")) {
			collectErr = true
			continue
		}
		jc := JUnitCase{Name: junitName(c.ClassName, c.Name)}
		jc.Seconds, _ = strconv.ParseFloat(c.Time, 64)
		jc.Passed = len(c.Failures) == 0 && len(c.Errors) == 0 && len(c.Skipped) == 0
		for _, group := range [][]junitResult{c.Failures, c.Errors, c.Skipped} {
			if len(group) > 0 && jc.Message == "" {
				jc.Message = group[0].Message
			}
		}
		cases = append(cases, jc)
	}
	return cases, collectErr, nil
}

// junitName maps JUnit's classname/name back to the node id without the
// file: classname "test_solution.TestX" + "test_y" → "TestX::test_y".
func junitName(classname, name string) string {
	rest := strings.TrimPrefix(classname, "test_solution")
	rest = strings.TrimPrefix(rest, ".")
	if rest == "" {
		return name
	}
	return strings.ReplaceAll(rest, ".", "::") + "::" + name
}
