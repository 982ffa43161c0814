package serve_test

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
	"slices"
	"strings"
	"testing"
	"triage/search/serve/api"

	"triage/corpus"
	"triage/policy"
	"triage/policy/policytest"
	"triage/search"
	"triage/search/serve"
)

// numberingFree are the policies whose choices depend on the tree's shape,
// pass rates and edit order only. random and rex also draw by EdgeID and
// NodeID; a session numbers nodes and edges in the order they are told,
// where a corpus numbers them breadth-first, so their draws (not their
// rules) differ from a replay's.
var numberingFree = []string{"learned", "hybrid", "bfs", "dfs", "passrate", "abmcts", "bgmcts", "uct"}

func newCase(name string, seed uint64, batch int) parityCase {
	c := parityCase{Policy: name, Seed: seed, Batch: batch}
	if name == "bgmcts" {
		// As `triage eval` gives it the largest reported budget.
		c.Params = policy.Params{"budget": 36}
	}
	return c
}

// TestSessionMatchesReplay: a server session, driven with the Go client
// over a recorded tree, makes the decisions of a direct search.Session
// (search.Run over the replayed tree) with the same policy and seed. Both
// are the one search.Session; the check covers the server's numbering of
// what it is told and the client.
func TestSessionMatchesReplay(t *testing.T) {
	scorer := serve.NewStandIn(0, 0)
	srv, err := serve.New(serve.Options{Scorer: scorer})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := &api.Client{BaseURL: hs.URL}
	trees := parityTrees()
	exact := map[string]bool{}
	for _, n := range numberingFree {
		exact[n] = true
	}
	for _, name := range append(slices.Clone(policy.Scored), policy.Baselines...) {
		for _, batch := range []int{1, 2} {
			for seed := uint64(1); seed <= 3; seed++ {
				cs := newCase(name, seed, batch)
				p, err := newParityPolicy(cs, scorer)
				if err != nil {
					t.Fatal(err)
				}
				for _, tr := range trees {
					want, err := directSession(context.Background(), tr, p, seed, batch)
					if err != nil {
						t.Fatal(err)
					}
					got, err := driveSession(context.Background(), c, tr, cs)
					if err != nil {
						t.Fatalf("%+v on %s: %v", cs, tr.ID, err)
					}
					if exact[name] {
						if err := same(got, want); err != nil {
							t.Errorf("%+v on %s: session %v", cs, tr.ID, err)
						}
						continue
					}
					// Same rules, other draws: still a complete search that
					// finds a fix exactly when the tree holds one.
					if got.Solved != want.Solved || (got.Solved && !tr.Node(got.Fix).Solved()) {
						t.Errorf("%+v on %s: session solved=%v fix=%d, replay solved=%v", cs, tr.ID, got.Solved, got.Fix, want.Solved)
					}
				}
			}
		}
	}
}

// TestPythonClientMatchesReplay is the end-to-end check: the Python client
// drives sessions over recorded trees and must reach the replay's fix in
// the same expansions and tokens. learned runs on the stand-in scorer here;
// cmd/triage's test runs it on a real checkpoint when one is available.
func TestPythonClientMatchesReplay(t *testing.T) {
	var cases []parityCase
	for _, name := range numberingFree {
		cases = append(cases, newCase(name, 1, 1))
	}
	cases = append(cases, newCase("uct", 2, 1), newCase("abmcts", 2, 2), newCase("learned", 1, 2), newCase("bfs", 1, 3))
	checkPythonParity(t, serve.NewStandIn(0, 0), cases)
}

func ExampleClient() {
	srv, _ := serve.New(serve.Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := &api.Client{BaseURL: hs.URL}
	ctx := context.Background()
	passed := 0.5
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", Budget: 10, Root: api.Program{
		Program: "def f(n):\n    return n\n", PassRate: &passed,
		Tests: []api.Test{{Name: "test_one", Passed: true}, {Name: "test_two", Passed: false}},
		Edits: []api.Edit{{Text: "return n + 1"}, {Text: "return 2 * n"}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := c.Ask(ctx, s.ID, 1)
	fmt.Println("expand edge", a.Edges[0].Edge, "of node", a.Edges[0].Parent, ":", a.Edges[0].Edit.Text)
	r, _ := c.Tell(ctx, s.ID, a.Edges[0].Edge, api.Program{Program: "def f(n):\n    return n + 1\n",
		Tests: []api.Test{{Name: "test_one", Passed: true}, {Name: "test_two", Passed: true}}})
	fmt.Println("solved:", r.Solved, "state:", r.State, "expansions:", r.Expansions)
	// Output:
	// expand edge 0 of node 0 : return n + 1
	// solved: true state: solved expansions: 1
}

// TestPythonClientAPI runs the Python client's calls against a live server
// with a token: priorities equal the Go client's, errors arrive as
// TriageError with the server's status and message, and the Parquet export
// is a Parquet file.
func TestPythonClientAPI(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found: %v", python, err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, serve.Options{Scorer: serve.NewStandIn(0, 0), Token: "tok"})
	edges := testEdges(4)
	want, err := f.c.Priorities(context.Background(), edges)
	if err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys
sys.path.insert(0, sys.argv[2])
from triage_client import Client, TriageError
url, edges, want = sys.argv[1], json.loads(sys.argv[3]), json.loads(sys.argv[4])
c = Client(url, token="tok")
assert c.health()["learned"] is True
assert c.priorities(edges) == want, "priorities differ from the Go client's"
for bad, status, text in [(lambda: Client(url).priorities(edges), 401, "bearer token"),
                          (lambda: c.ask("nope"), 404, "no session"),
                          (lambda: c.create_session(policy="bfs", budget=-1, root={"program": "x"}), 400, "negative")]:
    try:
        bad()
        raise SystemExit("no error for status %d" % status)
    except TriageError as e:
        assert e.status == status and text in e.message, (e.status, e.message)
s = c.create_session(policy="dfs", root={"program": "x", "tests": [{"name": "t", "passed": False}], "edits": [{"text": "e"}]})
e = c.ask(s["id"])["edges"][0]
r = c.tell(s["id"], e["edge"], {"program": "y", "tests": [{"name": "t", "passed": True}]})
assert r["solved"] and c.session(s["id"])["state"] == "solved"
assert c.tree(s["id"], "parquet")[:4] == b"PAR1"
assert len(c.tree(s["id"])["nodes"]) == 2
assert c.delete_session(s["id"])["expansions"] == 1
print("ok")
`
	ej, _ := json.Marshal(edges)
	wj, _ := json.Marshal(want)
	out, err := exec.Command(python, "-c", script, f.hs.URL, filepath.Join(root, "scripts", "serve"), string(ej), string(wj)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("python client: %v\n%s", err, out)
	}
}

// parityTrees returns the recorded trees of the parity checks: exhaustive trees
// (k = 3) with pass rates from a hash of each program's path, so that
// policies disagree, fixes at various depths, a tree without a fix, one
// whose root passes, and one with programs that fail to load.
func parityTrees() []*corpus.Tree {
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

// outcome is where a search of a recorded tree ended, in the recorded
// tree's ids.
type outcome struct {
	Solved bool          `json:"solved"`
	Fix    corpus.NodeID `json:"fix"` // the first fix; -1 without one
	// Expansions and Tokens through the fix (or in all, without one).
	Expansions int             `json:"expansions"`
	Tokens     int             `json:"tokens"`
	Order      []corpus.EdgeID `json:"order"` // the edges expanded
}

// parityCase is one policy, seed and batch size of a parity check.
type parityCase struct {
	Policy string        `json:"policy"`
	Params policy.Params `json:"params,omitempty"`
	Seed   uint64        `json:"seed"`
	Batch  int           `json:"batch"`
}

// newParityPolicy builds c's policy; learned and hybrid use scorer.
func newParityPolicy(c parityCase, scorer policy.Scorer) (policy.Policy, error) {
	return policy.NewScored(c.Policy, c.Params, scorer)
}

// directSession replays t with search.Run over search.NewReplay (no
// budget), as `triage eval` does.
func directSession(ctx context.Context, t *corpus.Tree, p policy.Policy, seed uint64, batch int) (outcome, error) {
	env, err := search.NewReplay(t)
	if err != nil {
		return outcome{}, err
	}
	res, err := search.Run(ctx, env, p, search.Config{Seed: seed, Batch: batch})
	if err != nil {
		return outcome{}, err
	}
	return outcome{Solved: res.Solved, Fix: res.Fix, Expansions: res.Expansions, Tokens: res.Tokens, Order: res.Order}, nil
}

// driveSession replays t through a new session at c: it sends the root,
// asks for batch edges at a time, and tells the recorded child of each, in
// order, until a fix or an empty answer. Edits without a recorded child
// are not sent (a replay cannot expand them). The session is deleted at
// the end. scripts/serve/triage_client.py's replay does the same.
func driveSession(ctx context.Context, c *api.Client, t *corpus.Tree, cs parityCase) (outcome, error) {
	recorded := func(e corpus.EdgeID) bool { return t.Edges[e].Child != corpus.NoNode }
	root := t.Root()
	sess, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: cs.Policy, Params: cs.Params, Seed: cs.Seed,
		MaxDepth: t.D, K: t.K, TaskID: t.TaskID, Root: api.ProgramOf(t, root, recorded)})
	if err != nil {
		return outcome{}, err
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
		return outcome{}, err
	}
	out := outcome{Fix: corpus.NoNode}
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
			tr, err := c.Tell(ctx, sess.ID, ae.Edge, api.ProgramOf(t, child, recorded))
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

// moduleRoot returns the folder holding go.mod, above the working folder.
func moduleRoot() (string, error) {
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

// python is the interpreter of the client tests.
const python = "/usr/bin/python3"

// checkPythonParity starts a server with scorer (nil: baselines only),
// round-trips Trees through a corpus shard, and has the Python client
// replay every case on every tree through sessions; each outcome must
// equal Replay's. It skips when /usr/bin/python3 is missing.
func checkPythonParity(t *testing.T, scorer policy.Scorer, cases []parityCase) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found: %v", python, err)
	}
	root, err := moduleRoot()
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
	trees := parityTrees()
	treeFile, caseFile := filepath.Join(dir, "trees.json"), filepath.Join(dir, "cases.json")
	writeTestJSON(t, treeFile, trees)
	writeTestJSON(t, caseFile, cases)
	cmd := exec.Command(python, filepath.Join(root, "scripts", "serve", "triage_client.py"),
		"--url", hs.URL, "replay", "--trees", treeFile, "--cases", caseFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python client: %v\n%s", err, stderr.String())
	}
	var got []struct {
		Tree    string     `json:"tree"`
		Case    parityCase `json:"case"`
		Outcome outcome    `json:"outcome"`
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
			p, err := newParityPolicy(c, scorer)
			if err != nil {
				t.Fatal(err)
			}
			want, err := directSession(context.Background(), tr, p, c.Seed, c.Batch)
			if err != nil {
				t.Fatal(err)
			}
			g := got[i]
			i++
			if g.Tree != tr.ID || g.Case.Policy != c.Policy || g.Case.Seed != c.Seed {
				t.Fatalf("python result %d is for %s %+v, want %s %+v", i-1, g.Tree, g.Case, tr.ID, c)
			}
			if err := same(g.Outcome, want); err != nil {
				t.Errorf("tree %s, %+v: python session %v", tr.ID, c, err)
			}
		}
	}
}

// same compares a session's outcome with the replay's.
func same(got, want outcome) error {
	if got.Solved != want.Solved || got.Fix != want.Fix || got.Expansions != want.Expansions || got.Tokens != want.Tokens ||
		fmt.Sprint(got.Order) != fmt.Sprint(want.Order) {
		return fmt.Errorf("got solved=%v fix=%d expansions=%d tokens=%d order=%v; replay: solved=%v fix=%d expansions=%d tokens=%d order=%v",
			got.Solved, got.Fix, got.Expansions, got.Tokens, got.Order, want.Solved, want.Fix, want.Expansions, want.Tokens, want.Order)
	}
	return nil
}

func writeTestJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
