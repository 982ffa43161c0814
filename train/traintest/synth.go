// Package traintest holds what the tests of train and its experiments
// share: synthetic trees a model can learn from, and the CPU backend.
//
// Imports: corpus, model.
package traintest

import (
	"fmt"
	"math/rand/v2"

	"triage/corpus"
	"triage/model"
)

// SynthTrees makes n exhaustive trees (k edits per node, depth d) whose
// fixes follow a signal a model can learn: on the path to the fix every
// edit says "restore" and names a token of the program, other edits say
// "rename" or "invert". Trees of task i%tasks; half of the tasks in train,
// a quarter each in val and test.
func SynthTrees(n, tasks, k, d int, seed uint64) []*corpus.Tree {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*corpus.Tree
	for i := 0; i < n; i++ {
		task := fmt.Sprintf("task%02d", i%tasks)
		split := corpus.SplitTrain
		switch (i % tasks) % 4 {
		case 2:
			split = corpus.SplitVal
		case 3:
			split = corpus.SplitTest
		}
		t := &corpus.Tree{ID: fmt.Sprintf("tree%03d", i), TaskID: task, Split: split, K: k, D: d,
			Proposer: "synth", Model: "synth"}
		fixDepth := 1 + rng.IntN(d)
		good := make([]int, d) // the good edit's index at each depth
		for j := range good {
			good[j] = rng.IntN(k)
		}
		prog := fmt.Sprintf("def f(a, b):\n    c = a %s b\n    return c\n", []string{"+", "-", "*"}[i%3])
		var grow func(parent corpus.NodeID, onPath bool)
		mk := func(depth int, onPath bool, parent corpus.NodeID, via corpus.EdgeID) corpus.NodeID {
			id := corpus.NodeID(len(t.Nodes))
			solved := onPath && depth == fixDepth
			ex := corpus.Execution{Status: corpus.StatusOK, Tests: []corpus.TestResult{{Name: "test_a", Passed: solved}, {Name: "test_b", Passed: solved || onPath}},
				Feedback: "FAILED test_a - assert 1 == 2"}
			if solved {
				ex.PassRate, ex.FailedFrac, ex.Feedback = 1, 0, ""
			} else if onPath {
				ex.PassRate, ex.FailedFrac = 0.5, 0.5
			} else {
				ex.PassRate, ex.FailedFrac = 0.5*rng.Float64(), 0.5
			}
			t.Nodes = append(t.Nodes, corpus.Node{ID: id, Parent: parent, ViaEdge: via, Depth: depth,
				Program: prog, ProgramSHA: corpus.SHA256(fmt.Sprint(i, id)), Exec: ex,
				Diagnosis:    fmt.Sprintf("1 of 2 tests fail.\nSuspicious lines (Ochiai):\n- line 2 (0.%d0): `c = a + b`\n", 5+rng.IntN(4)),
				ReviseTokens: 40, ProposeTokens: 60})
			return id
		}
		grow = func(v corpus.NodeID, onPath bool) {
			n := &t.Nodes[v]
			if n.Solved() || n.Depth >= d {
				return
			}
			for j := 0; j < k; j++ {
				path := onPath && j == good[n.Depth]
				text := fmt.Sprintf("Line 2: change `c = a + b` to `c = b %s a`; rename the operands, so it reads the wrong variable.", "-")
				if j%2 == 1 {
					text = "Line 3: change `return c` to `return not (c)`; invert the result, so the logic is inverted."
				}
				if path {
					text = "Line 2: change `c = a - b` to `c = a + b`; restore the operator, so the value is computed with the right operator."
				}
				e := corpus.EdgeID(len(t.Edges))
				t.Edges = append(t.Edges, corpus.Edge{ID: e, Parent: v, Index: j, Edit: corpus.ProposedEdit{Text: text}, Child: corpus.NoNode})
				t.Nodes[v].Edges = append(t.Nodes[v].Edges, e)
			}
			for _, e := range append([]corpus.EdgeID(nil), t.Nodes[v].Edges...) {
				path := onPath && t.Edges[e].Index == good[t.Nodes[v].Depth]
				c := mk(t.Nodes[v].Depth+1, path, v, e)
				t.Edges[e].Child = c
				grow(c, path)
			}
		}
		mk(0, true, corpus.NoNode, -1)
		grow(0, true)
		corpus.ComputeLabels(t)
		out = append(out, t)
	}
	return out
}

// SplitOf keeps the trees of one split.
func SplitOf(trees []*corpus.Tree, split string) []*corpus.Tree {
	var out []*corpus.Tree
	for _, t := range trees {
		if t.Split == split {
			out = append(out, t)
		}
	}
	return out
}

// TinyBag is the small architecture at a size that trains in a second on
// the synthetic trees.
func TinyBag() model.BagConfig {
	return model.BagConfig{Buckets: 1 << 10, Embed: 8, Hidden: 16, MaxParentIDs: 64, MaxEditIDs: 48, NGramOrder: 2, NGramBits: 10}
}
