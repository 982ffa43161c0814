package train

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"triage/corpus"
	"triage/model"
)

// uniqueFixTrees makes one tree per task: a root whose last line is wrong
// and three edits, the first of which writes the task's own fix line
// `return zq_<task>` (a name no other task uses) and fixes it.
func uniqueFixTrees(tasks int) []*corpus.Tree {
	var out []*corpus.Tree
	for i := range tasks {
		task := fmt.Sprintf("task%02d", i)
		root := "def f(a):\n    c = a + 1\n    return c\n"
		fix := strings.Replace(root, "return c", "return zq_"+task, 1)
		t := &corpus.Tree{ID: "tree-" + task, TaskID: task, Split: corpus.SplitTrain, K: 3, D: 2, Proposer: "synth", Model: "synth"}
		failing := corpus.Execution{Status: corpus.StatusOK, PassRate: 0.5, FailedFrac: 0.5,
			Tests: []corpus.TestResult{{Name: "test_a", Passed: true}, {Name: "test_b"}}, Feedback: "FAILED test_b - assert 2 == 3"}
		passing := corpus.Execution{Status: corpus.StatusOK, PassRate: 1, Tests: []corpus.TestResult{{Name: "test_a", Passed: true}, {Name: "test_b", Passed: true}}}
		t.Nodes = append(t.Nodes, corpus.Node{ID: 0, Parent: corpus.NoNode, ViaEdge: -1, Program: root, ProgramSHA: corpus.SHA256(root), Exec: failing,
			Diagnosis: "1 of 2 tests fail."})
		edits := []string{"Line 3: change `return c` to `return zq_" + task + "`; return the right value.",
			"Line 2: change `c = a + 1` to `c = a - 1`; flip the operator.",
			"Line 2: change `c = a + 1` to `c = a + 2`; change the constant."}
		for j, text := range edits {
			prog, ex := strings.Replace(root, "c = a + 1", fmt.Sprintf("c = a + %d", j+5), 1), failing
			if j == 0 {
				prog, ex = fix, passing
			}
			child := corpus.NodeID(len(t.Nodes))
			t.Edges = append(t.Edges, corpus.Edge{ID: corpus.EdgeID(j), Parent: 0, Index: j, Edit: corpus.ProposedEdit{Text: text}, Child: child})
			t.Nodes[0].Edges = append(t.Nodes[0].Edges, corpus.EdgeID(j))
			t.Nodes = append(t.Nodes, corpus.Node{ID: child, Parent: 0, ViaEdge: corpus.EdgeID(j), Depth: 1, Program: prog,
				ProgramSHA: corpus.SHA256(prog), Exec: ex})
		}
		corpus.ComputeLabels(t)
		out = append(out, t)
	}
	return out
}

// TestTrainingEncodesOutOfFold: every training example is encoded by an
// n-gram that has not seen its own task's fix, so the line only the fix
// holds is as unnatural to it as a new task's fix line is at inference.
// The checkpoint's n-gram, fitted on every training fix, finds that line
// natural: encoding training examples with it (as training did before)
// taught the model to trust a naturalness signal that inference never has.
func TestTrainingEncodesOutOfFold(t *testing.T) {
	trees := uniqueFixTrees(12)
	o := tinyOptions()
	o.Bag.NGramBits = 16 // few collisions: an unseen name keeps a zero count
	env := Env{Train: TreeSlice(trees), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	b, _, oof, err := buildModel(context.Background(), o, env, env.Logger)
	if err != nil {
		t.Fatal(err)
	}
	bag := b.Net.(*model.BagNet)
	after := slices.Index(model.BagDense, "lm_after_mean")
	encode := encoder(bag, oof)
	for _, tr := range trees {
		g := GroupsOfTree(tr)[0]
		enc, err := encode(g)
		if err != nil {
			t.Fatal(err)
		}
		inSample, err := bag.Encode(g.Edges) // the checkpoint's own n-gram
		if err != nil {
			t.Fatal(err)
		}
		got, leaky := enc.Dense[0][after], inSample.Dense[0][after]
		// An unseen name costs the n-gram's floor, 1e-4/(vocab+1): below
		// e^-9 per token; a seen one is likelier than e^-3.
		if got > -5 {
			t.Errorf("task %s: its fix line scores %.2f a token in training: its own fix was in the n-gram", tr.TaskID, got)
		}
		if leaky < -3 {
			t.Errorf("task %s: the checkpoint's n-gram scores the fix line %.2f, want natural (it holds every training fix)", tr.TaskID, leaky)
		}
	}
}
