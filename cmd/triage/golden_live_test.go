package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/shard"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden-live from the current build")

// goldenLiveTasks are the bundled tasks of the live golden tests: small,
// quick test suites.
var goldenLiveTasks = []string{"bit_gray_code", "arr_move_zeros", "bit_missing_number"}

// TestSearchGolden pins `triage search --proposer mutate` with a fixed test
// timeout: the JSON report (wall times zeroed) and the rows of the trees it
// writes (timing columns dropped) stay byte-identical across refactoring.
// Regenerate with -update-golden only for an intended change of behaviour.
func TestSearchGolden(t *testing.T) {
	needSandbox(t)
	tasks := writeBundledTasks(t, goldenLiveTasks...)
	dir := t.TempDir()
	out, js := filepath.Join(dir, "trees"), filepath.Join(dir, "search.json")
	code, stdout, err := runCLIOut(t, context.Background(), "search", "--tasks", tasks, "--roots", "1",
		"--proposer", "mutate", "--policy", "bfs,uct", "--budget", "8", "--test-timeout", "5s",
		"--workers", "2", "--no-progress", "--bootstrap", "50", "--out", out, "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	zeroKeys(rep, func(k string) bool { return strings.HasPrefix(k, "wall_seconds") })
	// The temporary tasks path differs per run.
	rep.(map[string]any)["tasks_source"] = "tasks.jsonl"
	got, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var hashes strings.Builder
	for _, m := range []string{"bfs", "uct"} {
		hashes.WriteString(treeRowHashes(t, filepath.Join(out, m)))
	}
	checkGolden(t, "search.json", string(got)+"\n")
	checkGolden(t, "search-rows.txt", hashes.String())
}

// TestCorpusBuildGolden pins `triage corpus build` with the mutate proposer
// and a fixed test timeout: one hash per row (a node with its outgoing
// edges, timing columns dropped).
func TestCorpusBuildGolden(t *testing.T) {
	needSandbox(t)
	tasks := writeBundledTasks(t, goldenLiveTasks...)
	out := filepath.Join(t.TempDir(), "c")
	if code, err := runCLIErr(t, "corpus", "build", "--tasks", tasks, "--roots", "2", "--k", "2", "--depth", "2",
		"--test-timeout", "5s", "--workers", "2", "--no-progress", "--out", out); code != exitOK {
		t.Fatalf("corpus build: exit %d: %v", code, err)
	}
	checkGolden(t, "corpus-rows.txt", treeRowHashes(t, out))
}

// zeroKeys sets every number under a key that drop accepts to 0, at any depth.
func zeroKeys(v any, drop func(string) bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if _, num := x.(float64); num && drop(k) {
				v[k] = 0.0
				continue
			}
			zeroKeys(x, drop)
		}
	case []any:
		for _, x := range v {
			zeroKeys(x, drop)
		}
	}
}

// treeRowHashes loads the corpus in dir and returns one line per node:
// tree id, node id and the SHA-256 of the node's and its edges' JSON with
// run times zeroed.
func treeRowHashes(t *testing.T, dir string) string {
	t.Helper()
	trees, err := shard.LoadTrees(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	var b strings.Builder
	for _, tr := range trees {
		fmt.Fprintf(&b, "tree %s task %s split %s k %d d %d proposer %s model %s nodes %d edges %d\n",
			tr.ID, tr.TaskID, tr.Split, tr.K, tr.D, tr.Proposer, tr.Model, len(tr.Nodes), len(tr.Edges))
		for _, n := range tr.Nodes {
			n.Exec.DurationMS = 0
			n.Exec.Tests = append([]corpus.TestResult(nil), n.Exec.Tests...)
			for i := range n.Exec.Tests {
				n.Exec.Tests[i].DurationMS = 0
			}
			row := struct {
				Node  corpus.Node
				Edges []corpus.Edge
			}{Node: n}
			for _, e := range n.Edges {
				row.Edges = append(row.Edges, tr.Edges[e])
			}
			js, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256(js)
			fmt.Fprintf(&b, "  node %d %s\n", n.ID, hex.EncodeToString(h[:8]))
		}
	}
	return b.String()
}

// checkGolden compares got with testdata/golden-live/name, or rewrites it
// with -update-golden.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden-live", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
