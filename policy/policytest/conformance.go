package policytest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"triage/corpus"
	"triage/policy"
)

// Replay runs p on the recorded tree t with the given seed and batch size
// until the first fix or an empty frontier, checking on the way that every
// chosen edge is in the frontier and new, and that asking for an expanded
// edge fails. With doubleTell every Tell is repeated; with shuffle the tells
// of a batch are given in a random order. It returns the expansion order.
func Replay(t *corpus.Tree, p policy.Policy, seed uint64, batch int, doubleTell, shuffle bool) ([]corpus.EdgeID, error) {
	ep := p.Start(t, seed)
	var fr []corpus.EdgeID
	addEdges := func(v corpus.NodeID) {
		for _, e := range t.Nodes[v].Edges {
			if t.Edges[e].Child != corpus.NoNode {
				fr = append(fr, e)
			}
		}
	}
	addEdges(0)
	expanded := make([]bool, len(t.Edges))
	var order []corpus.EdgeID
	shuf := rand.New(rand.NewPCG(seed, 7))
	if t.Root().Solved() {
		return nil, nil
	}
	for len(fr) > 0 {
		chosen, err := ep.Ask(context.Background(), fr, batch)
		if err != nil {
			return order, fmt.Errorf("ask after %d expansions: %w", len(order), err)
		}
		if len(chosen) == 0 || len(chosen) > batch {
			return order, fmt.Errorf("ask(%d) from %d returned %d edges", batch, len(fr), len(chosen))
		}
		for i, e := range chosen {
			if !slices.Contains(fr, e) {
				return order, fmt.Errorf("chose edge %d outside the frontier %v", e, fr)
			}
			if expanded[e] || slices.Contains(chosen[:i], e) {
				return order, fmt.Errorf("chose edge %d twice", e)
			}
		}
		tells := slices.Clone(chosen)
		if shuffle {
			shuf.Shuffle(len(tells), func(i, j int) { tells[i], tells[j] = tells[j], tells[i] })
		}
		solved := false
		for _, e := range tells {
			expanded[e] = true
			order = append(order, e)
			fr = slices.DeleteFunc(fr, func(x corpus.EdgeID) bool { return x == e })
			c := t.Edges[e].Child
			reps := 1
			if doubleTell {
				reps = 2
			}
			for range reps {
				if err := ep.Tell(e, t.Node(c)); err != nil {
					return order, fmt.Errorf("tell edge %d: %w", e, err)
				}
			}
			if t.Node(c).Solved() {
				solved = true
			}
			addEdges(c)
		}
		if solved {
			// The asked-for expanded edge must be refused.
			if _, err := ep.Ask(context.Background(), []corpus.EdgeID{order[0]}, 1); err == nil {
				return order, fmt.Errorf("ask with expanded edge %d: no error", order[0])
			}
			return order, nil
		}
	}
	return order, nil
}

// firstFix is the number of expansions of order through the first fix.
func firstFix(t *corpus.Tree, order []corpus.EdgeID) int {
	for i, e := range order {
		if t.Node(t.Edges[e].Child).Solved() {
			return i + 1
		}
	}
	return -1
}

// Conformance runs the contract of policy.Episode against the policy that
// mk returns: no panic and no edge on an empty frontier; errors for n < 1,
// out-of-range and expanded edges and bad tells; idempotent and shuffled
// Tell; the same seed gives the same choices; never an edge outside the
// frontier or twice; the fix of an exhaustive tree found within its size.
func Conformance(t *testing.T, mk func() (policy.Policy, error)) {
	t.Helper()
	p, err := mk()
	if err != nil {
		t.Fatalf("make policy: %v", err)
	}
	trees := conformanceTrees()
	t.Run("empty frontier", func(t *testing.T) { checkEmptyFrontier(t, p, trees[0]) })
	t.Run("bad asks", func(t *testing.T) { checkBadAsks(t, p, trees[0]) })
	t.Run("bad tells", func(t *testing.T) { checkBadTells(t, p, trees[0]) })
	t.Run("dedupes frontier", func(t *testing.T) { checkDedupes(t, p, trees[0]) })
	for _, tr := range trees {
		t.Run(tr.ID, func(t *testing.T) { checkReplays(t, p, tr) })
	}
}

// conformanceTrees are the trees Conformance replays: hand-made shapes (a
// deep fix, a shallow one, graded pass rates, a wide tree, no fix) and
// random trees with random pass rates and one random fix.
func conformanceTrees() []*corpus.Tree {
	trees := []*corpus.Tree{
		Exhaustive("deep", 3, 4, FixAt(0.3, 2, 1, 0, 2)),
		Exhaustive("shallow", 3, 4, FixAt(0.5, 1)),
		Exhaustive("graded", 3, 4, func(path []int) float64 {
			if len(path) == 3 && path[0] == 1 && path[2] == 2 {
				return 1
			}
			return 0.1 * float64(len(path)+path0(path))
		}),
		Exhaustive("wide", 5, 3, FixAt(0.2, 4, 4, 4)),
		Exhaustive("nofix", 3, 3, func([]int) float64 { return 0.4 }),
	}
	r := rand.New(rand.NewPCG(42, 42))
	for i := range 4 {
		k, d := 2+r.IntN(3), 2+r.IntN(3)
		fix := make([]int, 1+r.IntN(d))
		for j := range fix {
			fix[j] = r.IntN(k)
		}
		salt := r.Uint64()
		trees = append(trees, Exhaustive(fmt.Sprintf("random%d", i), k, d, func(path []int) float64 {
			if slices.Equal(path, fix) {
				return 1
			}
			h := salt
			for _, x := range path {
				h = h*31 + uint64(x) + 1
			}
			return float64(h%97) / 100
		}))
	}
	return trees
}

// checkEmptyFrontier: an empty frontier gives no edge and no error.
func checkEmptyFrontier(t *testing.T, p policy.Policy, tr *corpus.Tree) {
	ep := p.Start(tr, 1)
	got, err := ep.Ask(context.Background(), nil, 1)
	if err != nil || len(got) != 0 {
		t.Errorf("Ask(nil, 1) = %v, %v; want no edges, nil", got, err)
	}
	got, err = ep.Ask(context.Background(), []corpus.EdgeID{}, 3)
	if err != nil || len(got) != 0 {
		t.Errorf("Ask([], 3) = %v, %v; want no edges, nil", got, err)
	}
}

// checkBadAsks: n < 1 and edges outside the tree are errors.
func checkBadAsks(t *testing.T, p policy.Policy, tr *corpus.Tree) {
	ep := p.Start(tr, 1)
	for _, c := range []struct {
		name string
		fr   []corpus.EdgeID
		n    int
	}{
		{"n=0", tr.Root().Edges, 0},
		{"n<0", tr.Root().Edges, -2},
		{"negative edge", []corpus.EdgeID{-1}, 1},
		{"edge past the tree", []corpus.EdgeID{corpus.EdgeID(len(tr.Edges))}, 1},
	} {
		if got, err := ep.Ask(context.Background(), c.fr, c.n); err == nil {
			t.Errorf("%s: Ask(%v, %d) = %v, nil; want an error", c.name, c.fr, c.n, got)
		}
	}
}

// checkBadTells: a nil child, an edge outside the tree, another edge's
// child and a NaN pass rate are errors, and change nothing.
func checkBadTells(t *testing.T, p policy.Policy, tr *corpus.Tree) {
	ep := p.Start(tr, 1)
	e := tr.Root().Edges[0]
	other := tr.Node(tr.Edges[tr.Root().Edges[1]].Child)
	nan := *tr.Node(tr.Edges[e].Child)
	nan.Exec.PassRate = math.NaN()
	for _, c := range []struct {
		name  string
		e     corpus.EdgeID
		child *corpus.Node
	}{
		{"nil child", e, nil},
		{"edge out of range", corpus.EdgeID(len(tr.Edges)), other},
		{"child of another edge", e, other},
		{"pass rate NaN", e, &nan},
	} {
		if err := ep.Tell(c.e, c.child); err == nil {
			t.Errorf("%s: Tell = nil, want an error", c.name)
		}
	}
	// The rejected tells changed nothing: e is still askable.
	if _, err := ep.Ask(context.Background(), []corpus.EdgeID{e}, 1); err != nil {
		t.Errorf("Ask after rejected tells: %v", err)
	}
}

// checkDedupes: an edge given twice in the frontier is asked for once.
func checkDedupes(t *testing.T, p policy.Policy, tr *corpus.Tree) {
	ep := p.Start(tr, 3)
	e := tr.Root().Edges
	got, err := ep.Ask(context.Background(), []corpus.EdgeID{e[0], e[0], e[1], e[1]}, 5)
	if err != nil || len(got) != 2 || got[0] == got[1] {
		t.Errorf("Ask with duplicates = %v, %v; want the 2 distinct edges", got, err)
	}
}

// checkReplays replays tr with several seeds and batches: the same seed
// repeats its choices, repeated and shuffled tells change nothing, and the
// fix is found within the tree (every edge expanded when there is none).
func checkReplays(t *testing.T, p policy.Policy, tr *corpus.Tree) {
	for _, seed := range []uint64{1, 2, 99} {
		for _, batch := range []int{1, 3} {
			a, err := Replay(tr, p, seed, batch, false, false)
			if err != nil {
				t.Fatalf("seed %d batch %d: %v", seed, batch, err)
			}
			b, err := Replay(tr, p, seed, batch, false, false)
			if err != nil {
				t.Fatalf("seed %d batch %d again: %v", seed, batch, err)
			}
			if !slices.Equal(a, b) {
				t.Errorf("seed %d batch %d: two runs differ:\n%v\n%v", seed, batch, a, b)
			}
			d, err := Replay(tr, p, seed, batch, true, false)
			if err != nil {
				t.Fatalf("seed %d batch %d double tell: %v", seed, batch, err)
			}
			if !slices.Equal(a, d) {
				t.Errorf("seed %d batch %d: repeated tells changed the choices:\n%v\n%v", seed, batch, a, d)
			}
			if _, err := Replay(tr, p, seed, batch, true, true); err != nil {
				t.Fatalf("seed %d batch %d shuffled tells: %v", seed, batch, err)
			}
			if tr.HasFix() {
				if ff := firstFix(tr, a); ff < 1 || ff > len(tr.Edges) {
					t.Errorf("seed %d batch %d: first fix at %d, want within 1..%d", seed, batch, ff, len(tr.Edges))
				}
			} else if len(a) != len(tr.Edges) {
				t.Errorf("seed %d batch %d: expanded %d of %d edges of a tree with no fix", seed, batch, len(a), len(tr.Edges))
			}
		}
	}
}

func path0(path []int) int {
	if len(path) == 0 {
		return 0
	}
	return path[0]
}
