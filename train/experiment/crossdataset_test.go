package experiment

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"

	"triage/corpus"
	"triage/train"
	"triage/train/traintest"
)

// namedTrees makes synthTrees whose task and tree ids carry prefix, so two
// calls give two sources with no task in common.
func namedTrees(prefix string, n, tasks int, seed uint64) []*corpus.Tree {
	ts := traintest.SynthTrees(n, tasks, 3, 3, seed)
	for _, t := range ts {
		t.TaskID, t.ID = prefix+"-"+t.TaskID, prefix+"-"+t.ID
	}
	return ts
}

// TestFoldSplitDisjointByTask: every tree is scored in exactly one fold,
// and no fold's model trains or validates on a task it is scored on.
func TestFoldSplitDisjointByTask(t *testing.T) {
	trees := traintest.SynthTrees(40, 13, 3, 2, 9)
	var ids []string
	for _, tr := range trees {
		ids = append(ids, tr.TaskID)
	}
	const k = 4
	folds := train.Folds(ids, k, 3)
	scored := map[string]int{}
	for i := range k {
		train, val, held := FoldSplit(folds, i)
		heldTasks, fitTasks := map[string]bool{}, map[string]bool{}
		for _, tr := range trees {
			in := 0
			for _, f := range []func(*corpus.Tree) bool{train, val, held} {
				if f(tr) {
					in++
				}
			}
			if in != 1 {
				t.Fatalf("fold %d: tree %s in %d of train/val/held-out, want 1", i, tr.ID, in)
			}
			if held(tr) {
				scored[tr.ID]++
				heldTasks[tr.TaskID] = true
			} else {
				fitTasks[tr.TaskID] = true
				if val(tr) != (tr.Split == corpus.SplitVal) {
					t.Errorf("fold %d: tree %s of split %s: val = %v", i, tr.ID, tr.Split, val(tr))
				}
			}
		}
		for task := range heldTasks {
			if fitTasks[task] {
				t.Errorf("fold %d: task %s both held out and trained on", i, task)
			}
		}
	}
	for _, tr := range trees {
		if scored[tr.ID] != 1 {
			t.Errorf("tree %s scored in %d folds, want 1", tr.ID, scored[tr.ID])
		}
	}
}

// TestSplitDatasets: a tree belongs to the one dataset its source names;
// trees of no named source are left out.
func TestSplitDatasets(t *testing.T) {
	trees := append(namedTrees("a", 6, 3, 1), namedTrees("b", 6, 3, 2)...)
	trees = append(trees, namedTrees("c", 2, 1, 3)...)
	of := func(tr *corpus.Tree) string { s, _, _ := strings.Cut(tr.TaskID, "-"); return s }
	ds, err := SplitDatasets(train.TreeSlice(trees), []string{"a", "b"}, of)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, d := range ds {
		got, err := collect(context.Background(), d.Src)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 6 {
			t.Errorf("dataset %s: %d trees, want 6", d.Name, len(got))
		}
		for _, tr := range got {
			if of(tr) != d.Name {
				t.Errorf("dataset %s holds tree %s", d.Name, tr.ID)
			}
			if prev, dup := seen[tr.ID]; dup {
				t.Errorf("tree %s in datasets %s and %s", tr.ID, prev, d.Name)
			}
			seen[tr.ID] = d.Name
		}
	}
	for _, bad := range [][]string{{"a"}, {"a", "a"}, {"a", ""}} {
		if _, err := SplitDatasets(train.TreeSlice(trees), bad, of); err == nil {
			t.Errorf("SplitDatasets(%q) = nil error", bad)
		}
	}
	if _, err := FolderDatasets([]string{"a", "b"}, [][]string{{"x"}, nil}); err == nil {
		t.Error("FolderDatasets with an empty group = nil error")
	}
}

// TestLeaveOneDatasetOut trains tiny models on two synthetic sources and
// checks the bookkeeping: both directions, one run per training seed,
// every held-out tree from the other source's test split, baselines tuned
// on the training source's val split, the spread over seeds.
func TestLeaveOneDatasetOut(t *testing.T) {
	a, b := namedTrees("a", 16, 8, 1), namedTrees("b", 16, 8, 2)
	ds := []Dataset{{Name: "a", Src: train.TreeSlice(a)}, {Name: "b", Src: train.TreeSlice(b)}}
	env := tinyEnv(t, nil, t.TempDir())
	env.Train, env.Val = nil, nil
	o := LODOOptions{Train: tinyOptions(), TrainSeeds: []uint64{1, 2}, Baselines: []string{"bfs", "uct"},
		HybridGrid: "C=0.5,2", Seeds: 2, Resamples: 20, Workers: 1}
	dirs, err := LeaveOneDatasetOut(context.Background(), ds, o, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || dirs[0].Train != "a" || dirs[0].Test != "b" || dirs[1].Train != "b" || dirs[1].Test != "a" {
		t.Fatalf("directions %+v", dirs)
	}
	for _, d := range dirs {
		if d.TestSplit != corpus.SplitTest || d.Trees != 4 {
			t.Errorf("%s→%s: %d trees of split %s, want the 4 test trees", d.Train, d.Test, d.Trees, d.TestSplit)
		}
		if _, ok := d.Tuned["uct"]["C"]; !ok {
			t.Errorf("%s→%s: uct not tuned: %v", d.Train, d.Test, d.Tuned)
		}
		if len(d.Runs) != 2 || d.Runs[0].Seed != 1 || d.Runs[1].Seed != 2 {
			t.Fatalf("%s→%s: runs %+v", d.Train, d.Test, d.Runs)
		}
		for _, r := range d.Runs {
			for _, name := range []string{"learned", "hybrid"} {
				outs := r.Outcomes[name]
				if len(outs) != d.Trees {
					t.Errorf("%s→%s seed %d: %d %s outcomes", d.Train, d.Test, r.Seed, len(outs), name)
				}
				for _, o := range outs {
					if !strings.HasPrefix(o.TaskID, d.Test+"-") {
						t.Errorf("%s→%s: %s scored on task %s of the training source", d.Train, d.Test, name, o.TaskID)
					}
				}
			}
			if r.Hybrid == nil || len(r.Paired) == 0 {
				t.Errorf("%s→%s seed %d: hybrid params %v, %d paired", d.Train, d.Test, r.Seed, r.Hybrid, len(r.Paired))
			}
		}
		if s := d.Spread["learned E[T]"]; len(s.Each) != 2 || s.Min > s.Mean || s.Mean > s.Max {
			t.Errorf("%s→%s: spread %+v", d.Train, d.Test, s)
		}
		e := d.Ensemble
		if e == nil {
			t.Fatalf("%s→%s: no ensemble of the two seeds' models", d.Train, d.Test)
		}
		for _, name := range []string{"ensemble", "ensemble-hybrid"} {
			if len(e.Outcomes[name]) != d.Trees {
				t.Errorf("%s→%s: %d %s outcomes, want %d", d.Train, d.Test, len(e.Outcomes[name]), name, d.Trees)
			}
			if _, ok := e.Summary[name]; !ok {
				t.Errorf("%s→%s: no %s summary", d.Train, d.Test, name)
			}
		}
		var md strings.Builder
		d.WriteMarkdown(&md, "36")
		if !strings.Contains(md.String(), "| ensemble (mean of 2 models) |") {
			t.Errorf("%s→%s: markdown has no ensemble row:\n%s", d.Train, d.Test, md.String())
		}
	}
}

// TestLeaveOneSourceOut holds each of three sources out in turn: the model
// trains and the baselines tune on the union of the other two, only the
// held-out source's trees (every split) are scored, and the pooled row
// pairs every direction's trees once. Every ordered pair (Pairs) gives six
// directions and no pooled row.
func TestLeaveOneSourceOut(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models")
	}
	var ds []Dataset
	total := 0
	for i, name := range []string{"a", "b", "c"} {
		trees := namedTrees(name, 12, 6, uint64(i+1))
		total += len(trees)
		ds = append(ds, Dataset{Name: name, Src: train.TreeSlice(trees)})
	}
	env := tinyEnv(t, nil, t.TempDir())
	env.Train, env.Val = nil, nil
	o := LODOOptions{Train: tinyOptions(), TrainSeeds: []uint64{1}, Baselines: []string{"bfs", "uct"},
		NoHybrid: true, AllSplits: true, Seeds: 2, Resamples: 50, Workers: 1}
	dirs, err := LeaveOneDatasetOut(context.Background(), ds, o, env)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"b+c", "a"}, {"a+c", "b"}, {"a+b", "c"}}
	if len(dirs) != len(want) {
		t.Fatalf("%d directions, want 3", len(dirs))
	}
	for i, d := range dirs {
		if d.Train != want[i][0] || d.Test != want[i][1] || d.TestSplit != "all" || d.Trees != 12 {
			t.Errorf("direction %d: %s → %s, %s split, %d trees; want %s → %s, every split, 12 trees", i, d.Train, d.Test, d.TestSplit, d.Trees, want[i][0], want[i][1])
		}
		for _, o := range d.Runs[0].Outcomes["learned"] {
			if !strings.HasPrefix(o.TaskID, d.Test+"-") {
				t.Errorf("%s → %s: scored task %s", d.Train, d.Test, o.TaskID)
			}
		}
		if len(d.ValET) != 2 || !(d.ValET["bfs"] > 0 && d.ValET["uct"] > 0) {
			t.Errorf("%s → %s: baselines' val E[T] %v, want bfs's and uct's", d.Train, d.Test, d.ValET)
		}
		// The checkpoint chose its step on the union's val split: both
		// training sources' val trees.
		if d.Runs[0].Val == nil || d.Runs[0].Val.Trees != 4 {
			t.Errorf("%s → %s: validated on %+v, want the 4 val trees of two sources", d.Train, d.Test, d.Runs[0].Val)
		}
	}
	p := PoolLODO(dirs, o)
	if p == nil || p.Trees != total || len(p.Runs) != 1 || len(p.Directions) != 3 {
		t.Fatalf("pooled %+v", p)
	}
	for _, pr := range p.Runs[0].Paired {
		if pr.A != "learned" || pr.Trees == 0 || pr.Trees > total || !(pr.Detectable > 0 && pr.Detectable < 1) {
			t.Errorf("pooled paired %+v", pr)
		}
	}
	// LODOCommand pools with the options it was given, whose baselines
	// LeaveOneDatasetOut filled in: the pooled row still pairs with each.
	ob := o
	ob.Baselines = nil
	if pb := PoolLODO(dirs, ob); pb == nil || len(pb.Runs[0].Paired) != len(p.Runs[0].Paired) || len(p.Runs[0].Paired) == 0 {
		t.Errorf("pooled without the baselines named: %+v, want the %d pairs of the named ones", pb, len(p.Runs[0].Paired))
	}
	var md strings.Builder
	if err := WriteLODOVerdict(&md, dirs, p, []int{36}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| a | b+c | 12 (", "| pooled | the others | 36 (", "## train on a+b, score on c (all split", "| b+c | 1 | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("verdict lacks %q:\n%s", want, md.String())
		}
	}
	o.Pairs = true
	plans := lodoPlans(ds, true)
	if len(plans) != 6 || plans[0].train.Name != "a" || plans[0].test.Name != "b" || plans[5].train.Name != "c" {
		t.Errorf("pairs: %d plans", len(plans))
	}
	pairDirs := make([]LODODirection, len(plans))
	for i, pl := range plans {
		pairDirs[i] = LODODirection{Train: pl.train.Name, Test: pl.test.Name}
	}
	if PoolLODO(pairDirs, o) != nil {
		t.Error("pairs of three datasets pooled: their held-out trees would count twice")
	}
}

func TestNewSpread(t *testing.T) {
	s := NewSpread([]float64{1, 2, 3})
	if s.Mean != 2 || s.SD != 1 || s.Min != 1 || s.Max != 3 {
		t.Errorf("NewSpread(1,2,3) = %+v", s)
	}
	if s := NewSpread([]float64{5}); s.SD != 0 || s.Mean != 5 {
		t.Errorf("NewSpread(5) = %+v", s)
	}
}

// TestLeaveOneDatasetOutNeedsValFixes: a training dataset with no val tree
// holding a fix cannot tune anything, and says so before training.
func TestLeaveOneDatasetOutNeedsValFixes(t *testing.T) {
	a := train.TreeSlice(traintest.SplitOf(namedTrees("a", 8, 4, 1), corpus.SplitTrain))
	b := namedTrees("b", 8, 4, 2)
	ds := []Dataset{{Name: "a", Src: a}, {Name: "b", Src: train.TreeSlice(b)}}
	o := LODOOptions{Train: tinyOptions(), Baselines: []string{"uct"}, Seeds: 1, Resamples: 5}
	_, err := LeaveOneDatasetOut(context.Background(), ds, o, tinyEnv(t, nil, t.TempDir()))
	if !errors.Is(err, ErrNoValFix) {
		t.Errorf("err = %v, want ErrNoValFix", err)
	}
}

// tinyEnv trains on trees' train split and validates on their val split,
// on the test backend, writing to out.
func tinyEnv(t *testing.T, trees []*corpus.Tree, out string) train.Env {
	return train.Env{Train: train.TreeSlice(traintest.SplitOf(trees, corpus.SplitTrain)),
		Val: train.TreeSlice(traintest.SplitOf(trees, corpus.SplitVal)), Backend: traintest.Backend(t), Out: out,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// tinyOptions train a small model quickly (as train's own tests do).
func tinyOptions() train.Options {
	o := train.DefaultOptions()
	o.Bag, o.HeadHidden, o.MaxDepth = traintest.TinyBag(), 16, 3
	o.Batch, o.Epochs, o.ValEvery, o.LR, o.Shuffle = 16, 6, 10, 1e-2, 64
	return o
}

// TestLeaveOneDatasetOutResumes: a judge whose run stopped part way is
// continued with Env.Resume: models that finished are reloaded (their
// validation and held-out outcomes as before), the one that never started
// trains, and without Resume the folder that holds checkpoints is refused.
func TestLeaveOneDatasetOutResumes(t *testing.T) {
	a, b := namedTrees("a", 16, 8, 1), namedTrees("b", 16, 8, 2)
	ds := []Dataset{{Name: "a", Src: train.TreeSlice(a)}, {Name: "b", Src: train.TreeSlice(b)}}
	out := t.TempDir()
	env := tinyEnv(t, nil, out)
	env.Train, env.Val = nil, nil
	o := LODOOptions{Train: tinyOptions(), TrainSeeds: []uint64{1}, Baselines: []string{"bfs"},
		NoHybrid: true, Seeds: 1, Resamples: 10, Workers: 1}
	ref, err := LeaveOneDatasetOut(context.Background(), ds, o, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LeaveOneDatasetOut(context.Background(), ds, o, env); err == nil || !strings.Contains(err.Error(), "already holds a checkpoint") {
		t.Fatalf("second run into the same folder without Resume: err %v, want the folder refused", err)
	}
	// The second direction's model never started.
	if err := os.RemoveAll(ref[1].Runs[0].Checkpoint); err != nil {
		t.Fatal(err)
	}
	env.Resume = true
	got, err := LeaveOneDatasetOut(context.Background(), ds, o, env)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref {
		r, g := ref[i].Runs[0], got[i].Runs[0]
		if r.Val.ET != g.Val.ET || r.BestStep != g.BestStep {
			t.Errorf("direction %d: resumed val E[T] %.4f at step %d, first run %.4f at %d", i, g.Val.ET, g.BestStep, r.Val.ET, r.BestStep)
		}
		if !reflect.DeepEqual(r.Outcomes["learned"], g.Outcomes["learned"]) {
			t.Errorf("direction %d: learned outcomes differ after resume", i)
		}
	}
	if !train.Started(ref[1].Runs[0].Checkpoint) {
		t.Error("the model that never started was not trained on resume")
	}
}
