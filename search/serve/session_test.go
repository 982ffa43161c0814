package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/policy"
	"triage/search/serve"
	"triage/search/serve/api"
)

func TestSessionLifecycle(t *testing.T) {
	f := newFixture(t, serve.Options{})
	ctx := context.Background()
	code, body := f.call("POST", "/v1/sessions", `{"policy":"bfs","budget":5,"seed":3,"root":{"program":"x","tests":[{"name":"t","passed":false}],"edits":[{"text":"a"},{"text":"b"}],"propose_tokens":11}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var s api.Session
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.State != api.StateRunning || fmt.Sprint(s.RootEdges) != "[0 1]" || s.Frontier != 2 || s.Tokens != 11 || s.Budget != 5 || s.K != 3 || s.MaxDepth != 4 {
		t.Errorf("created: %+v", s)
	}
	a, err := f.c.Ask(ctx, s.ID, 5)
	if err != nil || len(a.Edges) != 2 || a.Edges[0].Edge != 0 || a.Edges[1].Edge != 1 || a.Outstanding != 2 || a.Frontier != 0 {
		t.Fatalf("ask 5: %+v %v", a, err)
	}
	if a2, err := f.c.Ask(ctx, s.ID, 1); err != nil || len(a2.Edges) != 0 || a2.State != api.StateRunning {
		t.Errorf("ask with only outstanding edges: %+v %v", a2, err)
	}
	// Tells out of order; the second child brings two edits.
	r1, err := f.c.Tell(ctx, s.ID, 1, child(false, 2))
	if err != nil || r1.Node != 1 || fmt.Sprint(r1.Edges) != "[2 3]" || r1.Expansions != 1 || r1.Tokens != 11+37 {
		t.Fatalf("tell 1: %+v %v", r1, err)
	}
	again, err := f.c.Tell(ctx, s.ID, 1, child(true, 0))
	if err != nil || !again.Repeated || again.Node != 1 || again.Solved || again.Expansions != 1 {
		t.Errorf("repeated tell: %+v %v", again, err)
	}
	if _, err := f.c.Tell(ctx, s.ID, 2, child(false, 0)); statusOf(err) != 409 {
		t.Errorf("tell of an edge never asked: %v", err)
	}
	if _, err := f.c.Tell(ctx, s.ID, 99, child(false, 0)); statusOf(err) != 409 {
		t.Errorf("tell of an unknown edge: %v", err)
	}
	if _, err := f.c.Tell(ctx, s.ID, -1, child(false, 0)); statusOf(err) != 409 {
		t.Errorf("tell of edge -1: %v", err)
	}
	st, err := f.c.Session(ctx, s.ID)
	if err != nil || fmt.Sprint(st.Outstanding) != "[0]" || st.Frontier != 2 || st.Expansions != 1 {
		t.Errorf("get: %+v %v", st, err)
	}
	r0, err := f.c.Tell(ctx, s.ID, 0, child(true, 0))
	if err != nil || !r0.Solved || r0.State != api.StateSolved || r0.Node != 2 {
		t.Fatalf("tell the fix: %+v %v", r0, err)
	}
	if a, err := f.c.Ask(ctx, s.ID, 1); err != nil || len(a.Edges) != 0 || a.State != api.StateSolved {
		t.Errorf("ask after the fix: %+v %v", a, err)
	}
	st, _ = f.c.Session(ctx, s.ID)
	if !st.Best.Solved || st.Best.Node != 2 || st.Best.Edge != 0 || st.Best.Expansion != 2 || st.Best.Tokens != 11+37+37 || st.Best.Depth != 1 {
		t.Errorf("best: %+v", st.Best)
	}
	if d, err := f.c.DeleteSession(ctx, s.ID); err != nil || d.State != api.StateSolved {
		t.Errorf("delete: %+v %v", d, err)
	}
	for _, path := range []string{"", "/tree"} {
		if code, _ := f.call("GET", "/v1/sessions/"+s.ID+path, ""); code != 404 {
			t.Errorf("GET %s after delete: %d", path, code)
		}
	}
	if _, err := f.c.DeleteSession(ctx, s.ID); statusOf(err) != 404 {
		t.Errorf("second delete: %v", err)
	}
}

func TestSessionEnds(t *testing.T) {
	f := newFixture(t, serve.Options{})
	ctx := context.Background()
	// Budget: two expansions, then budget_exhausted.
	s := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "dfs", Budget: 2, Root: rootProgram(3)})
	a, _ := f.c.Ask(ctx, s.ID, 3)
	if len(a.Edges) != 2 {
		t.Fatalf("ask 3 with budget 2: %+v", a)
	}
	for _, e := range a.Edges {
		if _, err := f.c.Tell(ctx, s.ID, e.Edge, child(false, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if a, _ := f.c.Ask(ctx, s.ID, 1); len(a.Edges) != 0 || a.State != api.StateBudgetExhausted {
		t.Errorf("after the budget: %+v", a)
	}
	// Frontier: no edits anywhere, then frontier_empty.
	s = mustCreate(t, f.c, api.CreateSessionRequest{Policy: "passrate", MaxDepth: 1, Root: rootProgram(1)})
	a, _ = f.c.Ask(ctx, s.ID, 1)
	r, err := f.c.Tell(ctx, s.ID, a.Edges[0].Edge, child(false, 0))
	if err != nil || r.State != api.StateFrontierEmpty {
		t.Errorf("last edge told: %+v %v", r, err)
	}
	// A root that passes is solved at once.
	root := child(true, 0)
	root.ReviseTokens = 0
	s = mustCreate(t, f.c, api.CreateSessionRequest{Policy: "uct", Root: root})
	if s.State != api.StateSolved || !s.Best.Solved || s.Best.Node != 0 {
		t.Errorf("passing root: %+v", s)
	}
}

func TestSessionValidation(t *testing.T) {
	f := newFixture(t, serve.Options{MaxBudget: 50})
	base := func() api.CreateSessionRequest {
		return api.CreateSessionRequest{Policy: "rex", Root: rootProgram(2)}
	}
	two := 2.0
	for _, tc := range []struct {
		name string
		mod  func(*api.CreateSessionRequest)
		want string
	}{
		{"negative budget", func(r *api.CreateSessionRequest) { r.Budget = -1 }, "budget -1 is negative"},
		{"budget over the maximum", func(r *api.CreateSessionRequest) { r.Budget = 51 }, "maximum 50"},
		{"no policy", func(r *api.CreateSessionRequest) { r.Policy = "" }, "policy is required"},
		{"unknown policy", func(r *api.CreateSessionRequest) { r.Policy = "astar" }, "unknown policy"},
		{"unknown param", func(r *api.CreateSessionRequest) { r.Params = policy.Params{"Z": 1} }, `unknown hyperparameter "Z"`},
		{"bad param", func(r *api.CreateSessionRequest) { r.Params = policy.Params{"C": -1} }, "C = -1"},
		{"max depth", func(r *api.CreateSessionRequest) { r.MaxDepth = 65 }, "max_depth 65"},
		{"negative k", func(r *api.CreateSessionRequest) { r.K = -2 }, "k -2"},
		{"too many edits", func(r *api.CreateSessionRequest) { r.K = 1 }, "2 edits, at most k = 1"},
		{"split", func(r *api.CreateSessionRequest) { r.Split = "dev" }, `split "dev"`},
		{"root index", func(r *api.CreateSessionRequest) { r.RootIndex = -1 }, "root_index"},
		{"status", func(r *api.CreateSessionRequest) { r.Root.Status = "fine" }, `status "fine"`},
		{"pass rate", func(r *api.CreateSessionRequest) { r.Root.PassRate = &two }, "pass_rate 2"},
		{"failed frac", func(r *api.CreateSessionRequest) { r.Root.FailedFrac = &two }, "failed_frac 2"},
		{"negative tokens", func(r *api.CreateSessionRequest) { r.Root.ProposeTokens = -5 }, "token counts"},
		{"root revision", func(r *api.CreateSessionRequest) { r.Root.ReviseTokens = 5 }, "a root is not a revision"},
		{"test name", func(r *api.CreateSessionRequest) { r.Root.Tests[0].Name = "" }, "tests[0]: name is empty"},
		{"fix with edits", func(r *api.CreateSessionRequest) { r.Root.Tests[1].Passed = true }, "a fix takes no edits"},
		{"learned params", func(r *api.CreateSessionRequest) { r.Policy, r.Params = "learned", policy.Params{"C": 1} }, "takes no params"},
	} {
		req := base()
		tc.mod(&req)
		_, err := f.c.CreateSession(context.Background(), req)
		if statusOf(err) != 400 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want 400 with %q", tc.name, err, tc.want)
		}
	}

	// A refused tell leaves the session as it was.
	ctx := context.Background()
	s := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", MaxDepth: 1, Root: rootProgram(1)})
	a, _ := f.c.Ask(ctx, s.ID, 1)
	if _, err := f.c.Tell(ctx, s.ID, a.Edges[0].Edge, child(false, 1)); statusOf(err) != 400 || !strings.Contains(err.Error(), "max_depth 1 takes no edits") {
		t.Errorf("edits below max depth: %v", err)
	}
	if r, err := f.c.Tell(ctx, s.ID, a.Edges[0].Edge, child(false, 0)); err != nil || r.Expansions != 1 || r.Repeated {
		t.Errorf("the corrected tell: %+v %v", r, err)
	}
}

func TestSessionExpiryAndLimit(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, serve.Options{MaxSessions: 2, SessionIdle: time.Minute, SessionsDir: dir})
	ctx := context.Background()
	s1 := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)})
	f.clock.advance(40 * time.Second)
	s2 := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)})
	if _, err := f.c.CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)}); statusOf(err) != 503 {
		t.Errorf("third session over a limit of 2: %v", err)
	}
	f.clock.advance(30 * time.Second) // s1 idle 70 s: expired; s2 40 s
	if _, err := f.c.Session(ctx, s2.ID); err != nil {
		t.Errorf("s2 expired early: %v", err)
	}
	if _, err := f.c.Ask(ctx, s1.ID, 1); statusOf(err) != 404 || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired session: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, serve.SessionFileName(s1.ID))); err != nil {
		t.Errorf("expired session not saved: %v", err)
	}
	s3 := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)})
	f.clock.advance(61 * time.Second) // s2, s3 expire; creating sweeps them
	mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)})
	mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(2)})
	for _, id := range []string{s2.ID, s3.ID} {
		if _, err := os.Stat(filepath.Join(dir, serve.SessionFileName(id))); err != nil {
			t.Errorf("session swept at create not saved: %v", err)
		}
	}
	_, metrics := f.call("GET", "/metrics", "")
	if !strings.Contains(metrics, "triage_sessions_expired_total 3\n") || !strings.Contains(metrics, "triage_sessions 2\n") {
		t.Errorf("metrics after expiry:\n%s", grep(metrics, "triage_sessions"))
	}
}

func grep(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestTreeExport checks both formats against each other and that the
// Parquet shard (and a saved session) loads as a corpus tree.
func TestTreeExport(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, serve.Options{SessionsDir: dir})
	ctx := context.Background()
	s := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", TaskID: "task-7", Split: "val", RootIndex: 2, Root: rootProgram(2)})
	a, _ := f.c.Ask(ctx, s.ID, 2)
	if _, err := f.c.Tell(ctx, s.ID, a.Edges[0].Edge, child(false, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Tell(ctx, s.ID, a.Edges[1].Edge, child(true, 0)); err != nil {
		t.Fatal(err)
	}
	raw, err := f.c.Tree(ctx, s.ID, "json")
	if err != nil {
		t.Fatal(err)
	}
	var jt corpus.Tree
	if err := json.Unmarshal(raw, &jt); err != nil {
		t.Fatal(err)
	}
	if len(jt.Nodes) != 3 || len(jt.Edges) != 4 || jt.TaskID != "task-7" || jt.Split != "val" || jt.ID != "serve/"+s.ID {
		t.Fatalf("json tree: %d nodes, %d edges, %+v", len(jt.Nodes), len(jt.Edges), jt)
	}
	if l := jt.Edges[a.Edges[1].Edge].Label; l.T != 1 || l.Censored {
		t.Errorf("label of the fix edge: %+v", l)
	}
	if l := jt.Edges[2].Label; !l.Censored {
		t.Errorf("label of an unexpanded edge: %+v", l)
	}
	pq, err := f.c.Tree(ctx, s.ID, "parquet")
	if err != nil {
		t.Fatal(err)
	}
	pdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pdir, manifest.ShardFileName(0)), pq, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := shard.LoadTrees(pdir)
	if err != nil || len(loaded) != 1 {
		t.Fatalf("load the exported shard: %v", err)
	}
	lj, _ := json.Marshal(loaded[0])
	jj, _ := json.Marshal(&jt)
	if !bytes.Equal(lj, jj) {
		t.Errorf("parquet and json exports differ:\n%s\n%s", lj, jj)
	}
	if code, body := f.call("GET", "/v1/sessions/"+s.ID+"/tree?format=csv", ""); code != 400 || !strings.Contains(body, `format \"csv\"`) {
		t.Errorf("format csv: %d %s", code, body)
	}
	// Deleting saves the session as a shard of a corpus folder.
	if _, err := f.c.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	saved, err := shard.LoadTrees(dir)
	if err != nil || len(saved) != 1 {
		t.Fatalf("load the sessions folder: %v", err)
	}
	sj, _ := json.Marshal(saved[0])
	if !bytes.Equal(sj, jj) {
		t.Errorf("saved session differs from its export")
	}
	// Close saves the sessions still open.
	s2 := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(1)})
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, serve.SessionFileName(s2.ID))); err != nil {
		t.Errorf("open session not saved at Close: %v", err)
	}
}
