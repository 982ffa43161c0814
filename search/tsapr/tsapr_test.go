package tsapr

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/search/proposer/openai"
	"triage/search/proposer/openai/openaitest"
)

// Markers of the three default prompts, for routing fake replies.
const (
	genMarker    = "Intended repair"
	reflMarker   = "self-reflection"
	judgeMarker  = "Score the quality"
	bogusProgram = "I am not sure what is wrong here."
)

func prog(name string) string { return "def f():\n    return '" + name + "'\n" }

// code is a chain-of-thought or reflection reply holding program p.
func code(prose, p string) openaitest.Reply {
	return openaitest.Text(prose + "\n```python\n" + p + "```\n")
}

// fakeExec runs programs by table: pass rate out of 4 tests, or a load error.
type fakeExec struct {
	mu    sync.Mutex
	rates map[string]float64 // by program; -1 = load error
	runs  int
}

func (f *fakeExec) Run(_ context.Context, program, _ string) (corpus.Execution, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	r, ok := f.rates[program]
	if !ok {
		return corpus.Execution{}, errors.New("fakeExec: unknown program " + program)
	}
	if r < 0 {
		return corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "SyntaxError"}, nil
	}
	ex := corpus.Execution{Status: corpus.StatusOK, PassRate: r, FailedFrac: 1 - r, Feedback: "FAILED test_x"}
	for i := 0; i < 4; i++ {
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: "test_" + string(rune('a'+i)), Passed: float64(i) < r*4})
	}
	return ex, nil
}

func newClient(t *testing.T, srv *openaitest.Server) *openai.Client {
	t.Helper()
	c, err := openai.NewClient(openai.Options{BaseURL: srv.URL, Model: openaitest.ModelName, APIKey: openaitest.APIKey,
		BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var task = &corpus.Task{ID: "t1", Question: "Return the right letter.", Test: "from solution import f\n\ndef test_a():\n    assert f()\n", Split: corpus.SplitTest}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestScriptedSearchMatchesHandComputedUCT runs four rounds with scripted
// patches under Test-as-Judge, and checks every selection and every Q and N
// against values computed by hand (C = 0.7, β = 0.8, two children per
// expansion).
func TestScriptedSearchMatchesHandComputedUCT(t *testing.T) {
	root, a0, a, b, c, e, g, h := prog("root"), prog("a0"), prog("a"), prog("b"), prog("c"), prog("e"), prog("g"), prog("h")
	exec := &fakeExec{rates: map[string]float64{root: 0, a: 0.35, b: 0.5, c: 0.75, e: 0.5, g: 0.25, h: 0.75}}
	srv := openaitest.NewFunc(t, openaitest.Routed(
		openaitest.Route{Marker: genMarker, Replies: []openaitest.Reply{
			code("The bug: f returns the wrong letter.", a0), // 1: revised by its reflection to a
			code("Return b.", b),                             // 2: reflection keeps it
			code("Return c.", c),                             // 3
			code("Return b again.", b),                       // 4: identical to its parent b
			code("Return e.", e),                             // 5
			openaitest.Text(bogusProgram),                    // 6: no program, no reflection call
			code("Return g.", g),                             // 7
			code("Return h.", h),                             // 8
		}},
		openaitest.Route{Marker: reflMarker, Replies: []openaitest.Reply{
			code("On reflection, a0 misses a case; revised:", a),
			openaitest.Text("The patch looks right; no change."),
			code("Unchanged:", c),
			code("Unchanged:", b),
			code("Unchanged:", e),
			code("Unchanged:", g),
			code("Unchanged:", h),
		}},
	))
	opts := DefaultOptions()
	opts.MaxExpansion, opts.Budget, opts.Judge = 2, 8, JudgeTests
	res, err := Search(context.Background(), newClient(t, srv), exec, task, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Nodes: 0 root, 1 a, 2 b, 3 c, 4 b (dup, reward 0.5·0.5), 5 e, 6 no
	// program (−1), 7 g, 8 h. A child never expanded scores Q + 1.
	// Round 2 at the root: UCT(a) = 0.35 + 1, UCT(b) = 0.5 + 1 → b.
	// Round 3 at the root: UCT(a) = 1.35 > UCT(b) = 0.5 + 0.7·sqrt(2·ln 2 / 1) = 1.3242 → a.
	// Round 4 at the root: UCT(a) = 0.35 + 0.7·sqrt(2·ln 3 / 1) = 1.3876 < UCT(b) = 0.5 + 1.0376 → b;
	// at b: UCT(c) = 0.75 + 1 > UCT(dup) = 0.25 + 1 → c.
	wantPaths := [][]corpus.NodeID{{0}, {0, 2}, {0, 1}, {0, 2, 3}}
	wantChildren := [][]corpus.NodeID{{1, 2}, {3, 4}, {5, 6}, {7, 8}}
	// Updates, from the expanded node to the root; a node's Q moves once a
	// child has N > 0: Q' = 0.8·Σ Q_j·N_j / Σ N_j + 0.2·Q.
	q2 := 0.8*0.5 + 0.2*0              // root after round 2: only b has N = 1
	q3 := 0.8*(0.35+0.5)/2 + 0.2*q2    // root after round 3: a and b have N = 1
	qb := 0.8*0.75 + 0.2*0.5           // b after round 4: c has N = 1
	q4 := 0.8*(0.35*1+qb*2)/3 + 0.2*q3 // root after round 4: a N = 1, b N = 2
	wantQ := [][]float64{
		{0, 0.35, 0.5},
		{q2, 0.35, 0.5, 0.75, 0.25},
		{q3, 0.35, 0.5, 0.75, 0.25, 0.5, -1},
		{q4, 0.35, qb, 0.75, 0.25, 0.5, -1, 0.25, 0.75},
	}
	wantN := [][]int{{1, 0, 0}, {2, 0, 1, 0, 0}, {3, 1, 1, 0, 0, 0, 0}, {4, 1, 2, 1, 0, 0, 0, 0, 0}}
	if !near(q4, 0.5506666666666667) || !near(qb, 0.7) {
		t.Fatalf("hand values: q4 %v qb %v", q4, qb)
	}
	if len(res.Steps) != 4 {
		t.Fatalf("%d rounds, want 4: %+v", len(res.Steps), res.Steps)
	}
	for i, st := range res.Steps {
		if !reflect.DeepEqual(st.Path, wantPaths[i]) || !reflect.DeepEqual(st.Children, wantChildren[i]) {
			t.Errorf("round %d: path %v children %v, want %v %v", i+1, st.Path, st.Children, wantPaths[i], wantChildren[i])
		}
		if !nearAll(st.Q, wantQ[i]) || !reflect.DeepEqual(st.N, wantN[i]) {
			t.Errorf("round %d: Q %v N %v, want Q %v N %v", i+1, st.Q, st.N, wantQ[i], wantN[i])
		}
	}
	n := res.Nodes
	if !n[4].Duplicate || !near(n[4].Reward, 0.25) || n[2].Duplicate {
		t.Errorf("duplicate of the parent not halved: %+v", n[4])
	}
	if !n[6].NoProgram || n[6].Loads || n[6].Reward != -1 || !res.Tree.Nodes[6].ReviseFailed || res.Tree.Nodes[6].Raw != bogusProgram {
		t.Errorf("patch without a program: %+v", n[6])
	}
	if res.Tree.Nodes[1].Program != a || !n[2].ReflectKept || res.Tree.Nodes[2].Program != b {
		t.Errorf("reflection not applied: node 1 %q, node 2 kept=%v", res.Tree.Nodes[1].Program, n[2].ReflectKept)
	}
	if res.Solved || res.Patches != 8 || res.FirstAt != 0 {
		t.Errorf("solved %v patches %d first %d", res.Solved, res.Patches, res.FirstAt)
	}
	// Accounting: 8 generation and 7 reflection calls, 100 prompt and 42
	// completion tokens each (the fake server's usage report).
	if g, r := res.Usage[callGenerate], res.Usage[callReflect]; g.Calls != 8 || r.Calls != 7 || g.OutputTokens != 8*42 || r.InputTokens != 7*100 {
		t.Errorf("usage %+v", res.Usage)
	}
	if res.Total.OutputTokens != 15*42 || res.OutputTokensToFirst != 15*42 || res.Total.Estimated {
		t.Errorf("total %+v, to first %d", res.Total, res.OutputTokensToFirst)
	}
	if res.Tree.Nodes[1].ReviseTokens != 84 || res.Tree.Nodes[6].ReviseTokens != 42 {
		t.Errorf("per-node tokens: %d %d", res.Tree.Nodes[1].ReviseTokens, res.Tree.Nodes[6].ReviseTokens)
	}
	// The prompts of round 4 show the selected program, c, and its results.
	reqs := srv.Requests()
	var gens []string
	for _, r := range reqs {
		if strings.Contains(r.LastUser(), genMarker) {
			gens = append(gens, r.LastUser())
			if r.Raw["temperature"] != 0.9 || r.N != 1 {
				t.Errorf("generation request: temperature %v n %d", r.Raw["temperature"], r.N)
			}
		}
	}
	if len(gens) != 8 || !strings.Contains(gens[6], c) || !strings.Contains(gens[6], "3 of 4 tests pass") || !strings.Contains(gens[0], task.Test) {
		t.Errorf("generation prompts: %d, round-4 prompt:\n%s", len(gens), gens[6])
	}
	// The reflection continues the generation's conversation.
	for _, r := range reqs {
		if strings.Contains(r.LastUser(), reflMarker) {
			if len(r.Messages) != 4 || r.Messages[2].Role != "assistant" || !strings.Contains(r.Messages[1].Content, genMarker) {
				t.Errorf("reflection request: %+v", r.Messages)
			}
		}
	}
	checkTree(t, res)
}

// checkTree checks that the patch tree survives the corpus schema.
func checkTree(t *testing.T, res *Result) {
	t.Helper()
	back, err := shard.TreeFromRows(shard.TreeRows(res.Tree, 0))
	if err != nil {
		t.Fatalf("patch tree does not round-trip the corpus schema: %v", err)
	}
	if len(back.Nodes) != len(res.Tree.Nodes) || len(back.Edges) != len(res.Tree.Edges) {
		t.Fatalf("round trip: %d nodes %d edges", len(back.Nodes), len(back.Edges))
	}
	for i, e := range back.Edges {
		var st NodeStats
		if err := json.Unmarshal([]byte(e.Edit.Payload), &st); err != nil || e.Child == corpus.NoNode {
			t.Fatalf("edge %d: payload %q child %d: %v", i, e.Edit.Payload, e.Child, err)
		}
		if !near(st.Reward, res.Nodes[e.Child].Reward) || !strings.HasPrefix(e.Edit.Text, "Reasoning:") {
			t.Errorf("edge %d: %+v", i, st)
		}
	}
	for i := range back.Nodes {
		if !strings.Contains(back.Nodes[i].Diagnosis, "TSAPR") {
			t.Errorf("node %d diagnosis %q", i, back.Nodes[i].Diagnosis)
		}
	}
}

// TestLLMJudge checks the 5-sample average with one retry of a scoreless
// reply, the −1 of a patch that does not load, a judgement in which every
// sample fails (recorded; the search goes on), and a server that returns one
// choice whatever n asks (as llama.cpp does).
func TestLLMJudge(t *testing.T) {
	root, p1, p2, p3, fix := prog("root"), prog("p1"), prog("p2"), prog("p3"), prog("fix")
	exec := &fakeExec{rates: map[string]float64{root: 0, p1: 0.5, p2: -1, p3: 0.25, fix: 1}}
	srv := openaitest.NewFunc(t, openaitest.Routed(
		openaitest.Route{Marker: genMarker, Replies: []openaitest.Reply{code("1", p1), code("2", p2), code("3", p3), code("4", fix)}},
		openaitest.Route{Marker: reflMarker, Replies: []openaitest.Reply{code("r1", p1), code("r2", p2), code("r3", p3), code("r4", fix)}},
		openaitest.Route{Marker: judgeMarker, Replies: []openaitest.Reply{
			// p1: five samples, one without a score, asked again once.
			openaitest.Text("Mostly right. Score: 80"),
			openaitest.Text("I would give it a score of 60."),
			openaitest.Text("I cannot tell from 3 tests."),
			openaitest.Text("**Score:** 100"),
			openaitest.Text(`{"score": 150}`), // clipped to 1
			openaitest.Text("On a second look — Score: 40"),
			// p3: nothing usable, before and after the retries.
			openaitest.Text("no idea"), openaitest.Text("no idea"), openaitest.Text("no idea"),
			openaitest.Text("no idea"), openaitest.Text("no idea"),
			openaitest.Text("still none"), openaitest.Text("still none"), openaitest.Text("still none"),
			openaitest.Text("still none"), openaitest.Text("still none"),
		}},
	))
	opts := DefaultOptions() // judge auto: 4 tests < 10 → LLM
	opts.Budget = 4
	opts.Diff = func(a, b string) string { return "--- a\n+++ b\n" }
	res, err := Search(context.Background(), newClient(t, srv), exec, task, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Judge != JudgeLLM {
		t.Fatalf("auto judge with 4 tests chose %s", res.Judge)
	}
	n := res.Nodes
	if want := (0.8 + 0.6 + 1 + 1 + 0.4) / 5; !near(n[1].Reward, want) || !reflect.DeepEqual(n[1].Scores, []float64{80, 60, 100, 150, 40}) || n[1].JudgeFailed != 0 {
		t.Errorf("p1: reward %v scores %v failed %d, want %v", n[1].Reward, n[1].Scores, n[1].JudgeFailed, want)
	}
	if n[2].Reward != -1 || n[2].Loads || n[2].Judge != "no_load" {
		t.Errorf("p2 (load error): %+v", n[2])
	}
	if n[3].Reward != 0 || n[3].JudgeFailed != 5 || len(n[3].Scores) != 0 || res.JudgeFailures != 1 || !strings.Contains(res.Tree.Nodes[3].Raw, "still none") {
		t.Errorf("p3 (no score at all): %+v, failures %d", n[3], res.JudgeFailures)
	}
	// The search went on: round 2 expanded p1 (UCT 0.76 + 1) into the fix.
	if !res.Solved || res.FirstAt != 4 || len(res.Plausible) != 1 || res.Plausible[0].Node != 4 || res.Plausible[0].Program != fix {
		t.Fatalf("solved %v first %d plausible %+v", res.Solved, res.FirstAt, res.Plausible)
	}
	if len(res.Steps) != 2 || !reflect.DeepEqual(res.Steps[1].Path, []corpus.NodeID{0, 1}) {
		t.Errorf("steps %+v", res.Steps)
	}
	var judgeReqs []openaitest.Request
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUser(), judgeMarker) {
			judgeReqs = append(judgeReqs, r)
		}
	}
	// p1: n = 5, 4, 3, 2, 1 (one choice each), then 1 retry; p3: 5 + 5.
	if len(judgeReqs) != 16 || judgeReqs[0].N != 5 || judgeReqs[1].N != 4 || judgeReqs[5].N != 1 {
		t.Errorf("%d judge requests, n = %d %d %d", len(judgeReqs), judgeReqs[0].N, judgeReqs[1].N, judgeReqs[5].N)
	}
	p := judgeReqs[0].LastUser()
	for _, s := range []string{"```diff\n--- a\n+++ b\n", "2 of 4 tests pass", "## The patch author's reasoning\n1", "## The patch author's reflection\nr1", root} {
		if !strings.Contains(p, s) {
			t.Errorf("judge prompt lacks %q:\n%s", s, p)
		}
	}
	if res.Usage[callJudge].Calls != 16 || res.Tree.Nodes[1].ProposeTokens != 6*42 {
		t.Errorf("judge usage %+v, node tokens %d", res.Usage[callJudge], res.Tree.Nodes[1].ProposeTokens)
	}
	// Tokens through the first fix: 4 generations, 4 reflections, 16 judge calls.
	if res.OutputTokensToFirst != 24*42 || res.Outcome(0).T != 4 || res.Outcome(0).Tokens != 24*42 {
		t.Errorf("tokens to first %d, outcome %+v", res.OutputTokensToFirst, res.Outcome(0))
	}
	checkTree(t, res)
}

// TestServerFaultsAreRetried: 500 and 429 replies are retried as the
// proposer retries them; a client error ends the search with its partial
// result.
func TestServerFaultsAreRetried(t *testing.T) {
	root, p1 := prog("root"), prog("p1")
	exec := &fakeExec{rates: map[string]float64{root: 0, p1: 1}}
	srv := openaitest.NewFunc(t, openaitest.Routed(
		openaitest.Route{Marker: genMarker, Replies: []openaitest.Reply{{Status: 500}, {Status: 429, RetryAfter: "1"}, code("fix", p1)}},
		openaitest.Route{Marker: reflMarker, Replies: []openaitest.Reply{{Status: 503}, code("ok", p1)}},
	))
	opts := DefaultOptions()
	res, err := Search(context.Background(), newClient(t, srv), exec, task, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Solved || res.FirstAt != 1 || len(srv.Requests()) != 5 {
		t.Fatalf("solved %v first %d after %d requests", res.Solved, res.FirstAt, len(srv.Requests()))
	}

	srv = openaitest.NewFunc(t, openaitest.Routed(
		openaitest.Route{Marker: genMarker, Replies: []openaitest.Reply{code("a", prog("x")), {Status: 400}}},
		openaitest.Route{Marker: reflMarker, Replies: []openaitest.Reply{code("a", prog("x"))}},
	))
	exec.rates[prog("x")] = 0.5
	opts.Judge = JudgeTests
	res, err = Search(context.Background(), newClient(t, srv), exec, task, root, opts)
	if err == nil || !strings.Contains(err.Error(), "generate") {
		t.Fatalf("a 400 gave err %v", err)
	}
	if res == nil || res.Patches != 1 || len(res.Tree.Nodes) != 2 {
		t.Fatalf("partial result %+v", res)
	}
}

func TestUntilBudgetCollectsPlausiblePatches(t *testing.T) {
	root, f1, f2, bad := prog("root"), prog("f1"), prog("f2"), prog("bad")
	exec := &fakeExec{rates: map[string]float64{root: 0.5, f1: 1, f2: 1, bad: 0}}
	srv := openaitest.NewFunc(t, openaitest.Routed(
		openaitest.Route{Marker: genMarker, Replies: []openaitest.Reply{code("", f1), code("", f1), code("", bad), code("", f2)}},
		openaitest.Route{Marker: reflMarker, Replies: []openaitest.Reply{code("", f1), code("", f1), code("", bad), code("", f2)}},
	))
	opts := DefaultOptions()
	opts.Judge, opts.UntilBudget, opts.Budget = JudgeTests, true, 3
	res, err := Search(context.Background(), newClient(t, srv), exec, task, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Round 1 at the root: f1, f1 again (a sibling duplicate: dropped), bad.
	// Round 2 expands bad (f1 is a leaf) into f2.
	if res.Dropped != 1 || res.Patches != 3 || len(res.Plausible) != 2 || res.FirstAt != 1 || res.Plausible[1].Patch != 3 {
		t.Fatalf("dropped %d patches %d plausible %+v", res.Dropped, res.Patches, res.Plausible)
	}
	if !reflect.DeepEqual(res.Steps[1].Path, []corpus.NodeID{0, 2}) {
		t.Errorf("round 2 path %v", res.Steps[1].Path)
	}
	if res.Usage[callGenerate].Calls != 4 || res.Plausible[0].OutputTokens >= res.Plausible[1].OutputTokens {
		t.Errorf("usage %+v plausible %+v", res.Usage, res.Plausible)
	}
}

func TestSolvedRootAndValidation(t *testing.T) {
	exec := &fakeExec{rates: map[string]float64{prog("ok"): 1}}
	srv := openaitest.New(t)
	res, err := Search(context.Background(), newClient(t, srv), exec, task, prog("ok"), DefaultOptions())
	if err != nil || !res.Solved || res.Patches != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("solved root: %+v %v", res, err)
	}
	for _, mod := range []func(*Options){
		func(o *Options) { o.Budget = 0 }, func(o *Options) { o.C = -1 }, func(o *Options) { o.Beta = 1.5 },
		func(o *Options) { o.MaxExpansion = 0 }, func(o *Options) { o.Samples = 0 }, func(o *Options) { o.Judge = "gpt" },
	} {
		o := DefaultOptions()
		mod(&o)
		if _, err := Search(context.Background(), newClient(t, srv), exec, task, prog("ok"), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := Search(context.Background(), newClient(t, srv), exec, task, "", DefaultOptions()); !errors.Is(err, ErrNoRoot) {
		t.Errorf("empty root: %v", err)
	}
}

func TestCancel(t *testing.T) {
	root := prog("root")
	exec := &fakeExec{rates: map[string]float64{root: 0}}
	srv := openaitest.New(t, openaitest.Reply{Delay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Search(ctx, newClient(t, srv), exec, task, root, DefaultOptions())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestPrompts(t *testing.T) {
	def, err := DefaultPrompts()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def.System, "program repair") {
		t.Errorf("system prompt %q", def.System)
	}
	dir := t.TempDir()
	if _, err := LoadPrompts(dir); err == nil {
		t.Error("an empty prompt folder was accepted")
	}
	if err := os.WriteFile(filepath.Join(dir, GenerateFile), []byte("Fix {{.Program}} now."), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := render(p.generate, PromptData{Program: "x = 1"})
	if err != nil || got != "Fix x = 1 now.\n" {
		t.Errorf("custom prompt rendered %q, %v", got, err)
	}
	if p.System != def.System || p.judge == nil {
		t.Error("missing files did not fall back to the defaults")
	}
	for _, bad := range []string{"{{.Nope}}", "{{if}}"} {
		if err := os.WriteFile(filepath.Join(dir, JudgeFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPrompts(dir); err == nil || !strings.Contains(err.Error(), JudgeFile) {
			t.Errorf("template %q: err %v", bad, err)
		}
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"Score: 70", 70, true},
		{"The patch fixes 2 of 3 tests.\n**Score**: 85", 85, true},
		{"score of 40, and after thinking, final score = 55", 55, true},
		{`{"score": 90, "reason": "close"}`, 90, true},
		{"I rate it 75/100.", 75, true},
		{"60 out of 100", 60, true},
		{"  **42** ", 42, true},
		{"Score: -5", -5, true},
		{"It passes 3 tests.", 0, false},
		{"no idea", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseScore(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseScore(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseScore(f *testing.F) {
	for _, s := range []string{"Score: 70", "70/100", "**1e400**", "score: 99999999999999999999", "{\"score\": NaN}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v, ok := ParseScore(reply)
		if ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseScore(%q) = %v", reply, v)
		}
		if !ok && v != 0 {
			t.Fatalf("no score but %v", v)
		}
		if r := clip01(v / 100); r < 0 || r > 1 {
			t.Fatalf("clipped reward %v", r)
		}
	})
}
