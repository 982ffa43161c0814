package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// Status is the outcome class of one test-suite run.
type Status string

// Run statuses. Only StatusOK means pytest ran to completion; the others say
// why it did not, and every test of such a run counts as failed.
const (
	StatusOK        Status = "ok"         // pytest ran every collected test
	StatusLoadError Status = "load_error" // solution.py or the tests failed to import/collect
	StatusTimeout   Status = "timeout"    // wall or CPU limit hit
	StatusCrash     Status = "crash"      // the worker died (signal, os._exit, memory limit)
	StatusOutput    Status = "output_limit"
	// StatusTamper: the run's verdicts cannot be trusted. The program reached
	// for the harness (refused by the sandbox's audit hook or found by its
	// static check), forged or added test reports, or passed under pytest but
	// not under the independent re-check (or the re-check could not check
	// the test file); every test counts as failed and Feedback gives the reason.
	StatusTamper Status = "tamper"
)

// TestResult is the verdict of one pytest test (one parametrized case counts as one test).
type TestResult struct {
	Name       string  `json:"name"`
	Passed     bool    `json:"passed"`
	DurationMS float64 `json:"duration_ms"`
	Message    string  `json:"message,omitempty"`
	// Lines lists the lines of solution.py that this test executed, ascending,
	// when the executor was asked for coverage; nil otherwise.
	Lines []int32 `json:"lines,omitempty"`
}

// Execution is the result of running a program against its test file.
type Execution struct {
	Status     Status       `json:"status"`
	Tests      []TestResult `json:"tests"`
	PassRate   float64      `json:"pass_rate"`   // passed / total; 0 when nothing ran
	FailedFrac float64      `json:"failed_frac"` // failed / total; 1 when nothing ran
	// Feedback is pytest-style text (failing tests, assertion messages with the
	// compared values, tracebacks), truncated by the executor.
	Feedback   string  `json:"feedback"`
	DurationMS float64 `json:"duration_ms"`
	// CPUMS is the CPU time the run spent from the start of collection on
	// (the program's import, collection, the tests and their reports: what
	// a CPU limit counts), when the executor measures it; zero otherwise.
	// Not stored in the corpus's rows.
	CPUMS float64 `json:"cpu_ms,omitempty"`
	// ProgramCPUMS is the part of CPUMS spent in the program's import and
	// the calls into it (the sandbox's program process), when the run was asked for it (RunOptions.SplitCPU)
	// and the executor measures it; zero otherwise. Not stored in the rows.
	ProgramCPUMS float64 `json:"program_cpu_ms,omitempty"`
	// ProgramOwnCPUMS is the part of ProgramCPUMS spent in the program's
	// own code (its import and the calls' bodies, not the decoding and
	// encoding of what crosses to the tests), as the program's process
	// counts it itself: a trusted reference's figure (RunOptions.SplitCPU),
	// never a limit's. Zero where not measured. Not stored in the rows.
	ProgramOwnCPUMS float64 `json:"program_own_cpu_ms,omitempty"`
}

// Solved reports whether every test passed.
func (e Execution) Solved() bool {
	return e.Status == StatusOK && len(e.Tests) > 0 && e.PassRate == 1
}

// Executor runs a program, saved as solution.py, against a pytest file saved as
// test_solution.py. A failing, crashing or hanging program is data in the
// Execution; error is for cancellation and broken infrastructure only.
// Implementations do not keep or modify their arguments and are safe for
// concurrent use.
type Executor interface {
	Run(ctx context.Context, program, tests string) (Execution, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, program, tests string) (Execution, error)

// Run calls f.
func (f ExecutorFunc) Run(ctx context.Context, program, tests string) (Execution, error) {
	return f(ctx, program, tests)
}

// ProposedEdit is one edit a proposer suggests for a program: Text is what a
// model reads (where, what, why); Payload is proposer-private data that lets the
// same proposer apply the edit later (a serialized mutation, or the raw
// structured edit of an LLM). Both are stored in corpora.
type ProposedEdit struct {
	Text    string `json:"text"`
	Payload string `json:"payload,omitempty"`
	// Score is the proposer's own confidence in the edit as a
	// log-probability, where the proposer has one: mutate's log share of the
	// ordering weight it sampled the edit by, an LLM's mean token
	// log-probability of the edit's text. Scales differ between proposers, so
	// readers compare it among siblings; nil when the proposer gives none.
	Score *float64 `json:"score,omitempty"`
}

// Equal reports whether e and o are the same edit: text, payload and
// score (by value; both absent counts as equal).
func (e ProposedEdit) Equal(o ProposedEdit) bool {
	if e.Text != o.Text || e.Payload != o.Payload || (e.Score == nil) != (o.Score == nil) {
		return false
	}
	return e.Score == nil || *e.Score == *o.Score
}

// ProposeRequest asks for a diagnosis and K edits of one program.
type ProposeRequest struct {
	Task    *Task
	Program string
	Exec    Execution
	K       int
	// Key identifies the node deterministically (tree id and path); seeded
	// proposers derive their randomness from it so rebuilt trees are identical.
	Key string
}

// Proposal is a proposer's answer. A proposer whose output could not be parsed
// returns Failed with the raw text kept and fewer (possibly zero) edits.
type Proposal struct {
	Diagnosis    string         `json:"diagnosis"`
	Edits        []ProposedEdit `json:"edits"`
	OutputTokens int            `json:"output_tokens"`
	// TokensEstimated is true when OutputTokens is an estimate rather than a
	// count by the model's tokenizer or the server's usage report.
	TokensEstimated bool   `json:"tokens_estimated,omitempty"`
	Failed          bool   `json:"failed,omitempty"`
	Raw             string `json:"raw,omitempty"`
}

// ReviseRequest asks for the program that results from applying one edit.
type ReviseRequest struct {
	Task      *Task
	Program   string
	Exec      Execution
	Diagnosis string
	Edit      ProposedEdit
	Key       string
}

// Revision is the revised program. Failed marks output that held no program;
// the caller then keeps Program empty and records Raw.
type Revision struct {
	Program         string `json:"program"`
	OutputTokens    int    `json:"output_tokens"`
	TokensEstimated bool   `json:"tokens_estimated,omitempty"`
	Failed          bool   `json:"failed,omitempty"`
	Raw             string `json:"raw,omitempty"`
}

// Proposer diagnoses a program and proposes edits (Propose), and writes the
// revised program for one chosen edit (Revise). Malformed model output is data
// (Failed), never an error; error is for cancellation and infrastructure.
// Implementations are safe for concurrent use and do not keep their arguments.
type Proposer interface {
	Propose(ctx context.Context, req ProposeRequest) (Proposal, error)
	Revise(ctx context.Context, req ReviseRequest) (Revision, error)
}

// SHA256 returns the hex sha256 of s; programs are identified by it.
func SHA256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
