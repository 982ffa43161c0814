package mutate

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"triage/corpus"
	"triage/search/proposer"
)

func loadFixture(t *testing.T) (string, corpus.Execution) {
	t.Helper()
	prog, err := os.ReadFile("testdata/move_zeros_bug.py")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/move_zeros_exec.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex corpus.Execution
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	return string(prog), ex
}

var moveZerosTask = &corpus.Task{ID: "move_zeros", Test: "from solution import move_zeros\n"}

func TestParseFailures(t *testing.T) {
	_, ex := loadFixture(t)
	fs := parseFailures(ex)
	if len(fs) != 2 {
		t.Fatalf("failures = %+v", fs)
	}
	for _, tc := range []struct {
		got, want any
	}{
		{fs[0].Name, "test_move_zeros[nums0-expected0]"},
		{fs[0].Expected, "[1, 3, 12, 0, 0]"},
		{fs[0].Actual, "[3, 12, 0, 0]"},
		{fs[0].Line, 0},
		{fs[1].Name, "test_in_place"},
		{fs[1].Exception, "IndexError: list index out of range"},
		{fs[1].Line, 5},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
}

func TestSplitComparison(t *testing.T) {
	for _, tc := range []struct{ in, l, r string }{
		{"2 == 3", "2", "3"},
		{"[1, 2] == [1, 3]", "[1, 2]", "[1, 3]"},
		{"'a == b' == 'c'", "'a == b'", "'c'"},
		{"f(x == 1) == (2, 3)", "f(x == 1)", "(2, 3)"},
		{"x is None", "", ""},
	} {
		if l, r := splitComparison(tc.in); l != tc.l || r != tc.r {
			t.Errorf("splitComparison(%q) = %q, %q", tc.in, l, r)
		}
	}
}

func TestSuspicion(t *testing.T) {
	prog, ex := loadFixture(t)
	p := parse(prog)
	t.Run("ochiai", func(t *testing.T) {
		s, method := suspicion(p, moveZerosTask, ex, parseFailures(ex))
		if !strings.Contains(method, "Ochiai") {
			t.Errorf("method = %q", method)
		}
		want := map[int]float64{1: 2 / math.Sqrt(6), 3: 2 / math.Sqrt(6), 4: 1, 5: 1, 6: 1 / math.Sqrt(2), 7: 0.5, 9: 0.5}
		for l, w := range want {
			if math.Abs(s[l]-w) > 1e-9 {
				t.Errorf("line %d: %.4f, want %.4f", l, s[l], w)
			}
		}
	})
	t.Run("fallback", func(t *testing.T) {
		nc := ex
		nc.Tests = nil
		for _, tr := range ex.Tests {
			tr.Lines = nil
			nc.Tests = append(nc.Tests, tr)
		}
		s, method := suspicion(p, moveZerosTask, nc, parseFailures(nc))
		if !strings.Contains(method, "traceback") {
			t.Errorf("method = %q", method)
		}
		for l, w := range map[int]float64{1: 0, 2: 0.5, 5: 1, 9: 0.5} {
			if s[l] != w {
				t.Errorf("line %d: %v, want %v", l, s[l], w)
			}
		}
	})
}

func TestDiagnosisText(t *testing.T) {
	prog, ex := loadFixture(t)
	d := diagnose(parse(prog), moveZerosTask, ex)
	for _, want := range []string{
		"2 of 3 tests fail.",
		"- test_move_zeros[nums0-expected0]: expected [1, 3, 12, 0, 0], got [3, 12, 0, 0]",
		"- test_in_place: IndexError: list index out of range at line 5 (`nums[write] = nums[read]`)",
		"Suspicious lines (Ochiai over per-test line coverage):\n- line 4 (1.00): `if nums[read] != 0:`\n- line 5 (1.00)",
		"Most likely the fault is on line 4",
	} {
		if !strings.Contains(d.text, want) {
			t.Errorf("diagnosis lacks %q:\n%s", want, d.text)
		}
	}
	lx := diagnose(parse("def f(:\n"), moveZerosTask, corpus.Execution{Status: corpus.StatusLoadError,
		Feedback: "solution.py:1: in <module>\nE   SyntaxError: invalid syntax\n"})
	if !strings.Contains(lx.text, "does not load: SyntaxError: invalid syntax") || lx.susp[1] != 1 {
		t.Errorf("load-error diagnosis:\n%s", lx.text)
	}
}

func TestProposeRevise(t *testing.T) {
	prog, ex := loadFixture(t)
	ctx := context.Background()
	p := New(Options{Seed: 7})
	req := corpus.ProposeRequest{Task: moveZerosTask, Program: prog, Exec: ex, K: 3, Key: "tree:r"}
	a, err := p.Propose(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Propose(ctx, req)
	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Fatalf("same request, different proposals:\n%s\n%s", ja, jb)
	}
	if len(a.Edits) != 3 || !a.TokensEstimated {
		t.Fatalf("proposal: %+v", a)
	}
	want := proposer.EstimateTokens(a.Diagnosis)
	seen := map[string]bool{}
	shares := 0.0
	for _, e := range a.Edits {
		// The score is the log share of the weight the edit was drawn by.
		if e.Score == nil || !(*e.Score <= 0) || math.IsInf(*e.Score, 0) {
			t.Fatalf("edit %q: score %v, want a finite log share", e.Text, e.Score)
		}
		shares += math.Exp(*e.Score)
		want += proposer.EstimateTokens(e.Text)
		if !strings.HasPrefix(e.Text, "Line ") || !strings.Contains(e.Text, "; ") {
			t.Errorf("edit text %q", e.Text)
		}
		rev, err := p.Revise(ctx, corpus.ReviseRequest{Task: moveZerosTask, Program: prog, Edit: e})
		if err != nil || rev.Failed || rev.Program == prog || seen[rev.Program] {
			t.Fatalf("revise %q: %+v, %v", e.Text, rev, err)
		}
		seen[rev.Program] = true
		if rev.OutputTokens != proposer.EstimateTokens(rev.Program) || !rev.TokensEstimated {
			t.Errorf("revision tokens %d", rev.OutputTokens)
		}
	}
	if shares > 1+1e-9 {
		t.Errorf("the edits' shares of the weight sum to %v > 1", shares)
	}
	if a.OutputTokens != want {
		t.Errorf("OutputTokens = %d, want %d", a.OutputTokens, want)
	}
	other := 0
	for _, key := range []string{"tree:r/0", "tree:r/1", "tree:r/2", "x"} {
		req.Key = key
		c, _ := p.Propose(ctx, req)
		if mustJSON(t, c) != mustJSON(t, a) {
			other++
		}
	}
	if other == 0 {
		t.Error("proposals do not depend on the key")
	}
	for _, tc := range []struct {
		name, program, payload string
	}{
		{"bad payload", prog, "{"},
		{"stale span", strings.Replace(prog, "write", "w", 1), a.Edits[0].Payload},
	} {
		rev, err := p.Revise(ctx, corpus.ReviseRequest{Program: tc.program, Edit: corpus.ProposedEdit{Payload: tc.payload}})
		if err != nil || !rev.Failed || rev.Program != "" || rev.Raw == "" {
			t.Errorf("%s: %+v, %v", tc.name, rev, err)
		}
	}
}

type countAll struct{}

func (countAll) CountTokens(s string) int { return len(s) }

func TestRealTokenCounter(t *testing.T) {
	prog, ex := loadFixture(t)
	p := New(Options{Tokens: countAll{}})
	a, _ := p.Propose(context.Background(), corpus.ProposeRequest{Program: prog, Exec: ex, K: 2})
	n := len(a.Diagnosis)
	for _, e := range a.Edits {
		n += len(e.Text)
	}
	if a.TokensEstimated || a.OutputTokens != n {
		t.Fatalf("tokens %d (estimated %v), want %d", a.OutputTokens, a.TokensEstimated, n)
	}
}

// TestNotAnOracle checks that edits lean toward suspicious lines yet most
// proposed edits do not repair the program.
func TestNotAnOracle(t *testing.T) {
	ref := "def move_zeros(nums):\n    write = 0\n    for read in range(len(nums)):\n        if nums[read] != 0:\n            nums[write] = nums[read]\n            write += 1\n    for i in range(write, len(nums)):\n        nums[i] = 0\n    return nums\n"
	bug := strings.Replace(ref, "if nums[read] != 0:", "if nums[read] == 0:", 1)
	ex := corpus.Execution{Status: corpus.StatusOK, PassRate: 0.5, Tests: []corpus.TestResult{
		{Name: "test_a", Passed: false, Message: "assert [0, 1] == [1, 0]", Lines: []int32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Name: "test_b", Passed: true, Lines: []int32{1, 2, 3, 7, 9}},
	}}
	p := New(Options{Seed: 1})
	fixes, onLine4, total := 0, 0, 0
	for i := 0; i < 200; i++ {
		prop, err := p.Propose(context.Background(), corpus.ProposeRequest{Program: bug, Exec: ex, K: 3, Key: "k" + string(rune('a'+i%26)) + string(rune('a'+i/26))})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range prop.Edits {
			total++
			m, _ := ParseMutation(e.Payload)
			if m.Line == 4 {
				onLine4++
			}
			if out, _ := Apply(bug, m); out == ref {
				fixes++
			}
		}
	}
	fixFrac, lineFrac := float64(fixes)/float64(total), float64(onLine4)/float64(total)
	t.Logf("fix fraction %.3f, on the faulty line %.3f", fixFrac, lineFrac)
	if fixFrac == 0 || fixFrac > 0.5 {
		t.Errorf("fraction of edits that repair = %.3f, want in (0, 0.5]", fixFrac)
	}
	if lineFrac < 0.15 {
		t.Errorf("fraction of edits on the faulty line = %.3f, want ≥ 0.15 (biased toward suspicious lines)", lineFrac)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFamilyBoosts(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    diagnosis
		want Family
	}{
		{"index error", diagnosis{fails: []failure{{Exception: "IndexError: list index out of range"}}}, OffByOne},
		{"none", diagnosis{fails: []failure{{Expected: "3", Actual: "None"}}}, ReturnValue},
		{"off by one value", diagnosis{fails: []failure{{Expected: "3", Actual: "2 from f(1)"}}}, Const},
		{"list one short", diagnosis{fails: []failure{{Expected: "[1, 2, 3]", Actual: "[1, 2]"}}}, OffByOne},
		{"bool", diagnosis{fails: []failure{{Expected: "True", Actual: "False"}}}, NegateCond},
		{"type error", diagnosis{fails: []failure{{Exception: "TypeError: bad operand"}}}, WrongVar},
		{"timeout", diagnosis{timeout: true}, CmpOp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := familyBoosts(tc.d)
			if b[tc.want] < 1.5 {
				t.Errorf("boost[%s] = %v, want ≥ 1.5 (all: %v)", tc.want, b[tc.want], b)
			}
		})
	}
	if b := familyBoosts(diagnosis{fails: []failure{{Assertion: "assert x"}}}); len(b) != 0 {
		t.Errorf("no signal, boosts %v", b)
	}
}

func TestListLen(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"[]", 0}, {"[1]", 1}, {"[1, [2, 3], 'a,b']", 3}, {"(1, 2)", 2}, {"[1, 2,]", 2}, {"3", -1}, {"'[x]'", -1},
	} {
		if got := listLen(tc.in); got != tc.want {
			t.Errorf("listLen(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
