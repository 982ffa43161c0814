package build_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
)

func TestBuildTreeExhaustive(t *testing.T) {
	tests := []struct {
		name      string
		k, d      int
		wantNodes int
	}{
		{"k3d4", 3, 4, 121},
		{"k3d1", 3, 1, 4},
		{"k2d3", 2, 3, 15},
		{"k1d2", 1, 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &corpustest.FakeProposer{NoFails: true}
			x := &corpustest.FakeExecutor{}
			cfg := build.BuildConfig{K: tc.k, D: tc.d, Proposer: p, Executor: x, ProposerName: "fake"}
			task := &corpus.Task{ID: "t", Test: "tests"}
			// "NEVER" roots never pass and the no-fail proposer always gives k edits.
			root := "NEVER\n"
			tr, err := build.BuildTree(context.Background(), cfg, task, 0, root)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Nodes) != tc.wantNodes {
				t.Fatalf("nodes = %d, want %d", len(tr.Nodes), tc.wantNodes)
			}
			if len(tr.Edges) != tc.wantNodes-1 {
				t.Fatalf("edges = %d, want %d", len(tr.Edges), tc.wantNodes-1)
			}
			checkTreeInvariants(t, tr)
			for _, e := range tr.Edges {
				if !e.Label.Censored || e.Label.T != 0 {
					t.Errorf("edge %d: label %+v, want censored with t=0", e.ID, e.Label)
				}
			}
		})
	}
}

// checkTreeInvariants checks ids, BFS order, depths, leaves and labels.
func checkTreeInvariants(t *testing.T, tr *corpus.Tree) {
	t.Helper()
	if tr.Nodes[0].Parent != corpus.NoNode || tr.Nodes[0].ViaEdge != -1 || tr.Nodes[0].Depth != 0 {
		t.Errorf("root parent %d", tr.Nodes[0].Parent)
	}
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if int(n.ID) != i {
			t.Fatalf("node %d has id %d", i, n.ID)
		}
		if n.ProgramSHA != corpus.SHA256(n.Program) {
			t.Errorf("node %d: sha mismatch", i)
		}
		if i > 0 {
			p := &tr.Nodes[n.Parent]
			if n.Parent >= n.ID || n.Depth != p.Depth+1 || tr.Edges[n.ViaEdge].Child != n.ID || tr.Edges[n.ViaEdge].Parent != n.Parent {
				t.Errorf("node %d: bad parent/depth/edge", i)
			}
		}
		if n.Depth > tr.D {
			t.Errorf("node %d deeper than D", i)
		}
		if (n.Solved() || n.ReviseFailed || n.Depth == tr.D) && len(n.Edges) > 0 {
			t.Errorf("node %d: a leaf (solved %v, revise failed %v, depth %d) has edges", i, n.Solved(), n.ReviseFailed, n.Depth)
		}
		if n.ReviseFailed && (n.Program != "" || n.Exec.Status != corpus.StatusLoadError) {
			t.Errorf("node %d: revise failed but program %q status %s", i, n.Program, n.Exec.Status)
		}
	}
	prevParent := corpus.NodeID(-1)
	for i, e := range tr.Edges {
		if int(e.ID) != i {
			t.Fatalf("edge %d has id %d", i, e.ID)
		}
		if e.Parent < prevParent {
			t.Errorf("edge %d: edges not in parent order", i)
		}
		prevParent = e.Parent
		if e.Child == corpus.NoNode {
			t.Errorf("edge %d not expanded", i)
			continue
		}
		c := &tr.Nodes[e.Child]
		if want := int32(tr.D - c.Depth + 1); e.Label.B != want {
			t.Errorf("edge %d: b = %d, want %d", i, e.Label.B, want)
		}
		if !e.Label.Censored && (e.Label.T < 1 || e.Label.T > e.Label.B) {
			t.Errorf("edge %d: observed t=%d outside [1, b=%d]", i, e.Label.T, e.Label.B)
		}
		if c.Solved() && (e.Label.Censored || e.Label.T != 1) {
			t.Errorf("edge %d: child solved but label %+v", i, e.Label)
		}
	}
}

func TestBuildTreeDeterministicAndFeatures(t *testing.T) {
	task := &corpus.Task{ID: "task-x", Test: "tests"}
	var trees []*corpus.Tree
	var solved, reviseFailed, proposeFailed, observed, censored int
	for ri := 0; ri < 12; ri++ {
		root := "def f(x):\n    return x + " + string(rune('a'+ri)) + "\n"
		p := &corpustest.FakeProposer{}
		x := &corpustest.FakeExecutor{}
		tr, err := build.BuildTree(context.Background(), buildtest.Config(p, x), task, ri, root)
		if err != nil {
			t.Fatal(err)
		}
		again, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), task, ri, root)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tr, again) {
			t.Fatalf("root %d: rebuilt tree differs", ri)
		}
		if tr.ID != corpus.TreeID(task.ID, ri, root) || len(tr.ID) != 32 {
			t.Errorf("tree id %q", tr.ID)
		}
		// The executor ran each distinct program once.
		distinct := map[string]bool{}
		for _, n := range tr.Nodes {
			if !n.ReviseFailed {
				distinct[n.Program] = true
			}
		}
		if got := x.Calls(); got != int64(len(distinct)) {
			t.Errorf("root %d: executor ran %d times for %d distinct programs", ri, got, len(distinct))
		}
		checkTreeInvariants(t, tr)
		checkLabelsBruteForce(t, tr)
		if tr.HasFix() {
			solved++
		}
		for _, n := range tr.Nodes {
			if n.ReviseFailed {
				reviseFailed++
			}
			if n.ProposeFailed {
				proposeFailed++
			}
		}
		for _, e := range tr.Edges {
			if e.Label.Censored {
				censored++
			} else {
				observed++
			}
		}
		trees = append(trees, tr)
	}
	// The fixture must exercise every branch of the builder.
	if solved == 0 || reviseFailed == 0 || proposeFailed == 0 || observed == 0 || censored == 0 {
		t.Errorf("fixture too narrow: solved=%d reviseFailed=%d proposeFailed=%d observed=%d censored=%d",
			solved, reviseFailed, proposeFailed, observed, censored)
	}
}

// checkLabelsBruteForce recomputes each label by a breadth-first search of
// the child's subtree.
func checkLabelsBruteForce(t *testing.T, tr *corpus.Tree) {
	t.Helper()
	for _, e := range tr.Edges {
		// BFS from the child, counting expansions.
		type item struct {
			n    corpus.NodeID
			dist int32
		}
		q := []item{{e.Child, 0}}
		best := int32(-1)
		for len(q) > 0 {
			it := q[0]
			q = q[1:]
			n := &tr.Nodes[it.n]
			if n.Solved() {
				best = it.dist
				break
			}
			for _, ce := range n.Edges {
				q = append(q, item{tr.Edges[ce].Child, it.dist + 1})
			}
		}
		want := corpus.Label{B: e.Label.B, Censored: best < 0}
		if best >= 0 {
			want.T = best + 1
		}
		if e.Label != want {
			t.Errorf("edge %d: label %+v, brute force %+v", e.ID, e.Label, want)
		}
	}
}

func TestComputeLabelsTable(t *testing.T) {
	ok := corpus.Execution{Status: corpus.StatusOK, PassRate: 1, Tests: []corpus.TestResult{{Passed: true}}}
	bad := corpus.Execution{Status: corpus.StatusOK, PassRate: 0.5, Tests: []corpus.TestResult{{Passed: true}, {}}}
	// Tree (D=3): 0 -e0-> 1 -e2-> 3 (solved)
	//               -e1-> 2 (solved)
	//                      1 -e3-> 4 -e4-> 5 (fail)
	tree := &corpus.Tree{D: 3,
		Nodes: []corpus.Node{
			{ID: 0, Parent: corpus.NoNode, Depth: 0, Exec: bad, Edges: []corpus.EdgeID{0, 1}},
			{ID: 1, Parent: 0, Depth: 1, Exec: bad, Edges: []corpus.EdgeID{2, 3}},
			{ID: 2, Parent: 0, Depth: 1, Exec: ok},
			{ID: 3, Parent: 1, Depth: 2, Exec: ok},
			{ID: 4, Parent: 1, Depth: 2, Exec: bad, Edges: []corpus.EdgeID{4}},
			{ID: 5, Parent: 4, Depth: 3, Exec: bad},
		},
		Edges: []corpus.Edge{
			{ID: 0, Parent: 0, Child: 1}, {ID: 1, Parent: 0, Child: 2},
			{ID: 2, Parent: 1, Child: 3}, {ID: 3, Parent: 1, Child: 4},
			{ID: 4, Parent: 4, Child: 5},
		},
	}
	corpus.ComputeLabels(tree)
	want := []corpus.Label{
		{T: 2, B: 3}, {T: 1, B: 3},
		{T: 1, B: 2}, {T: 0, B: 2, Censored: true},
		{T: 0, B: 1, Censored: true},
	}
	for i, w := range want {
		if got := tree.Edges[i].Label; got != w {
			t.Errorf("edge %d: %+v, want %+v", i, got, w)
		}
	}
	// An unexpanded edge is censored.
	tree.Edges[4].Child = corpus.NoNode
	corpus.ComputeLabels(tree)
	if l := tree.Edges[4].Label; !l.Censored || l.B != 1 {
		t.Errorf("unexpanded edge: %+v", l)
	}
}

func TestBuildTreeErrors(t *testing.T) {
	task := &corpus.Task{ID: "t", Test: "x"}
	tests := []struct {
		name string
		cfg  build.BuildConfig
		ctx  func() context.Context
		want error
	}{
		{"bad k", build.BuildConfig{K: 0, D: 2, Proposer: &corpustest.FakeProposer{}, Executor: &corpustest.FakeExecutor{}}, context.Background, nil},
		{"no executor", build.BuildConfig{K: 1, D: 2, Proposer: &corpustest.FakeProposer{}}, context.Background, nil},
		{"executor down", buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{Fail: true}), context.Background, nil},
		{"proposer down", buildtest.Config(&corpustest.FakeProposer{FailTask: "t"}, &corpustest.FakeExecutor{}), context.Background, corpustest.ErrFakeDown},
		{"cancelled", buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build.BuildTree(tc.ctx(), tc.cfg, task, 0, "NEVER\n")
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCachedExecutor(t *testing.T) {
	x := &corpustest.FakeExecutor{}
	c := build.NewCachedExecutor(x)
	ctx := context.Background()
	a, err := c.Run(ctx, "p1", "t")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Run(ctx, "p1", "t")
	_, _ = c.Run(ctx, "p1", "t2")
	if x.Calls() != 2 || c.Hits() != 1 {
		t.Errorf("calls %d hits %d, want 2 and 1", x.Calls(), c.Hits())
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("cached result differs")
	}
	b.Tests[0].Name = "changed"
	if a.Tests[0].Name == "changed" {
		t.Error("cache shares its slices with callers")
	}
	// Infrastructure errors are not cached.
	bad := &corpustest.FakeExecutor{Fail: true}
	cb := build.NewCachedExecutor(bad)
	if _, err := cb.Run(ctx, "p", "t"); err == nil {
		t.Fatal("no error")
	}
	bad.Fail = false
	if _, err := cb.Run(ctx, "p", "t"); err != nil {
		t.Errorf("error cached: %v", err)
	}
}

func TestSplitOf(t *testing.T) {
	counts := map[string]int{}
	for i := 0; i < 2000; i++ {
		task := &corpus.Task{ID: "task" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))}
		counts[corpus.SplitOf(task)]++
	}
	if counts[corpus.SplitTrain] < 1400 || counts[corpus.SplitVal] < 120 || counts[corpus.SplitTest] < 120 {
		t.Errorf("split counts %v, want about 80/10/10", counts)
	}
	if got := corpus.SplitOf(&corpus.Task{ID: "x", Split: "val"}); got != "val" {
		t.Errorf("explicit split ignored: %s", got)
	}
}
