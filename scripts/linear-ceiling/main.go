// Command linear-ceiling asks how far a policy of a few numbers can go on a
// set of repair trees when it is fitted to those very trees, and how a fit
// on one task source does on another: a linear scorer (logistic of a weighted
// sum of the parent's numbers, and with -rich of the edit's family, its
// index among the parent's edits and the parent against the root and its own
// parent) drives the learned policy, or with -hybrid the hybrid's prior (its
// C and temp fitted too). The weights are fitted by a direct search of
// replayed E[T] on FIT_DIRS ((1+1) evolution from 100 random draws): no loss
// and no model, the metric itself. The search finds a good fit, not the best
// one, so its in-sample figure bounds what such a scorer can do from above
// only as far as the search is thorough.
//
//	go run ./scripts/linear-ceiling [-rich [-general]] [-hybrid] [-iters 600] [-seed 1] FIT_DIRS [EVAL_DIRS]
//
// DIRS are comma-separated corpus folders. It prints, on each set, BFS,
// pass-rate and UCT over C ∈ {0.3, 0.5, 0.7, 1} (on EVAL_DIRS with the C
// best on FIT_DIRS), then the fitted policy's E[T] on both. -general keeps of
// -rich's inputs only those any proposer's edits have (no mutation family).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/model/priority"
	"triage/policy"
	"triage/search/eval"
)

var families = []string{"cmp_op", "arith_op", "bool_op", "const", "off_by_one", "swap_operands", "swap_args",
	"wrong_var", "negate_cond", "delete_stmt", "return_value"}

// fitter holds the options and the per-edge inputs that need the tree.
type fitter struct {
	rich, general, hybrid bool
	extra                 map[string][]float64 // parent program + edit text → tree-derived inputs
}

func failures(n *corpus.Node) string {
	var s []string
	for _, t := range n.Exec.Tests {
		if !t.Passed {
			s = append(s, t.Name)
		}
	}
	return string(n.Exec.Status) + "|" + strings.Join(s, ",")
}

func flag01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// prepare computes the tree-derived inputs of every edge of trees.
func (f *fitter) prepare(trees []*corpus.Tree) {
	for _, t := range trees {
		fails := make([]string, len(t.Nodes))
		for i := range t.Nodes {
			fails[i] = failures(&t.Nodes[i])
		}
		for i := range t.Edges {
			e := &t.Edges[i]
			v := t.Node(e.Parent)
			var m struct{ Family, Orig, Repl string }
			_ = json.Unmarshal([]byte(e.Edit.Payload), &m) // an LLM's edit has none: zeros
			var x []float64
			if !f.general {
				for _, fam := range families {
					x = append(x, flag01(m.Family == fam))
				}
				x = append(x, flag01(len(m.Repl) < len(m.Orig))) // a removal (± 1, not)
			}
			up := e.Parent
			if v.Parent >= 0 {
				up = v.Parent
			}
			x = append(x, float64(e.Index), flag01(fails[e.Parent] == fails[0]), v.Exec.PassRate-t.Root().Exec.PassRate,
				flag01(fails[e.Parent] == fails[up]), v.Exec.PassRate-t.Node(up).Exec.PassRate)
			f.extra[v.Program+"\x00"+e.Edit.Text] = x
		}
	}
}

func (f *fitter) inputs(e priority.Edge) []float64 {
	r := e.Features()
	pr, d, ff, l := float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])
	x := []float64{pr, d, ff, l, pr * d, ff * d, d * d, pr * pr, l * d}
	if f.rich {
		ex, ok := f.extra[e.Program+"\x00"+e.Edit]
		if !ok {
			log.Fatalf("an edge of no prepared tree")
		}
		x = append(x, ex...)
	}
	return x
}

func (f *fitter) scorer(w []float64) policy.Scorer {
	return policy.ScoreFunc(func(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
		out := make([]priority.Dist, len(edges))
		for i, e := range edges {
			z := 0.0
			for j, v := range f.inputs(e) {
				z += w[j] * v
			}
			p := 1 / (1 + math.Exp(-z))
			d := make(priority.Dist, e.MaxDepth+1)
			d[0], d[e.MaxDepth] = p, 1-p // s(e) = p: the order is the sum's
			out[i] = d
		}
		return out, nil
	})
}

func (f *fitter) policy(w []float64) policy.Policy {
	var p policy.Policy
	var err error
	if f.hybrid {
		n := len(w) - 2
		p, err = policy.NewHybrid(f.scorer(w[:n]), policy.Params{"C": math.Exp(w[n]), "temp": math.Exp(w[n+1])})
	} else {
		p, err = policy.NewLearned(f.scorer(w))
	}
	if err != nil {
		log.Fatal(err)
	}
	return p
}

// et is E[T] of p over trees (seed 1, until the first fix).
func et(trees []*corpus.Tree, p policy.Policy) float64 {
	outs, err := eval.ReplayTrees(context.Background(), trees, p, []uint64{1}, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	s, err := policy.Summarize(outs, []int{36}, 0, 1)
	if err != nil {
		log.Fatal(err)
	}
	return s.ET
}

func load(dirs string) []*corpus.Tree {
	trees, err := shard.LoadTrees(strings.Split(dirs, ",")...)
	if err != nil {
		log.Fatal(err)
	}
	return trees
}

func main() {
	f := &fitter{extra: map[string][]float64{}}
	flag.BoolVar(&f.rich, "rich", false, "also the edit's family, index and the parent against the root and its parent")
	flag.BoolVar(&f.general, "general", false, "with -rich: no mutation family (inputs any proposer's edits have)")
	flag.BoolVar(&f.hybrid, "hybrid", false, "the scorer is the hybrid's prior; C and temp are fitted too")
	iters := flag.Int("iters", 600, "replays of FIT_DIRS the search spends")
	seed := flag.Uint64("seed", 1, "the search's seed")
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		log.Fatal("usage: linear-ceiling [flags] FIT_DIRS [EVAL_DIRS]")
	}
	fit := load(flag.Arg(0))
	var evalSet []*corpus.Tree
	if flag.NArg() == 2 {
		evalSet = load(flag.Arg(1))
	}
	f.prepare(fit)
	f.prepare(evalSet)
	fmt.Printf("fit: %d trees", len(fit))
	if evalSet != nil {
		fmt.Printf("; eval: %d trees", len(evalSet))
	}
	fmt.Println()
	bestC, bestUCT := baselines(fit, evalSet)
	n := len(f.inputs(priority.Edge{MaxDepth: 4, Remaining: 4, Program: fit[0].Root().Program, Edit: fit[0].Edges[0].Edit.Text}))
	if f.hybrid {
		n += 2 // log C and log temp
	}
	// The search starts from every weight 0: for the hybrid a flat prior
	// with C 1 and temp 1, its own rule with nothing learned.
	best := make([]float64, n)
	bestET := et(fit, f.policy(best))
	if f.hybrid {
		fmt.Printf("hybrid, flat prior  fit %.3f", bestET)
		if evalSet != nil {
			fmt.Printf("  eval %.3f", et(evalSet, f.policy(best)))
		}
		fmt.Println()
	}
	best, bestET = f.search(fit, best, bestET, *iters, *seed)
	fmt.Printf("fitted       fit %.3f (%.3f × uct C=%v)", bestET, bestET/bestUCT, bestC)
	if evalSet != nil {
		p, _ := policy.New("uct", policy.Params{"C": bestC})
		u := et(evalSet, p)
		v := et(evalSet, f.policy(best))
		fmt.Printf("  eval %.3f (%.3f × uct C=%v: %.3f)", v, v/u, bestC, u)
	}
	fmt.Printf("\nweights %.3f\n", best)
}

// baselines prints BFS's and pass-rate's E[T] on fit (and evalSet, when
// given), and UCT's over C ∈ {0.3, 0.5, 0.7, 1}; it returns the C best on
// fit and its E[T].
func baselines(fit, evalSet []*corpus.Tree) (bestC, bestUCT float64) {
	for _, name := range []string{"bfs", "passrate"} {
		p, _ := policy.New(name, nil)
		fmt.Printf("%-12s fit %.3f", name, et(fit, p))
		if evalSet != nil {
			fmt.Printf("  eval %.3f", et(evalSet, p))
		}
		fmt.Println()
	}
	bestC, bestUCT = 0.0, math.Inf(1)
	for _, c := range []float64{0.3, 0.5, 0.7, 1} {
		p, _ := policy.New("uct", policy.Params{"C": c})
		v := et(fit, p)
		fmt.Printf("uct C=%-4v   fit %.3f", c, v)
		if evalSet != nil {
			fmt.Printf("  eval %.3f", et(evalSet, p))
		}
		fmt.Println()
		if v < bestUCT {
			bestC, bestUCT = c, v
		}
	}
	return bestC, bestUCT
}

// search is the (1+1) evolution of the weights from best (E[T] bestET on
// fit): iters replays, the first 100 of random draws, then mutations of
// the best whose step grows after a success and shrinks after a failure.
// It returns the best weights and their E[T].
func (f *fitter) search(fit []*corpus.Tree, best []float64, bestET float64, iters int, seed uint64) ([]float64, float64) {
	n := len(best)
	rng := rand.New(rand.NewPCG(seed, 2))
	sigma := 2.0
	for it := 0; it < iters; it++ {
		w := make([]float64, n)
		for j := range w {
			switch {
			case it < 100:
				w[j] = rng.NormFloat64() * 3
			case rng.Float64() < 0.3:
				w[j] = best[j] + rng.NormFloat64()*sigma
			default:
				w[j] = best[j]
			}
		}
		v := et(fit, f.policy(w))
		switch {
		case v < bestET:
			bestET, best = v, w
			if it >= 100 {
				sigma *= 1.5
			}
		case it >= 100:
			sigma = math.Max(0.05, sigma*0.97)
		}
	}
	return best, bestET
}
