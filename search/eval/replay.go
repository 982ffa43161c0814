package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"triage/corpus"
	"triage/policy"
	"triage/search"
)

// Replay replays p on the recorded tree t with seed, for at most budget
// expansions (0: until the first fix or an exhausted tree). It is the one
// replay of a tree that eval, tune, cross-validation and the trainer's
// validation share. A replay that ends without a fix is a result
// (search.Result.End says why), not an error.
func Replay(ctx context.Context, t *corpus.Tree, p policy.Policy, seed uint64, budget int) (search.Result, error) {
	env, err := search.NewReplay(t)
	if err != nil {
		return search.Result{}, err
	}
	res, err := search.Run(ctx, env, p, search.Config{Budget: budget, Seed: seed})
	if err != nil {
		return res, fmt.Errorf("policy %s tree %s seed %d: %w", p.Name(), t.ID, seed, err)
	}
	return res, nil
}

// ReplayTrees replays p on every tree with every seed (Replay with the
// budget) on up to workers goroutines (<= 0: one per CPU) and returns the
// outcomes in tree-major, seed-minor order, whatever the workers.
func ReplayTrees(ctx context.Context, trees []*corpus.Tree, p policy.Policy, seeds []uint64, budget, workers int) ([]policy.Outcome, error) {
	if len(seeds) == 0 {
		return nil, errors.New("replay: no seeds")
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]policy.Outcome, len(trees)*len(seeds))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range out {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			res, err := Replay(gctx, trees[i/len(seeds)], p, seeds[i%len(seeds)], budget)
			out[i] = res.Outcome()
			return err
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, err
}
