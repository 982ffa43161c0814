package mutate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"golang.org/x/sync/errgroup"

	"triage/corpus"
)

// InjectPriors weights the families when planting bugs. Families whose
// inverse is another mutation (operators, constants, bounds, swaps, negated
// conditions, wrong variables) dominate, so most roots are repairable by the
// proposer; deleted statements and changed return values, which usually are
// not, are rare.
var InjectPriors = map[Family]float64{
	CmpOp: 3, ArithOp: 2, BoolOp: 1, Const: 2, OffByOne: 3, SwapOperands: 1,
	SwapArgs: 1, WrongVar: 1.5, NegateCond: 1.5, DeleteStmt: 0.2, ReturnValue: 0.3,
}

// InjectDepths weights how many mutations a root gets: 1, 2 or 3.
var InjectDepths = []float64{0.75, 0.2, 0.05}

// injectBatch is the number of mutants run concurrently by Inject.
const injectBatch = 8

// maxInjectTries bounds the mutants Inject generates per wanted root.
const maxInjectTries = 12

// Inject makes up to maxRoots buggy roots for task by applying 1–3 seeded
// mutations to its reference solution. It keeps only mutants that load and
// fail at least one test (exec status ok, pass rate < 1), each program once,
// in a deterministic order: the same task, executor verdicts and seed give
// the same roots. Fewer roots come back when the tries run out.
func Inject(ctx context.Context, task *corpus.Task, exec corpus.Executor, maxRoots int, seed uint64) ([]string, error) {
	if task == nil || exec == nil {
		return nil, fmt.Errorf("inject: nil task or executor")
	}
	if maxRoots <= 0 {
		return nil, nil
	}
	r := rng(seed, "inject", task.ID, task.Solution)
	seen := map[string]bool{task.Solution: true}
	var roots []string
	tries := maxInjectTries * maxRoots
	for tries > 0 && len(roots) < maxRoots {
		var batch []string
		for len(batch) < injectBatch && tries > 0 {
			tries--
			m, ok := plant(task.Solution, r)
			if !ok {
				break
			}
			if !seen[m] {
				seen[m] = true
				batch = append(batch, m)
			}
		}
		if len(batch) == 0 {
			break
		}
		execs := make([]corpus.Execution, len(batch))
		errs := make([]error, len(batch))
		// The batch (at most injectBatch) bounds the runs. The goroutines
		// keep their errors so that the first in batch order is reported,
		// whatever finished first.
		var g errgroup.Group
		for i, prog := range batch {
			g.Go(func() error {
				execs[i], errs[i] = exec.Run(ctx, prog, task.Test)
				return nil
			})
		}
		_ = g.Wait()
		for i, prog := range batch {
			if errs[i] != nil {
				return nil, fmt.Errorf("inject task %s: run mutant: %w", task.ID, errs[i])
			}
			ex := execs[i]
			if ex.Status == corpus.StatusOK && len(ex.Tests) > 0 && ex.PassRate < 1 && len(roots) < maxRoots {
				roots = append(roots, prog)
			}
		}
	}
	return roots, nil
}

// plant applies 1–3 mutations to src, each on a different line, drawn with
// InjectPriors. ok is false when src has nothing to mutate.
func plant(src string, r *rand.Rand) (string, bool) {
	n := 1 + pickIndex(r, InjectDepths)
	used := map[int]bool{}
	cur := src
	done := 0
	for done < n {
		var cands []Mutation
		for _, m := range Enumerate(cur) {
			if used[m.Line] || strings.Contains(m.Orig, "\n") || strings.Contains(m.Repl, "\n") {
				continue
			}
			cands = append(cands, m)
		}
		w := spread(cands, func(m Mutation) float64 { return InjectPriors[m.Family] }, false)
		ms := sample(cur, cands, w, r, 1)
		if len(ms) == 0 {
			break
		}
		next, err := Apply(cur, ms[0])
		if err != nil {
			break
		}
		used[ms[0].Line] = true
		cur = next
		done++
	}
	return cur, done > 0
}

// pickIndex draws an index with probability ∝ w.
func pickIndex(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	x := r.Float64() * total
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}
