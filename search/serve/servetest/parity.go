// Package servetest checks that a search driven through the server's
// ask–tell sessions is the search `triage eval` replays: over a recorded
// tree, a client that tells the server the recorded child of every edge it
// is asked to expand reaches the same fix, in the same number of
// expansions and output tokens, as search.Run over search.NewReplay of the
// same policy, seed and tree. The Go client (DriveSession) and the Python
// client (scripts/serve/triage_client.py, run by CheckPythonParity) are
// both checked against it.
package servetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"triage/corpus"
	"triage/policy"
	"triage/policy/policytest"
	"triage/search"
	"triage/search/serve"
)

// Trees returns the recorded trees of the parity checks: exhaustive trees
// (k = 3) with pass rates from a hash of each program's path, so that
// policies disagree, fixes at various depths, a tree without a fix, one
// whose root passes, and one with programs that fail to load.
func Trees() []*corpus.Tree {
	hashed := func(fixes ...[]int) policytest.Spec {
		return func(path []int) float64 {
			for _, f := range fixes {
				if fmt.Sprint(f) == fmt.Sprint(path) {
					return 1
				}
			}
			h := fnv.New32a()
			fmt.Fprint(h, path)
			return float64(h.Sum32()%9) / 10
		}
	}
	trees := []*corpus.Tree{
		policytest.Exhaustive("deep", 3, 4, hashed([]int{2, 1, 0, 2})),
		policytest.Exhaustive("two-fixes", 3, 3, hashed([]int{0, 2, 1}, []int{1, 1})),
		policytest.Exhaustive("shallow", 3, 3, hashed([]int{1})),
		policytest.Exhaustive("no-fix", 2, 3, hashed()),
		policytest.Exhaustive("root-passes", 3, 2, func([]int) float64 { return 1 }),
	}
	// Programs that fail to load: a revision without a program, a load
	// error; both count as pass rate 0 (uct rewards them −1).
	lf := policytest.Exhaustive("load-failures", 3, 3, hashed([]int{2, 2, 2}))
	for i := range lf.Nodes {
		n := &lf.Nodes[i]
		switch {
		case i > 0 && i%5 == 0:
			n.Exec = corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "ImportError"}
		case i > 0 && i%7 == 0:
			n.ReviseFailed, n.Program, n.ProgramSHA = true, "", ""
			n.Exec = corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "the revision held no program"}
		}
	}
	trees = append(trees, lf)
	for _, t := range trees {
		corpus.ComputeLabels(t)
	}
	return trees
}

// RoundTrip writes trees to a corpus shard and loads them back as `triage
// eval` does (corpus.LoadTrees), in the order given.
func RoundTrip(trees []*corpus.Tree, dir string) ([]*corpus.Tree, error) {
	f, err := os.Create(filepath.Join(dir, corpus.ShardFileName(0)))
	if err != nil {
		return nil, err
	}
	w := corpus.NewShardWriter(f, corpus.WriterOptions{})
	for i, t := range trees {
		if err := w.WriteTree(t, i); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	loaded, err := corpus.LoadTrees(dir)
	if err != nil {
		return nil, err
	}
	byID := map[string]*corpus.Tree{}
	for _, t := range loaded {
		byID[t.ID] = t
	}
	out := make([]*corpus.Tree, len(trees))
	for i, t := range trees {
		if out[i] = byID[t.ID]; out[i] == nil {
			return nil, fmt.Errorf("tree %s lost in the round trip", t.ID)
		}
	}
	return out, nil
}

// Outcome is where a search of a recorded tree ended, in the recorded
// tree's ids.
type Outcome struct {
	Solved bool          `json:"solved"`
	Fix    corpus.NodeID `json:"fix"` // the first fix; -1 without one
	// Expansions and Tokens through the fix (or in all, without one).
	Expansions int             `json:"expansions"`
	Tokens     int             `json:"tokens"`
	Order      []corpus.EdgeID `json:"order"` // the edges expanded
}

// Case is one policy, seed and batch size of a parity check.
type Case struct {
	Policy string        `json:"policy"`
	Params policy.Params `json:"params,omitempty"`
	Seed   uint64        `json:"seed"`
	Batch  int           `json:"batch"`
}

// Cases are every policy (learned and the baselines) at each seed and
// batch size; bgmcts gets the budget `triage eval` gives it on Trees.
func Cases(seeds []uint64, batches []int) []Case {
	var out []Case
	for _, name := range append([]string{"learned"}, policy.Baselines...) {
		for _, batch := range batches {
			for _, seed := range seeds {
				c := Case{Policy: name, Seed: seed, Batch: batch}
				if name == "bgmcts" {
					c.Params = policy.Params{"budget": 36}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// NewPolicy builds c's policy; learned uses scorer.
func NewPolicy(c Case, scorer policy.Scorer) (policy.Policy, error) {
	if c.Policy == "learned" {
		return policy.NewLearned(scorer)
	}
	return policy.New(c.Policy, c.Params)
}

// Replay is `triage eval`'s replay of t (search.Run over search.NewReplay,
// no budget).
func Replay(ctx context.Context, t *corpus.Tree, p policy.Policy, seed uint64, batch int) (Outcome, error) {
	env, err := search.NewReplay(t)
	if err != nil {
		return Outcome{}, err
	}
	res, err := search.Run(ctx, env, p, search.Config{Seed: seed, Batch: batch})
	if err != nil && !errors.Is(err, search.ErrBudgetExhausted) && !errors.Is(err, search.ErrFrontierEmpty) {
		return Outcome{}, err
	}
	return Outcome{Solved: res.Solved, Fix: res.Fix, Expansions: res.Expansions, Tokens: res.Tokens, Order: res.Order}, nil
}

// DriveSession replays t through a new session at c: it sends the root,
// asks for batch edges at a time, and tells the recorded child of each, in
// order, until a fix or an empty answer. Edits without a recorded child
// are not sent (a replay cannot expand them). The session is deleted at
// the end. scripts/serve/triage_client.py's replay does the same.
func DriveSession(ctx context.Context, c *serve.Client, t *corpus.Tree, cs Case) (Outcome, error) {
	recorded := func(e corpus.EdgeID) bool { return t.Edges[e].Child != corpus.NoNode }
	root := t.Root()
	sess, err := c.CreateSession(ctx, serve.CreateSessionRequest{Policy: cs.Policy, Params: cs.Params, Seed: cs.Seed,
		MaxDepth: t.D, K: t.K, TaskID: t.TaskID, Root: serve.ProgramOf(t, root, recorded)})
	if err != nil {
		return Outcome{}, err
	}
	defer c.DeleteSession(context.WithoutCancel(ctx), sess.ID)
	toRec := map[corpus.EdgeID]corpus.EdgeID{} // server edge → recorded edge
	nodeRec := map[corpus.NodeID]corpus.NodeID{0: 0}
	mapEdges := func(server []corpus.EdgeID, n *corpus.Node) error {
		var rec []corpus.EdgeID
		for _, e := range n.Edges {
			if recorded(e) {
				rec = append(rec, e)
			}
		}
		if len(rec) != len(server) {
			return fmt.Errorf("server numbered %d edits of node %d, sent %d", len(server), n.ID, len(rec))
		}
		for i, e := range server {
			toRec[e] = rec[i]
		}
		return nil
	}
	if err := mapEdges(sess.RootEdges, root); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Fix: corpus.NoNode}
	solved := root.Solved()
	for !solved {
		a, err := c.Ask(ctx, sess.ID, max(cs.Batch, 1))
		if err != nil {
			return out, err
		}
		if len(a.Edges) == 0 {
			break
		}
		for _, ae := range a.Edges {
			re, ok := toRec[ae.Edge]
			if !ok {
				return out, fmt.Errorf("asked edge %d was never numbered", ae.Edge)
			}
			child := t.Node(t.Edges[re].Child)
			tr, err := c.Tell(ctx, sess.ID, ae.Edge, serve.ProgramOf(t, child, recorded))
			if err != nil {
				return out, err
			}
			if err := mapEdges(tr.Edges, child); err != nil {
				return out, err
			}
			nodeRec[tr.Node] = child.ID
			out.Order = append(out.Order, re)
			if tr.Solved {
				solved = true
				break
			}
		}
	}
	st, err := c.Session(ctx, sess.ID)
	if err != nil {
		return out, err
	}
	out.Solved = st.Best.Solved
	out.Expansions, out.Tokens = st.Expansions, st.Tokens
	if out.Solved {
		out.Fix = nodeRec[st.Best.Node]
		out.Expansions, out.Tokens = st.Best.Expansion, st.Best.Tokens
	}
	return out, nil
}

// ModuleRoot returns the folder holding go.mod, above the working folder.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// Python is the interpreter of the client tests.
const Python = "/usr/bin/python3"

// CheckPythonParity starts a server with scorer (nil: baselines only),
// round-trips Trees through a corpus shard, and has the Python client
// replay every case on every tree through sessions; each outcome must
// equal Replay's. It skips when /usr/bin/python3 is missing.
func CheckPythonParity(t *testing.T, scorer policy.Scorer, cases []Case) {
	t.Helper()
	if _, err := os.Stat(Python); err != nil {
		t.Skipf("%s not found: %v", Python, err)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Scorer: scorer})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()
	dir := t.TempDir()
	trees, err := RoundTrip(Trees(), dir)
	if err != nil {
		t.Fatal(err)
	}
	treeFile, caseFile := filepath.Join(dir, "trees.json"), filepath.Join(dir, "cases.json")
	writeJSON(t, treeFile, trees)
	writeJSON(t, caseFile, cases)
	cmd := exec.Command(Python, filepath.Join(root, "scripts", "serve", "triage_client.py"),
		"--url", hs.URL, "replay", "--trees", treeFile, "--cases", caseFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python client: %v\n%s", err, stderr.String())
	}
	var got []struct {
		Tree    string  `json:"tree"`
		Case    Case    `json:"case"`
		Outcome Outcome `json:"outcome"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("python client output: %v\n%s", err, stdout.String())
	}
	if len(got) != len(trees)*len(cases) {
		t.Fatalf("python client replayed %d searches, want %d", len(got), len(trees)*len(cases))
	}
	i := 0
	for _, tr := range trees {
		for _, c := range cases {
			p, err := NewPolicy(c, scorer)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Replay(context.Background(), tr, p, c.Seed, c.Batch)
			if err != nil {
				t.Fatal(err)
			}
			g := got[i]
			i++
			if g.Tree != tr.ID || g.Case.Policy != c.Policy || g.Case.Seed != c.Seed {
				t.Fatalf("python result %d is for %s %+v, want %s %+v", i-1, g.Tree, g.Case, tr.ID, c)
			}
			if err := Same(g.Outcome, want); err != nil {
				t.Errorf("tree %s, %+v: python session %v", tr.ID, c, err)
			}
		}
	}
}

// Same compares a session's outcome with the replay's.
func Same(got, want Outcome) error {
	if got.Solved != want.Solved || got.Fix != want.Fix || got.Expansions != want.Expansions || got.Tokens != want.Tokens ||
		fmt.Sprint(got.Order) != fmt.Sprint(want.Order) {
		return fmt.Errorf("got solved=%v fix=%d expansions=%d tokens=%d order=%v; replay: solved=%v fix=%d expansions=%d tokens=%d order=%v",
			got.Solved, got.Fix, got.Expansions, got.Tokens, got.Order, want.Solved, want.Fix, want.Expansions, want.Tokens, want.Order)
	}
	return nil
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
