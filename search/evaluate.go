package search

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"triage/corpus"
	"triage/policy"
)

// ReplayAll replays p on every tree with every seed (budget 0: until the
// first fix or an exhausted tree) using up to workers goroutines (<= 0:
// one per CPU). Results come in tree-major, seed-minor order. A search that
// ends without a fix is a result, not an error.
func ReplayAll(ctx context.Context, trees []*corpus.Tree, p policy.Policy, seeds []uint64, budget, workers int) ([]Result, error) {
	if len(seeds) == 0 {
		return nil, errors.New("replay: no seeds")
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]Result, len(trees)*len(seeds))
	errs := make([]error, len(out))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				tr := trees[i/len(seeds)]
				env, err := NewReplay(tr)
				if err != nil {
					errs[i] = err
					continue
				}
				res, err := Run(ctx, env, p, Config{Budget: budget, Seed: seeds[i%len(seeds)]})
				if err != nil {
					errs[i] = fmt.Errorf("policy %s tree %s seed %d: %w", p.Name(), tr.ID, seeds[i%len(seeds)], err)
				}
				out[i] = res
			}
		}()
	}
	for i := range out {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// Outcomes converts results to metric records.
func Outcomes(rs []Result) []policy.Outcome {
	out := make([]policy.Outcome, len(rs))
	for i, r := range rs {
		out[i] = r.Outcome()
	}
	return out
}
