package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"triage/policy"
	"triage/search/serve"
	"triage/search/serve/servetest"
)

// numberingFree are the policies whose choices depend on the tree's shape,
// pass rates and edit order only. random and rex also draw by EdgeID and
// NodeID; a session numbers nodes and edges in the order they are told,
// where a corpus numbers them breadth-first, so their draws (not their
// rules) differ from a replay's.
var numberingFree = []string{"learned", "hybrid", "bfs", "dfs", "passrate", "abmcts", "bgmcts", "uct"}

func parityCase(name string, seed uint64, batch int) servetest.Case {
	c := servetest.Case{Policy: name, Seed: seed, Batch: batch}
	if name == "bgmcts" {
		// As `triage eval` gives it the largest reported budget.
		c.Params = policy.Params{"budget": 36}
	}
	return c
}

// TestSessionMatchesReplay drives sessions with the Go client over
// recorded trees and compares each with `triage eval`'s replay.
func TestSessionMatchesReplay(t *testing.T) {
	scorer := serve.NewStandIn(0, 0)
	srv, err := serve.New(serve.Options{Scorer: scorer})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := &serve.Client{BaseURL: hs.URL}
	trees, err := servetest.RoundTrip(servetest.Trees(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]bool{}
	for _, n := range numberingFree {
		exact[n] = true
	}
	for _, name := range append(slices.Clone(policy.Scored), policy.Baselines...) {
		for _, batch := range []int{1, 2} {
			for seed := uint64(1); seed <= 3; seed++ {
				cs := parityCase(name, seed, batch)
				p, err := servetest.NewPolicy(cs, scorer)
				if err != nil {
					t.Fatal(err)
				}
				for _, tr := range trees {
					want, err := servetest.Replay(context.Background(), tr, p, seed, batch)
					if err != nil {
						t.Fatal(err)
					}
					got, err := servetest.DriveSession(context.Background(), c, tr, cs)
					if err != nil {
						t.Fatalf("%+v on %s: %v", cs, tr.ID, err)
					}
					if exact[name] {
						if err := servetest.Same(got, want); err != nil {
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
	var cases []servetest.Case
	for _, name := range numberingFree {
		cases = append(cases, parityCase(name, 1, 1))
	}
	cases = append(cases, parityCase("uct", 2, 1), parityCase("abmcts", 2, 2), parityCase("learned", 1, 2), parityCase("bfs", 1, 3))
	servetest.CheckPythonParity(t, serve.NewStandIn(0, 0), cases)
}

func ExampleClient() {
	srv, _ := serve.New(serve.Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := &serve.Client{BaseURL: hs.URL}
	ctx := context.Background()
	passed := 0.5
	s, err := c.CreateSession(ctx, serve.CreateSessionRequest{Policy: "bfs", Budget: 10, Root: serve.Program{
		Program: "def f(n):\n    return n\n", PassRate: &passed,
		Tests: []serve.Test{{Name: "test_one", Passed: true}, {Name: "test_two", Passed: false}},
		Edits: []serve.Edit{{Text: "return n + 1"}, {Text: "return 2 * n"}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := c.Ask(ctx, s.ID, 1)
	fmt.Println("expand edge", a.Edges[0].Edge, "of node", a.Edges[0].Parent, ":", a.Edges[0].Edit.Text)
	r, _ := c.Tell(ctx, s.ID, a.Edges[0].Edge, serve.Program{Program: "def f(n):\n    return n + 1\n",
		Tests: []serve.Test{{Name: "test_one", Passed: true}, {Name: "test_two", Passed: true}}})
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
	if _, err := os.Stat(servetest.Python); err != nil {
		t.Skipf("%s not found: %v", servetest.Python, err)
	}
	root, err := servetest.ModuleRoot()
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
	out, err := exec.Command(servetest.Python, "-c", script, f.hs.URL, filepath.Join(root, "scripts", "serve"), string(ej), string(wj)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("python client: %v\n%s", err, out)
	}
}
