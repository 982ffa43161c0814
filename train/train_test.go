package train

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"triage/corpus"
	"triage/model"
	"triage/policy"
	"triage/search"
	"triage/train/traintest"
)

// tinyOptions is a bag model small enough to train in seconds.
func tinyOptions() Options {
	o := DefaultOptions()
	o.Bag, o.HeadHidden, o.MaxDepth = traintest.TinyBag(), 16, 3
	o.Batch, o.Epochs, o.ValEvery, o.LR, o.Shuffle = 16, 6, 10, 1e-2, 64
	return o
}

func tinyEnv(t *testing.T, trees []*corpus.Tree, out string) Env {
	return Env{Train: splitOf(trees, corpus.SplitTrain), Val: splitOf(trees, corpus.SplitVal),
		Backend: testBackend(t), Out: out, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestGroupsOfTree(t *testing.T) {
	trees := synthTrees(4, 4, 3, 3, 1)
	for _, tr := range trees {
		gs := GroupsOfTree(tr)
		if len(gs) == 0 {
			t.Fatalf("tree %s: no groups", tr.ID)
		}
		for _, g := range gs {
			if len(g.Edges) != 3 || len(g.T) != 3 || len(g.B) != 3 {
				t.Fatalf("group of %d edges, %d labels", len(g.Edges), len(g.T))
			}
			for i := range g.Edges {
				e := g.Edges[i]
				if err := e.Validate(); err != nil {
					t.Fatal(err)
				}
				if int(g.B[i]) != e.Remaining || g.T[i] < 0 || g.T[i] > g.B[i] {
					t.Errorf("label t=%d b=%d for remaining %d", g.T[i], g.B[i], e.Remaining)
				}
			}
		}
	}
	// A tree without a fix gives no examples.
	nofix := *trees[0]
	nofix.Nodes = append([]corpus.Node(nil), trees[0].Nodes...)
	for i := range nofix.Nodes {
		nofix.Nodes[i].Exec.PassRate = 0
	}
	if gs := GroupsOfTree(&nofix); gs != nil {
		t.Errorf("tree without a fix gave %d groups", len(gs))
	}
}

// TestTrainingExampleEqualsScoringInput checks the one-representation
// contract: an edge's training example and the learned policy's scoring
// input encode to the same tokens and features.
func TestTrainingExampleEqualsScoringInput(t *testing.T) {
	trees := synthTrees(2, 2, 3, 3, 2)
	b, err := model.NewBag(tinyOptions().Bag, 4, 16, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	net := b.Net
	for _, tr := range trees {
		for _, g := range GroupsOfTree(tr) {
			train, err := net.Encode(g.Edges)
			if err != nil {
				t.Fatal(err)
			}
			// The scoring path: the learned policy asks for the parent's
			// frontier edges, built by policy.Input, grouped by parent.
			var in = g.Edges[:0:0]
			for _, e := range tr.Nodes[g.Node].Edges {
				in = append(in, policy.Input(tr, e))
			}
			groups, _ := model.GroupByParent(in)
			if len(groups) != 1 {
				t.Fatalf("%d parent groups for one parent", len(groups))
			}
			score, err := net.Encode(groups[0])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(train, score) {
				t.Fatalf("tree %s node %d: training input %+v differs from scoring input %+v", tr.ID, g.Node, train, score)
			}
		}
	}
}

func TestStreamOrder(t *testing.T) {
	trees := synthTrees(8, 4, 3, 2, 3)
	read := func(seed uint64, epoch int, buf int) []string {
		s := NewStream(context.Background(), TreeSlice(trees), seed, epoch, buf)
		defer s.Close()
		var ids []string
		for {
			g, err := s.Next()
			if errors.Is(err, io.EOF) {
				return ids
			}
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, g.TreeID+"/"+strconv.Itoa(int(g.Node)))
		}
	}
	a, b := read(1, 0, 8), read(1, 0, 8)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed and epoch gave different orders")
	}
	if reflect.DeepEqual(a, read(1, 1, 8)) || reflect.DeepEqual(a, read(2, 0, 8)) {
		t.Error("another epoch or seed gave the same order")
	}
	plain := read(1, 0, 0)
	if reflect.DeepEqual(a, plain) || len(a) != len(plain) {
		t.Errorf("shuffle: %d groups vs %d unshuffled", len(a), len(plain))
	}
	// Skip resumes mid-epoch in the same order.
	s := NewStream(context.Background(), TreeSlice(trees), 1, 0, 8)
	defer s.Close()
	if err := s.Skip(5); err != nil {
		t.Fatal(err)
	}
	g, err := s.Next()
	if err != nil || g.TreeID+"/"+strconv.Itoa(int(g.Node)) != a[5] {
		t.Errorf("after Skip(5): %v, %v; want %s", g.TreeID, err, a[5])
	}
}

// TestTrainLearnsSignal trains the bag model on synthetic trees whose fix
// path is written in the edit texts and checks that the learned policy then
// finds fixes faster than breadth-first search on held-out trees, and
// faster than before training.
func TestTrainLearnsSignal(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Options)
	}{
		{"survival", func(*Options) {}},
		// The inputs that mean the same on every source and the ranking
		// term over siblings: the signal is still learned.
		{"siblings, prior, no length, rank term", func(o *Options) {
			o.Inputs.Siblings, o.Inputs.Prior, o.Inputs.NoLength, o.RankWeight = true, true, true, 0.5
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := tinyOptions()
			c.set(&o)
			testTrainLearnsSignal(t, o)
		})
	}
}

func testTrainLearnsSignal(t *testing.T, o Options) {
	trees := synthTrees(48, 16, 3, 3, 4)
	out := t.TempDir()
	run, err := Train(context.Background(), o, tinyEnv(t, trees, out))
	if err != nil {
		t.Fatal(err)
	}
	if run.Best == nil || run.Best.Trees == 0 {
		t.Fatalf("no validation: %+v", run)
	}
	b, err := model.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := b.Scorer(testBackend(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	test := splitOf(trees, corpus.SplitTest)
	learned, err := Validate(context.Background(), sc, test)
	if err != nil {
		t.Fatal(err)
	}
	bfs, _ := policy.New("bfs", nil)
	var sum float64
	for _, tr := range test {
		env, _ := search.NewReplay(tr)
		r, err := search.Run(context.Background(), env, bfs, search.Config{})
		if err != nil {
			t.Fatal(err)
		}
		sum += float64(r.Expansions)
	}
	bfsET := sum / float64(len(test))
	t.Logf("held-out E[T]: learned %.2f, bfs %.2f; first validation %.2f, best %.2f", learned.ET, bfsET,
		run.History[o.ValEvery-1].Val.ET, run.Best.ET)
	if learned.ET >= bfsET {
		t.Errorf("learned E[T] %.2f is not below BFS's %.2f", learned.ET, bfsET)
	}
	for _, f := range []string{model.CheckpointFile, model.WeightsFile, "metrics.jsonl", "training.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// A second run into the same folder is refused.
	if _, err := Train(context.Background(), o, tinyEnv(t, trees, out)); err == nil {
		t.Error("training into a folder with a checkpoint: no error")
	}
}

// TestCheckpointRoundTrip saves and reloads a trained model and checks the
// scores are identical.
func TestCheckpointRoundTrip(t *testing.T) {
	trees := synthTrees(16, 8, 3, 3, 5)
	out := t.TempDir()
	o := tinyOptions()
	o.Epochs = 1
	if _, err := Train(context.Background(), o, tinyEnv(t, trees, out)); err != nil {
		t.Fatal(err)
	}
	a, err := model.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	if err := a.Save(dir2); err != nil {
		t.Fatal(err)
	}
	b, err := model.LoadCheckpoint(dir2)
	if err != nil {
		t.Fatal(err)
	}
	var edges = GroupsOfTree(trees[0])[0].Edges
	sa, _ := a.Scorer(testBackend(t), 8)
	sb, _ := b.Scorer(testBackend(t), 8)
	defer sa.Close()
	defer sb.Close()
	da, err1 := sa.Score(context.Background(), edges)
	db, err2 := sb.Score(context.Background(), edges)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(da, db) {
		t.Errorf("scores after a round trip differ: %v vs %v", da, db)
	}
}

// resumeEnv is set in the child process of TestResume.
const resumeEnv = "TRIAGE_TRAIN_RESUME_CHILD"

// TestResume kills a training run with SIGKILL after its first saved state,
// continues it with Resume, and checks that it ends where an uninterrupted
// run ends: the same data order, so the same validation history and final
// loss within float tolerance.
func TestResume(t *testing.T) {
	if dir := os.Getenv(resumeEnv); dir != "" {
		// Child: train slowly enough to be killed mid-run.
		o := tinyOptions()
		o.ValEvery = 4
		trees := synthTrees(48, 16, 3, 3, 4)
		_, err := Train(context.Background(), o, tinyEnv(t, trees, dir))
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("trains three times")
	}
	o := tinyOptions()
	o.ValEvery = 4
	trees := synthTrees(48, 16, 3, 3, 4)
	full := t.TempDir()
	ref, err := Train(context.Background(), o, tinyEnv(t, trees, full))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestResume$", "-test.count=1")
	cmd.Env = append(os.Environ(), resumeEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once a state beyond the first validation is on disk.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		raw, err := os.ReadFile(filepath.Join(dir, lastDir, stateFile))
		var st state
		if err == nil && json.Unmarshal(raw, &st) == nil && st.Step >= 8 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the child saved no state in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Kill() // SIGKILL
	_ = cmd.Wait()
	st, err := readState(filepath.Join(dir, lastDir))
	if err != nil {
		t.Fatal(err)
	}
	if st.Step >= ref.Steps {
		t.Skipf("the child finished (step %d) before it was killed", st.Step)
	}
	env := tinyEnv(t, trees, dir)
	env.Resume = true
	got, err := Train(context.Background(), o, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("killed at step %d of %d; resumed run best E[T] %.3f at %d, uninterrupted %.3f at %d",
		st.Step, ref.Steps, got.Best.ET, got.BestStep, ref.Best.ET, ref.BestStep)
	if got.Steps != ref.Steps || len(got.History) != len(ref.History) {
		t.Fatalf("resumed run: %d steps, %d records; uninterrupted %d, %d", got.Steps, len(got.History), ref.Steps, len(ref.History))
	}
	for i := range ref.History {
		a, b := ref.History[i], got.History[i]
		if math.Abs(a.Loss-b.Loss) > 1e-4*math.Max(1, math.Abs(a.Loss)) {
			t.Errorf("step %d: loss %.6f resumed vs %.6f uninterrupted", a.Step, b.Loss, a.Loss)
		}
		if (a.Val == nil) != (b.Val == nil) || (a.Val != nil && math.Abs(a.Val.ET-b.Val.ET) > 1e-9) {
			t.Errorf("step %d: validation %+v resumed vs %+v uninterrupted", a.Step, b.Val, a.Val)
		}
	}
	// Resuming with other options is refused.
	o.LR *= 2
	if _, err := Train(context.Background(), o, env); err == nil {
		t.Error("resume with another learning rate: no error")
	}
}
