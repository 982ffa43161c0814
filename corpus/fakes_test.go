package corpus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// fakeProposer is deterministic in the request key: edit i of a node appends
// a line derived from sha256(key); some edits are no-ops (same program, so a
// cache hit), some revisions fail, some proposals are marked failed.
type fakeProposer struct {
	delay     time.Duration // per Propose call, to make builds slow
	failTask  string        // Propose returns an infrastructure error for this task
	noFails   bool          // no failed revisions or proposals
	proposals atomic.Int64
}

var errFakeDown = errors.New("fake proposer: connection refused")

func (p *fakeProposer) Propose(ctx context.Context, req ProposeRequest) (Proposal, error) {
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-ctx.Done():
			return Proposal{}, ctx.Err()
		}
	}
	if req.Task.ID == p.failTask {
		return Proposal{}, errFakeDown
	}
	p.proposals.Add(1)
	h := SHA256(req.Key)
	prop := Proposal{Diagnosis: "diagnosis of " + req.Key + ": " + req.Exec.Feedback, OutputTokens: 20 + int(h[8]%16),
		TokensEstimated: true}
	for i := 0; i < req.K; i++ {
		var payload string
		switch c := h[i]; {
		case c == '0':
			payload = "" // no-op: the same program again
		case c == '1' && !p.noFails:
			payload = "FAIL"
		default:
			payload = "x" + h[10+2*i:12+2*i] + " = " + fmt.Sprint(i)
		}
		ed := ProposedEdit{Text: fmt.Sprintf("edit %d: append %q", i, payload), Payload: payload}
		if i%2 == 0 { // a score on some edits, none on others, as proposers may give
			score := -float64(h[i]%7) / 3
			ed.Score = &score
		}
		prop.Edits = append(prop.Edits, ed)
	}
	if h[4] == 'f' && !p.noFails {
		prop.Failed = true
		prop.Raw = "unparseable: " + h[:12]
		prop.Edits = prop.Edits[:1]
	}
	return prop, nil
}

func (p *fakeProposer) Revise(ctx context.Context, req ReviseRequest) (Revision, error) {
	if req.Edit.Payload == "FAIL" {
		return Revision{Failed: true, Raw: "no code block", OutputTokens: 7}, nil
	}
	prog := req.Program
	if req.Edit.Payload != "" {
		prog += req.Edit.Payload + "\n"
	}
	return Revision{Program: prog, OutputTokens: 5 + len(req.Edit.Payload)}, nil
}

// fakeExecutor decides 4 test verdicts from sha256(program); about three
// programs in sixteen pass everything. Programs containing "NEVER" never
// pass; fakeReference always passes, and other one-line programs (the
// roots of fakeTasks and fakeRoots) never do, so every fake task passes the
// input checks.
type fakeExecutor struct {
	calls atomic.Int64
	fail  bool // return an infrastructure error
}

func (x *fakeExecutor) Run(ctx context.Context, program, tests string) (Execution, error) {
	if err := ctx.Err(); err != nil {
		return Execution{}, err
	}
	if x.fail {
		return Execution{}, errors.New("fake executor: sandbox broken")
	}
	x.calls.Add(1)
	h := SHA256(program + tests)
	if strings.Contains(program, "SYNTAX") {
		return Execution{Status: StatusLoadError, FailedFrac: 1, Feedback: "SyntaxError"}, nil
	}
	passed := int(h[0]) % 4
	if h[1] < '3' && !strings.Contains(program, "NEVER") && strings.Count(program, "\n") > 1 {
		passed = 4
	}
	if program == fakeReference {
		passed = 4
	}
	ex := Execution{Status: StatusOK, DurationMS: float64(h[2] % 16)}
	var fb strings.Builder
	for i := 0; i < 4; i++ {
		ok := i < passed
		tr := TestResult{Name: fmt.Sprintf("test_%d", i), Passed: ok, DurationMS: float64(i)}
		if !ok {
			tr.Message = fmt.Sprintf("assert f(%d) == %d", i, i*i)
			fmt.Fprintf(&fb, "FAILED test_%d: %s\n", i, tr.Message)
		}
		if i == 0 {
			tr.Lines = []int32{1, 2, int32(3 + h[3]%4)}
		}
		ex.Tests = append(ex.Tests, tr)
	}
	ex.PassRate = float64(passed) / 4
	ex.FailedFrac = 1 - ex.PassRate
	ex.Feedback = fb.String()
	return ex, nil
}

// fakeReference is the reference solution of every fake task.
const fakeReference = "def f(x): return x*x\n"

func fakeTasks(n int) []Task {
	tasks := make([]Task, n)
	for i := range tasks {
		tasks[i] = Task{ID: fmt.Sprintf("task-%03d", i), Question: "q", Solution: fakeReference,
			Test: fmt.Sprintf("from solution import f\n# %d\n", i)}
		if i%3 != 2 { // the others get roots from the root maker
			tasks[i].Roots = []string{fmt.Sprintf("def f(x): return x+%d\n", i), fmt.Sprintf("def f(x): return x-%d\n", i),
				"def f(x): return x\n"}
		}
	}
	return tasks
}

// fakeRoots makes n roots from the task id and seed.
func fakeRoots(ctx context.Context, task *Task, exec Executor, n int, seed uint64) ([]string, error) {
	var roots []string
	for i := 0; i < n; i++ {
		roots = append(roots, fmt.Sprintf("def f(x): return x*%d  # %s %d\n", i+2, task.ID, seed%1000))
	}
	return roots, nil
}

func fakeConfig(p *fakeProposer, x *fakeExecutor) BuildConfig {
	return BuildConfig{K: 3, D: 3, Proposer: p, Executor: x, ProposerName: "fake", Model: "fake-model"}
}
