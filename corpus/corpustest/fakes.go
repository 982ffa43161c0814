// Package corpustest holds the deterministic fakes the tests of corpus
// and its subpackages build trees with: a proposer and an executor whose
// answers follow from hashes of their inputs, tasks and a root maker.
//
// Imports: corpus.
package corpustest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"triage/corpus"
)

// FakeProposer is deterministic in the request key: edit i of a node appends
// a line derived from sha256(key); some edits are no-ops (same program, so a
// cache hit), some revisions fail, some proposals are marked failed.
type FakeProposer struct {
	Delay     time.Duration // per Propose call, to make builds slow
	FailTask  string        // Propose returns an infrastructure error for this task
	NoFails   bool          // no failed revisions or proposals
	proposals atomic.Int64
}

// ErrFakeDown is the infrastructure error of FakeProposer.FailTask.
var ErrFakeDown = errors.New("fake proposer: connection refused")

// Propose proposes K edits, deterministic in the request key.
func (p *FakeProposer) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	if p.Delay > 0 {
		select {
		case <-time.After(p.Delay):
		case <-ctx.Done():
			return corpus.Proposal{}, ctx.Err()
		}
	}
	if req.Task.ID == p.FailTask {
		return corpus.Proposal{}, ErrFakeDown
	}
	p.proposals.Add(1)
	h := corpus.SHA256(req.Key)
	prop := corpus.Proposal{Diagnosis: "diagnosis of " + req.Key + ": " + req.Exec.Feedback, OutputTokens: 20 + int(h[8]%16),
		TokensEstimated: true}
	for i := 0; i < req.K; i++ {
		var payload string
		switch c := h[i]; {
		case c == '0':
			payload = "" // no-op: the same program again
		case c == '1' && !p.NoFails:
			payload = "FAIL"
		default:
			payload = "x" + h[10+2*i:12+2*i] + " = " + fmt.Sprint(i)
		}
		ed := corpus.ProposedEdit{Text: fmt.Sprintf("edit %d: append %q", i, payload), Payload: payload}
		if i%2 == 0 { // a score on some edits, none on others, as proposers may give
			score := -float64(h[i]%7) / 3
			ed.Score = &score
		}
		prop.Edits = append(prop.Edits, ed)
	}
	if h[4] == 'f' && !p.NoFails {
		prop.Failed = true
		prop.Raw = "unparseable: " + h[:12]
		prop.Edits = prop.Edits[:1]
	}
	return prop, nil
}

// Revise appends the edit's payload to the program ("FAIL": a failed
// revision).
func (p *FakeProposer) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	if req.Edit.Payload == "FAIL" {
		return corpus.Revision{Failed: true, Raw: "no code block", OutputTokens: 7}, nil
	}
	prog := req.Program
	if req.Edit.Payload != "" {
		prog += req.Edit.Payload + "\n"
	}
	return corpus.Revision{Program: prog, OutputTokens: 5 + len(req.Edit.Payload)}, nil
}

// FakeExecutor decides 4 test verdicts from sha256(program); about three
// programs in sixteen pass everything. Programs containing "NEVER" never
// pass; FakeReference always passes, and other one-line programs (the
// roots of FakeTasks and FakeRoots) never do, so every fake task passes the
// input checks.
type FakeExecutor struct {
	calls atomic.Int64
	Fail  bool // return an infrastructure error
}

// Run decides the verdicts of program from its hash.
func (x *FakeExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	if err := ctx.Err(); err != nil {
		return corpus.Execution{}, err
	}
	if x.Fail {
		return corpus.Execution{}, errors.New("fake executor: sandbox broken")
	}
	x.calls.Add(1)
	h := corpus.SHA256(program + tests)
	if strings.Contains(program, "SYNTAX") {
		return corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "SyntaxError"}, nil
	}
	passed := int(h[0]) % 4
	if h[1] < '3' && !strings.Contains(program, "NEVER") && strings.Count(program, "\n") > 1 {
		passed = 4
	}
	if program == FakeReference {
		passed = 4
	}
	ex := corpus.Execution{Status: corpus.StatusOK, DurationMS: float64(h[2] % 16)}
	var fb strings.Builder
	for i := 0; i < 4; i++ {
		ok := i < passed
		tr := corpus.TestResult{Name: fmt.Sprintf("test_%d", i), Passed: ok, DurationMS: float64(i)}
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

// FakeReference is the reference solution of every fake task.
const FakeReference = "def f(x): return x*x\n"

// FakeTasks are n tasks with FakeReference as their reference; two in three
// ship roots, the others get them from FakeRoots.
func FakeTasks(n int) []corpus.Task {
	tasks := make([]corpus.Task, n)
	for i := range tasks {
		tasks[i] = corpus.Task{ID: fmt.Sprintf("task-%03d", i), Question: "q", Solution: FakeReference,
			Test: fmt.Sprintf("from solution import f\n# %d\n", i)}
		if i%3 != 2 { // the others get roots from the root maker
			tasks[i].Roots = []string{fmt.Sprintf("def f(x): return x+%d\n", i), fmt.Sprintf("def f(x): return x-%d\n", i),
				"def f(x): return x\n"}
		}
	}
	return tasks
}

// FakeRoots makes n roots from the task id and seed.
func FakeRoots(ctx context.Context, task *corpus.Task, exec corpus.Executor, n int, seed uint64) ([]string, error) {
	var roots []string
	for i := 0; i < n; i++ {
		roots = append(roots, fmt.Sprintf("def f(x): return x*%d  # %s %d\n", i+2, task.ID, seed%1000))
	}
	return roots, nil
}

// Proposals counts the Propose calls that proposed.
func (p *FakeProposer) Proposals() int64 { return p.proposals.Load() }

// Calls counts the runs.
func (x *FakeExecutor) Calls() int64 { return x.calls.Load() }
