package eval

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/model/priority"
	"triage/policy"
	"triage/policy/policytest"
)

// testTrees builds n exhaustive trees (k=3, depth 3) of n/2 tasks in the
// test split, with fixes at varying places and pass rates; some trees have
// no fix.
func testTrees(n int) []*corpus.Tree {
	var out []*corpus.Tree
	for i := range n {
		spec := policytest.FixAt(0.1*float64(i%7+1), i%3, (i/3)%3, (i/9)%3)
		if i%5 == 4 {
			spec = func([]int) float64 { return 0.5 }
		}
		t := policytest.Exhaustive(fmt.Sprintf("tree-%03d", i), 3, 3, spec)
		t.TaskID = fmt.Sprintf("task-%03d", i/2)
		out = append(out, t)
	}
	return out
}

// writeCorpus writes trees to dir in shards of perShard trees, row groups
// of rowsPerGroup rows.
func writeCorpus(t testing.TB, dir string, trees []*corpus.Tree, perShard int, rowsPerGroup int64) {
	t.Helper()
	for s := 0; s*perShard < len(trees); s++ {
		fh, err := os.Create(filepath.Join(dir, manifest.ShardFileName(s)))
		if err != nil {
			t.Fatal(err)
		}
		w := shard.NewShardWriter(fh, shard.WriterOptions{RowsPerGroup: rowsPerGroup})
		for i, tr := range trees[s*perShard : min(len(trees), (s+1)*perShard)] {
			if err := w.WriteTree(tr, i); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func baselines(t testing.TB) []Policy {
	t.Helper()
	var pols []Policy
	for _, name := range policy.Baselines {
		p, err := policy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, Policy{Policy: p})
	}
	return pols
}

// textScorer is a learned policy's stand-in whose distributions depend on
// every text field policy.Input fills, so that a replay without the text
// differs.
var textScorer = policy.ScoreFunc(func(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	out := make([]priority.Dist, len(edges))
	for i, e := range edges {
		h := fnv.New64a()
		fmt.Fprint(h, e.Edit, "\x00", e.Program, "\x00", e.Feedback, "\x00", e.Diagnosis)
		p := float64(h.Sum64()%1000+1) / 1001
		d := make(priority.Dist, e.MaxDepth+1)
		d[0], d[e.MaxDepth] = p, 1-p
		out[i] = d
	}
	return out, nil
})

func learned(t testing.TB) Policy {
	t.Helper()
	p, err := policy.NewLearned(textScorer)
	if err != nil {
		t.Fatal(err)
	}
	return Policy{Policy: p}
}

// reference is the evaluation as it was done before streaming: every tree
// in memory, sorted by id, one policy at a time through ReplayTrees,
// seeds 1..n, then policy.Summarize with the same bootstrap seed.
func reference(t *testing.T, trees []*corpus.Tree, pols []Policy, opts Options) []PolicyResult {
	t.Helper()
	sorted := slices.Clone(trees)
	slices.SortFunc(sorted, func(a, b *corpus.Tree) int { return cmpString(a.ID, b.ID) })
	var out []PolicyResult
	for _, ep := range pols {
		p := ep.Policy
		if b, ok := p.(budgeted); ok {
			p = b.WithBudget(slices.Max(opts.Budgets))
		}
		n := 1
		if policy.Stochastic(p.Name()) {
			n = opts.Seeds
		}
		var seeds []uint64
		for s := range n {
			seeds = append(seeds, uint64(s+1))
		}
		outs, err := ReplayTrees(context.Background(), sorted, p, seeds, opts.MaxExpansions, 1)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := policy.Summarize(outs, opts.Budgets, opts.Resamples, bootstrapSeed)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, PolicyResult{Name: p.Name(), Params: ep.Params, Seeds: n, Summary: sm})
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// open returns a corpus reader of dir.
func open(t *testing.T, dir string, c shard.Columns, files int) *shard.TreeReader {
	t.Helper()
	r, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Split: corpus.SplitTest, Columns: c, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestEvaluateMatchesInMemory: streaming the trees from shards, with any
// number of workers and files read at once, gives exactly the figures of
// the in-memory evaluation over the sorted trees.
func TestEvaluateMatchesInMemory(t *testing.T) {
	trees := testTrees(24)
	dir := t.TempDir()
	writeCorpus(t, dir, trees, 5, 32)
	opts := Options{Budgets: []int{2, 4, 8}, Seeds: 3, Resamples: 40}
	pols := append(baselines(t), learned(t))
	want := reference(t, trees, pols, opts)
	for _, workers := range []int{1, 3} {
		for _, files := range []int{1, 2} {
			o := opts
			o.Workers = workers
			got, err := Evaluate(context.Background(), open(t, dir, ColumnsFor(pols), files), pols, o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Trees != 24 || got.Tasks != 12 || !reflect.DeepEqual(got.Budgets, opts.Budgets) {
				t.Errorf("workers %d: %d trees %d tasks budgets %v", workers, got.Trees, got.Tasks, got.Budgets)
			}
			if !reflect.DeepEqual(got.Policies, want) {
				for i := range want {
					if !reflect.DeepEqual(got.Policies[i], want[i]) {
						t.Errorf("workers %d files %d: %s: %+v, want %+v", workers, files, want[i].Name, got.Policies[i].Summary, want[i].Summary)
					}
				}
			}
		}
	}
	nodes := 0
	for _, tr := range trees {
		nodes += len(tr.Nodes)
	}
	got, err := Evaluate(context.Background(), Trees(trees), pols[:1], opts)
	if err != nil || got.Nodes != nodes {
		t.Errorf("in memory: %d nodes, want %d (%v)", got.Nodes, nodes, err)
	}
}

// TestEvaluateLearnedNeedsText: the learned policy's figures depend on the
// text, so a source that does not decode it is refused.
func TestEvaluateLearnedNeedsText(t *testing.T) {
	dir := t.TempDir()
	writeCorpus(t, dir, testTrees(4), 4, 1024)
	pols := []Policy{learned(t)}
	if ColumnsFor(pols) != shard.ScorerColumns || ColumnsFor(baselines(t)) != shard.ReplayColumns {
		t.Fatalf("ColumnsFor: %v, %v", ColumnsFor(pols), ColumnsFor(baselines(t)))
	}
	hybrid, err := policy.NewHybrid(textScorer, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The hybrid reads the same text, alone or beside baselines.
	if got := ColumnsFor(append(baselines(t), Policy{Policy: hybrid})); got != shard.ScorerColumns {
		t.Errorf("ColumnsFor(baselines, hybrid) = %v, want the scorer's columns", got)
	}
	if _, err := Evaluate(context.Background(), open(t, dir, shard.ReplayColumns, 1), []Policy{{Policy: hybrid}}, Options{}); err == nil {
		t.Error("hybrid policy evaluated on trees without text")
	}
	if _, err := Evaluate(context.Background(), open(t, dir, shard.ReplayColumns, 1), pols, Options{}); err == nil {
		t.Error("learned policy evaluated on trees without text")
	}
	// Hidden behind a plain Source, trees without text give other figures.
	opts := Options{Resamples: 1}
	blind, err := Evaluate(context.Background(), struct{ Source }{open(t, dir, shard.ReplayColumns, 1)}, pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	seeing, err := Evaluate(context.Background(), open(t, dir, shard.ScorerColumns, 1), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(blind.Policies, seeing.Policies) {
		t.Error("the stand-in scorer ignores the text: this test cannot fail")
	}
}

// failingSource yields one tree, then an error.
type failingSource struct{ n int }

func (s *failingSource) Next() (*corpus.Tree, error) {
	s.n++
	if s.n == 1 {
		return testTrees(1)[0], nil
	}
	return nil, errors.New("disk on fire")
}

func TestEvaluateErrors(t *testing.T) {
	pols := baselines(t)
	if _, err := Evaluate(context.Background(), Trees(nil), pols, Options{}); !errors.Is(err, ErrNoTrees) {
		t.Errorf("no trees: %v", err)
	}
	if _, err := Evaluate(context.Background(), Trees(testTrees(2)), nil, Options{}); err == nil {
		t.Error("no policies: no error")
	}
	if _, err := Evaluate(context.Background(), Trees(testTrees(2)), pols, Options{Budgets: []int{0}}); err == nil {
		t.Error("budget 0: no error")
	}
	if _, err := Evaluate(context.Background(), &failingSource{}, pols, Options{}); err == nil || err.Error() != "disk on fire" {
		t.Errorf("source error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, Trees(testTrees(8)), pols, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	bad := testTrees(2)
	bad[1].Nodes[3].Exec.PassRate = 2 // a policy refuses it
	if _, err := Evaluate(context.Background(), Trees(bad), pols, Options{Workers: 2}); err == nil {
		t.Error("bad pass rate: no error")
	}
	if _, err := Tune(context.Background(), Trees(testTrees(2)), pols, "nope", Options{}); err == nil {
		t.Error("unknown metric: no error")
	}
}

func TestTune(t *testing.T) {
	trees := testTrees(10)
	var pols []Policy
	for _, c := range []float64{0.01, 5, 50} {
		p, err := policy.New("rex", policy.Params{"C": c})
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, Policy{Policy: p, Params: policy.Params{"C": c}})
	}
	opts := Options{Seeds: 3, Resamples: 1}
	res, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Metric{MetricET, MetricAUSC} {
		tu, err := Tune(context.Background(), Trees(trees), pols, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if tu.Trees != 10 || tu.Budget != 36 || len(tu.Points) != 3 {
			t.Fatalf("%s: %+v", m, tu)
		}
		best := 0
		for i, pr := range res.Policies {
			if m == MetricET && pr.Summary.ET < res.Policies[best].Summary.ET ||
				m == MetricAUSC && pr.Summary.AUSC["36"] > res.Policies[best].Summary.AUSC["36"] {
				best = i
			}
		}
		if tu.Best != best || !reflect.DeepEqual(tu.Points[best].Params, pols[best].Params) {
			t.Errorf("%s: chose %d, want %d", m, tu.Best, best)
		}
	}
}

func TestTrace(t *testing.T) {
	tr := testTrees(1)[0]
	p, _ := policy.New("bfs", nil)
	res, err := Trace(context.Background(), tr, p)
	if err != nil || len(res.Frontiers) != res.Expansions || !res.Solved {
		t.Errorf("trace: %d frontiers, %d expansions, solved %v, %v", len(res.Frontiers), res.Expansions, res.Solved, err)
	}
	nofix := testTrees(5)[4]
	if res, err := Trace(context.Background(), nofix, p); err != nil || res.Solved {
		t.Errorf("no fix: %v %v", res.Solved, err)
	}
}

func TestSliceSource(t *testing.T) {
	s := Trees(testTrees(2))
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last tree: %v", err)
	}
}

// TestEvaluatePaired: the paired comparisons asked for are those
// policy.ComparePaired gives on the same outcomes, one per other policy,
// and leave the summaries as they are without them.
func TestEvaluatePaired(t *testing.T) {
	trees := testTrees(12)
	pols := baselines(t)
	opts := Options{Budgets: []int{4, 8}, Seeds: 3, Resamples: 40, Workers: 2}
	plain, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Paired) != 0 {
		t.Fatalf("paired comparisons nobody asked for: %+v", plain.Paired)
	}
	a := pols[0].Policy.Name()
	opts.Paired = []string{a}
	got, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Policies, plain.Policies) {
		t.Error("asking for paired comparisons changed the summaries")
	}
	if len(got.Paired) != len(pols)-1 {
		t.Fatalf("%d paired comparisons of %s, want %d", len(got.Paired), a, len(pols)-1)
	}
	for i, p := range got.Paired {
		if p.A != a || p.B != pols[i+1].Policy.Name() || p.Trees == 0 || !(p.RatioLo <= p.Ratio && p.Ratio <= p.RatioHi) {
			t.Errorf("comparison %d: %+v", i, p)
		}
	}
	opts.Paired = []string{"nope"}
	if _, err := Evaluate(context.Background(), Trees(trees), pols, opts); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("paired comparison of a policy not evaluated: %v", err)
	}
}

// TestEvaluateBySource: each source's summaries and comparisons are what
// Evaluate gives on that source's trees alone, sources in name order, and
// the whole-corpus results stay as they are.
func TestEvaluateBySource(t *testing.T) {
	trees := testTrees(12)
	for i, tr := range trees {
		tr.Source = []string{"zeta", "alpha"}[i%2]
	}
	pols := baselines(t)
	opts := Options{Budgets: []int{4, 8}, Seeds: 3, Resamples: 40, Workers: 2, Paired: []string{pols[0].Policy.Name()}}
	plain, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.BySource = true
	got, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Policies, plain.Policies) || !reflect.DeepEqual(got.Paired, plain.Paired) {
		t.Error("the per-source results changed the whole corpus's")
	}
	if len(got.BySource) != 2 || got.BySource[0].Source != "alpha" || got.BySource[1].Source != "zeta" {
		t.Fatalf("sources %+v", got.BySource)
	}
	for _, sr := range got.BySource {
		var only []*corpus.Tree
		for _, tr := range trees {
			if tr.Source == sr.Source {
				only = append(only, tr)
			}
		}
		o := opts
		o.BySource = false
		want, err := Evaluate(context.Background(), Trees(only), pols, o)
		if err != nil {
			t.Fatal(err)
		}
		if sr.Trees != len(only) || !reflect.DeepEqual(sr.Policies, want.Policies) || !reflect.DeepEqual(sr.Paired, want.Paired) {
			t.Errorf("source %s: %d trees; results differ from evaluating its trees alone", sr.Source, sr.Trees)
		}
	}
}
