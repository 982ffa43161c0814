package serve

import (
	"context"
	"log/slog"
	"net"
	"time"

	"triage/corpus"
	"triage/policy"
	"triage/search/serve/sessionlog"
)

// Batch wraps scorer in a policy.Batcher with o, so that concurrent
// requests share model executions; release closes the batcher (not the
// scorer). Bad options are bad input in the field Batch.
func Batch(scorer policy.Scorer, o policy.BatchOptions) (policy.Scorer, func(), error) {
	b, err := policy.NewBatcher(scorer, o)
	if err != nil {
		return nil, func() {}, corpus.Invalid("{Batch}: %v", err)
	}
	return b, func() { b.Close() }, nil
}

// RunConfig says where `triage serve` listens and keeps its sessions.
type RunConfig struct {
	// Addr is the address to listen on.
	Addr string
	// Store, when set, keeps sessions durable (sessionlog.OpenWithin): a
	// bbolt file, or a postgres:// URL shared by replicas.
	Store string
	// Batched says that opts.Scorer batches requests (for the log).
	Batched bool
}

// Run is `triage serve`: it opens the durable store (c.Store, when set)
// into opts, listens on c.Addr and serves until ctx ends. A bad store,
// address or option is bad input.
func Run(ctx context.Context, opts Options, c RunConfig) error {
	if c.Store != "" {
		st, err := sessionlog.OpenWithin(ctx, c.Store, 30*time.Second)
		if err != nil {
			return corpus.Invalid("{Store}: %v", err)
		}
		defer st.Close()
		opts.Store = st
		slog.Info("durable sessions", "store", st.Describe(), "shared", st.Shared())
	}
	srv, err := New(opts)
	if err != nil {
		return corpus.BadInput("%v", err)
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return corpus.Invalid("{Addr}: %v", err)
	}
	if opts.Scorer == nil {
		slog.Warn("no learned scorer: baselines only; /v1/priorities and policy learned answer 501", "why", opts.ScorerError)
	}
	slog.Info("triage serve listening", "url", "http://"+ln.Addr().String(), "learned", opts.Scorer != nil,
		"batching", opts.Scorer != nil && c.Batched, "auth", opts.Token != "")
	return srv.Serve(ctx, ln)
}
