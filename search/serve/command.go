package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"triage/corpus"
	"triage/policy"
	"triage/search/serve/sessionlog"
)

// ScorerConfig chooses the scorer of `triage serve` and `bench serve`: a
// checkpoint that Load opens ("" for the embedded default), or a
// simulated model (StandIn, see ParseStandIn); Batched wraps it in a
// policy.Batcher with Batch's settings.
type ScorerConfig struct {
	Checkpoint, StandIn string
	Batched             bool
	Batch               policy.BatchOptions
	// Load opens a checkpoint folder and returns its scorer and the
	// function that frees it.
	Load func(ctx context.Context, path string) (policy.Scorer, func(), error)
	// ID names a checkpoint for durable sessions ("" for the default).
	ID func(path string) (string, error)
}

// LoadScorer loads the learned scorer (or the stand-in) of c and wraps it
// in a Batcher unless batching is off. Without a checkpoint named, a
// missing default is no error: the server runs the baselines and says why
// learned is missing (why). release closes the batcher, then frees the
// model.
func LoadScorer(ctx context.Context, c ScorerConfig) (sc policy.Scorer, why string, release func(), err error) {
	release = func() {}
	switch {
	case c.StandIn != "" && c.Checkpoint != "":
		return nil, "", release, corpus.BadInput("--stand-in and --checkpoint exclude each other")
	case c.StandIn != "":
		s, err := ParseStandIn(c.StandIn)
		if err != nil {
			return nil, "", release, corpus.BadInput("--stand-in: %v", err)
		}
		sc = s
	default:
		s, free, err := c.Load(ctx, c.Checkpoint)
		if err != nil {
			if c.Checkpoint != "" {
				return nil, "", release, fmt.Errorf("load checkpoint %s: %w", c.Checkpoint, err)
			}
			return nil, "default checkpoint: " + err.Error(), release, nil
		}
		sc, release = s, free
	}
	if !c.Batched {
		return sc, "", release, nil
	}
	b, err := policy.NewBatcher(sc, c.Batch)
	if err != nil {
		release()
		return nil, "", func() {}, corpus.BadInput("batching: %v", err)
	}
	free := release
	return b, "", func() { b.Close(); free() }, nil
}

// scorerID names the loaded scorer for durable sessions: the checkpoint's
// id, or the stand-in's spec.
func (c ScorerConfig) scorerID() (string, error) {
	if c.StandIn != "" {
		return "stand-in " + c.StandIn, nil
	}
	return c.ID(c.Checkpoint)
}

// Run is `triage serve`: it loads the scorer of sc into opts, opens the
// durable store (storeSpec, when set), listens on addr and serves until
// ctx ends. A bad store, address or option is bad input.
func Run(ctx context.Context, opts Options, sc ScorerConfig, addr, storeSpec string) error {
	scorer, why, release, err := LoadScorer(ctx, sc)
	defer release()
	if err != nil {
		return err
	}
	opts.Scorer, opts.ScorerError = scorer, why
	if scorer != nil {
		if opts.ScorerID, err = sc.scorerID(); err != nil {
			return err
		}
	}
	if storeSpec != "" {
		st, err := sessionlog.OpenWithin(ctx, storeSpec, 30*time.Second)
		if err != nil {
			return corpus.BadInput("--store: %v", err)
		}
		defer st.Close()
		opts.Store = st
		slog.Info("durable sessions", "store", st.Describe(), "shared", st.Shared())
	}
	srv, err := New(opts)
	if err != nil {
		return corpus.BadInput("%v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return corpus.BadInput("--addr: %v", err)
	}
	if why != "" {
		slog.Warn("no learned scorer: baselines only; /v1/priorities and policy learned answer 501", "why", why)
	}
	slog.Info("triage serve listening", "url", "http://"+ln.Addr().String(), "learned", scorer != nil,
		"batching", scorer != nil && sc.Batched, "auth", opts.Token != "")
	return srv.Serve(ctx, ln)
}

// BenchInProcess starts a server on a loopback port with the scorer of c,
// runs the load test lo against it and shuts it down.
func BenchInProcess(ctx context.Context, c ScorerConfig, lo LoadOptions) (LoadRow, error) {
	sc, why, release, err := LoadScorer(ctx, c)
	defer release()
	if err != nil {
		return LoadRow{}, err
	}
	if sc == nil {
		return LoadRow{}, corpus.BadInput("no scorer to measure (%s): give --checkpoint, --stand-in or --url", why)
	}
	name := "checkpoint " + c.Checkpoint
	if c.StandIn != "" {
		name = "stand-in " + c.StandIn
	} else if c.Checkpoint == "" {
		name = "default checkpoint"
	}
	mode := "nobatch"
	if c.Batched {
		mode = "batch"
	}
	return LoadTestInProcess(ctx, sc, mode, name, lo)
}
