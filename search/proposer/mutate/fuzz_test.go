package mutate

import (
	"context"
	"testing"

	"triage/corpus"
)

// FuzzDiagnose feeds arbitrary test messages and feedback (outside input:
// pytest output of arbitrary programs) through the failure parser, the
// diagnosis and a proposal: nothing panics and every edit applies.
func FuzzDiagnose(f *testing.F) {
	f.Add("assert [1, 2] == [1]\n+  where [1, 2] = f(1)", "___ t ___\nsolution.py:3: in f\nE   IndexError: x\n", binSearch)
	f.Add("IndexError: list index out of range", "solution.py:99999999999999999999: in f", "def f(:\n")
	f.Add("assert 'a == b", "____ t ____", "")
	f.Fuzz(func(t *testing.T, msg, feedback, prog string) {
		ex := corpus.Execution{Status: corpus.StatusOK, Feedback: feedback, Tests: []corpus.TestResult{
			{Name: "t", Message: msg, Lines: []int32{1, 2, 3, -1}},
			{Name: "u", Passed: true, Lines: []int32{2}},
		}}
		p := New(Options{Seed: 1})
		prop, err := p.Propose(context.Background(), corpus.ProposeRequest{Program: prog, Exec: ex, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range prop.Edits {
			m, err := ParseMutation(e.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(prog, m); err != nil {
				t.Fatal(err)
			}
		}
		ex.Status = corpus.StatusLoadError
		_ = diagnose(parse(prog), nil, ex)
	})
}

// FuzzParseMutation checks that arbitrary payloads never panic the parser
// or Revise, and that a payload that parses either fails to revise or
// splices exactly.
func FuzzParseMutation(f *testing.F) {
	f.Add(`{"family":"cmp_op","start":23,"end":24,"orig":"<","repl":"<=","line":2}`, "def f(x):\n    return x < 1\n")
	f.Add(`{"family":"const","start":-5,"end":2,"orig":"","repl":"1"}`, "x")
	f.Fuzz(func(t *testing.T, payload, prog string) {
		m, err := ParseMutation(payload)
		rev, rerr := New(Options{}).Revise(context.Background(), corpus.ReviseRequest{Program: prog, Edit: corpus.ProposedEdit{Payload: payload}})
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil || rev.Failed {
			return
		}
		checkSplice(t, prog, rev.Program, m)
	})
}
