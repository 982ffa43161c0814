package corpus

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// ForEach calls fn(i) for i in [0, n) with at most workers calls at once
// (at least one). It stops starting calls after the first error or when ctx
// ends, and returns that error (the context's cause when ctx ended first).
// An errgroup with a limit bounds the calls; the first error is kept as a
// cancellation cause so that it wins over a later end of ctx, as callers
// expect.
func ForEach(ctx context.Context, n, workers int, fn func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var g errgroup.Group
	g.SetLimit(max(1, min(workers, n)))
	for i := 0; i < n && ctx.Err() == nil; i++ {
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			if err := fn(i); err != nil {
				cancel(err)
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through cancel
	return context.Cause(ctx)
}
