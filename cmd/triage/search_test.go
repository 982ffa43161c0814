package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/shard"
	"triage/search/live"
	"triage/search/proposer/openai/openaitest"
)

// runCLIOut runs the CLI with ctx and args and returns its exit code, its
// stdout and the error.
func runCLIOut(t *testing.T, ctx context.Context, args ...string) (int, string, error) {
	t.Helper()
	cli := newCLI()
	cli.SetArgs(args)
	var out bytes.Buffer
	cli.SetOut(&out)
	cli.SetErr(&out)
	err := cli.ExecuteContext(ctx)
	return exitCode(err), out.String(), err
}

// needSandbox skips tests that run Python test suites.
func needSandbox(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the Python sandbox: skipped under -short")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
}

// writeBundledTasks writes the bundled tasks with the given ids to a JSONL file.
func writeBundledTasks(t *testing.T, ids ...string) string {
	t.Helper()
	all, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var keep []corpus.Task
	for _, id := range ids {
		for _, tk := range all {
			if tk.ID == id {
				keep = append(keep, tk)
			}
		}
	}
	if len(keep) != len(ids) {
		t.Fatalf("bundled tasks %v: found %d", ids, len(keep))
	}
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	var b bytes.Buffer
	if err := corpus.WriteTasks(&b, keep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSearchReport(t *testing.T, path string) live.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep live.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rep
}

func TestSearchBadInput(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "t.jsonl")
	line := `{"task_id":"sq","question":"square","solution":"def f(x):\n    return x * x\n","test":"from solution import f\n\ndef test_a():\n    assert f(2) == 4\n","roots":["def f(x):\n    return x + x\n"]}` + "\n"
	if err := os.WriteFile(tasks, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	used := filepath.Join(dir, "used")
	if err := os.MkdirAll(used, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(used, "part-00000.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"search", "--tasks", tasks, "--no-progress"}
	tests := []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"no tasks", []string{"search", "--policy", "bfs"}, exitUsage, "--tasks is required"},
		{"missing file", []string{"search", "--tasks", filepath.Join(dir, "nope.jsonl")}, exitUsage, ""},
		{"bad method", append(base, "--method", "mcts"), exitUsage, "--method"},
		{"bad policy", append(base, "--policy", "greedy"), exitUsage, "unknown policy"},
		{"learned with a folder that is no checkpoint", append(base, "--policy", "learned", "--checkpoint", dir), exitUsage, "bad checkpoint"},
		{"tsapr without an LLM", append(base, "--method", "tsapr"), exitUsage, "needs an LLM"},
		{"tsapr flag on policy", append(base, "--policy", "bfs", "--judge", "llm"), exitUsage, "--judge applies to --method tsapr"},
		{"policy flag on tsapr", append(base, "--method", "tsapr", "--policy", "bfs", "--proposer", "openai"), exitUsage, "--policy applies"},
		{"bad split", append(base, "--split", "dev"), exitUsage, "--split"},
		{"unknown task id", append(base, "--task-ids", "nope"), exitUsage, "no task"},
		{"zero budget", append(base, "--budget", "0"), exitUsage, "--budget"},
		{"used out folder", append(base, "--policy", "bfs", "--out", used), exitUsage, "already holds a corpus"},
		{"openai without url", append(base, "--policy", "bfs", "--proposer", "openai", "--model", "m"), exitUsage, "base URL"},
		{"bad judge", append(base, "--method", "tsapr", "--proposer", "openai", "--judge", "human", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"), exitUsage, "--judge"},
		{"bad beta", append(base, "--method", "tsapr", "--proposer", "openai", "--beta", "2", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"), exitUsage, "--beta"},
		{"unreachable server", append(base, "--method", "tsapr", "--proposer", "openai", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"), exitFailure, "not usable"},
		{"two arguments", append(base, "a", "b"), exitUsage, "no arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, err := runCLIOut(t, context.Background(), tc.args...)
			if code != tc.want || (tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg))) {
				t.Errorf("exit %d (%v), want %d with %q", code, err, tc.want, tc.msg)
			}
		})
	}
}

// TestSearchMutate searches two bundled tasks live with the mutate proposer
// and the real sandbox: exit code, table, JSON, trees in --out readable by
// shard.LoadTrees and by corpus stats, and roots equal to the roots that
// corpus build makes with the same seed.
func TestSearchMutate(t *testing.T) {
	needSandbox(t)
	tasks := writeBundledTasks(t, "math_excel_column", "str_roman_to_int")
	dir := t.TempDir()
	out, js := filepath.Join(dir, "trees"), filepath.Join(dir, "search.json")
	code, stdout, err := runCLIOut(t, context.Background(), "search", "--tasks", tasks, "--roots", "1", "--policy", "bfs",
		"--budget", "3", "--workers", "2", "--no-progress", "--out", out, "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
	for _, s := range []string{"| bfs | math_excel_column | 0 |", "| bfs | str_roman_to_int | 0 |", "S(3)", "C(3)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
	rep := readSearchReport(t, js)
	if len(rep.Results) != 2 || len(rep.Summary) != 1 || rep.Summary[0].Roots != 2 || rep.Interrupted || rep.Budget != 3 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Results {
		if r.Method != "bfs" || r.Expansions < 1 || r.Expansions > 3 || r.OutputTokens <= 0 || r.TokensEstimated || r.Error != "" {
			t.Errorf("result %+v", r)
		}
		if r.Solved != (r.Fix != "") || (r.Solved && !strings.HasPrefix(r.Fix, "--- root/solution.py")) {
			t.Errorf("%s: solved %v fix %q", r.TaskID, r.Solved, r.Fix)
		}
	}
	trees, err := shard.LoadTrees(out)
	if err != nil || len(trees) != 2 {
		t.Fatalf("LoadTrees: %d trees, %v", len(trees), err)
	}
	if code := runCLI(t, "corpus", "stats", out); code != exitOK {
		t.Errorf("corpus stats: exit %d", code)
	}
	// The same roots as a corpus build's (one shallow tree per task).
	cdir := filepath.Join(dir, "corpus")
	if code := runCLI(t, "corpus", "build", "--tasks", tasks, "--roots", "1", "--k", "1", "--depth", "1", "--workers", "2", "--no-progress", "--out", cdir); code != exitOK {
		t.Fatalf("corpus build: exit %d", code)
	}
	ctrees, err := shard.LoadTrees(cdir)
	if err != nil || len(ctrees) != 2 {
		t.Fatalf("corpus: %d trees, %v", len(ctrees), err)
	}
	for i := range trees {
		if trees[i].ID != ctrees[i].ID || trees[i].Root().Program != ctrees[i].Root().Program {
			t.Errorf("tree %d: search %s, corpus %s: roots differ", i, trees[i].ID, ctrees[i].ID)
		}
		if n := len(trees[i].Nodes); n < 2 || n > 4 {
			t.Errorf("tree %s: %d nodes for budget 3", trees[i].ID, n)
		}
	}
}

// TestSearchInterrupt cancels the run after the first search finishes:
// exit 1, what finished is printed and written, the rest is counted.
func TestSearchInterrupt(t *testing.T) {
	needSandbox(t)
	tasks := writeBundledTasks(t, "math_excel_column", "str_roman_to_int")
	dir := t.TempDir()
	out, js := filepath.Join(dir, "trees"), filepath.Join(dir, "search.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	searchAfterRoot = func(done int) {
		if done == 1 {
			cancel()
		}
	}
	defer func() { searchAfterRoot = nil }()
	code, stdout, err := runCLIOut(t, ctx, "search", "--tasks", tasks, "--roots", "2", "--policy", "dfs",
		"--budget", "2", "--workers", "1", "--no-progress", "--out", out, "--json", js)
	if code != exitFailure || !errors.Is(err, context.Canceled) {
		t.Fatalf("exit %d, err %v", code, err)
	}
	if !strings.Contains(stdout, "Interrupted: 1 searches finished") || !strings.Contains(stdout, "| dfs | math_excel_column | 0 |") {
		t.Errorf("output:\n%s", stdout)
	}
	rep := readSearchReport(t, js)
	if !rep.Interrupted || len(rep.Results) != 1 || rep.Unfinished != 3 {
		t.Errorf("report: interrupted %v, %d results, %d unfinished", rep.Interrupted, len(rep.Results), rep.Unfinished)
	}
	trees, err := shard.LoadTrees(out)
	if err != nil || len(trees) != 1 {
		t.Errorf("LoadTrees: %d trees, %v", len(trees), err)
	}
}

// TestSearchTSAPRAndPolicyOneTable runs TSAPR and a policy with the openai
// proposer against the in-process fake server, on the same root, in one
// table; TSAPR's patch tree opens in the eval report's tree viewer.
func TestSearchTSAPRAndPolicyOneTable(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "t.jsonl")
	root := "def f(x):\n    return x + x\n"
	fix := "def f(x):\n    return x * x\n"
	line := `{"task_id":"sq","question":"Square x.","solution":"def f(x):\n    return x * x\n","split":"test",` +
		`"test":"from solution import f\n\ndef test_a():\n    assert f(3) == 9\n\ndef test_b():\n    assert f(2) == 4\n","roots":["def f(x):\n    return x + x\n"]}` + "\n"
	if err := os.WriteFile(tasks, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	fence := func(prose, p string) openaitest.Reply { return openaitest.Text(prose + "\n```python\n" + p + "```") }
	srv := openaitest.NewFunc(t, openaitest.Routed(
		// TSAPR: the first patch is the root again (halved), the second the fix.
		openaitest.Route{Marker: "Intended repair", Replies: []openaitest.Reply{fence("It looks fine.", root), fence("f must square x.", fix)}},
		openaitest.Route{Marker: "self-reflection", Replies: []openaitest.Reply{fence("Keep.", root), fence("Keep.", fix)}},
		openaitest.Route{Marker: "Score the quality", Replies: []openaitest.Reply{openaitest.Text("Score: 30")}},
		// The policy's proposer: a diagnosis with two edits, and revisions.
		openaitest.Route{Marker: "Then propose exactly", Replies: []openaitest.Reply{openaitest.Text(
			`{"diagnosis":"f doubles x instead of squaring it","edits":[{"line":2,"change":"return x * x","reason":"test_a"},{"line":2,"change":"return x - x","reason":"guess"}]}`)}},
		openaitest.Route{Marker: "Apply this edit", Replies: []openaitest.Reply{fence("", fix)}},
	))
	t.Setenv("TRIAGE_TEST_KEY", openaitest.APIKey)
	out, js := filepath.Join(dir, "trees"), filepath.Join(dir, "s.json")
	code, stdout, err := runCLIOut(t, context.Background(), "search", "--tasks", tasks, "--roots", "1", "--proposer", "openai",
		"--base-url", srv.URL, "--model", openaitest.ModelName, "--api-key-env", "TRIAGE_TEST_KEY",
		"--method", "tsapr,policy", "--policy", "bfs", "--budget", "4", "--max-expansion", "2",
		"--workers", "1", "--no-progress", "--out", out, "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
	rep := readSearchReport(t, js)
	if len(rep.Summary) != 2 || rep.Summary[0].Method != "tsapr" || rep.Summary[1].Method != "bfs" {
		t.Fatalf("summary %+v", rep.Summary)
	}
	ts, pol := rep.Results[0], rep.Results[1]
	// TSAPR: patch 1 = the root (LLM judge: 2 tests < 10, score 30, halved), patch 2 = the fix.
	if !ts.Solved || ts.Expansions != 2 || ts.Judge != "llm" || ts.LLMCalls != 4+5 || ts.InputTokensTotal != 9*100 || ts.OutputTokens != 9*42 {
		t.Errorf("tsapr result %+v", ts)
	}
	if !strings.Contains(ts.Fix, "-    return x + x\n+    return x * x\n") {
		t.Errorf("tsapr fix %q", ts.Fix)
	}
	// bfs: propose at the root, then the first edit's revision is the fix.
	if !pol.Solved || pol.Expansions != 1 || pol.LLMCalls != 2 || pol.InputTokensTotal != 200 || pol.OutputTokens != 84 {
		t.Errorf("policy result %+v", pol)
	}
	for _, s := range []string{"| tsapr | 1 | 1 | 1 | 1.000 ± 0.000 |", "| bfs | 1 | 1 | 1 | 1.000 ± 0.000 |", "fix 1 at expansion 2"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
	for _, m := range []string{"tsapr", "bfs"} {
		trees, err := shard.LoadTrees(filepath.Join(out, m))
		if err != nil || len(trees) != 1 || !trees[0].HasFix() {
			t.Fatalf("%s trees: %d, %v", m, len(trees), err)
		}
		if trees[0].ID != corpus.TreeID("sq", 0, root) {
			t.Errorf("%s tree id %s", m, trees[0].ID)
		}
	}
	html := filepath.Join(dir, "r.html")
	if code := runCLI(t, "eval", "--corpus", filepath.Join(out, "tsapr"), "--split", "test", "--policies", "uct",
		"--seeds", "1", "--bootstrap", "10", "--report", html); code != exitOK {
		t.Fatalf("eval of the TSAPR tree: exit %d", code)
	}
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("TSAPR patch 2")) {
		t.Errorf("report lacks the TSAPR node: %v", err)
	}
}
