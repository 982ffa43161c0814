package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"triage/checkpoints"
	"triage/policy"
	"triage/search/serve"
)

// scorerFlags choose the scorer of serve and bench serve.
type scorerFlags struct {
	checkpoint, standIn string
	noBatch             bool
	batch               policy.BatchOptions
}

func (f *scorerFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint of the learned scorer (default: the embedded default checkpoint)")
	fl.StringVar(&f.standIn, "stand-in", "", "serve a simulated model of this cost instead of a checkpoint, for load tests (e.g. 10ms+3ms/edge)")
	fl.BoolVar(&f.noBatch, "no-batch", false, "score each request on its own instead of batching concurrent requests")
	fl.IntVar(&f.batch.MaxEdges, "batch-edges", 64, "most edges in one model execution")
	fl.DurationVar(&f.batch.MaxWait, "batch-wait", 2*time.Millisecond, "how long the first queued edge waits for more to fill a model execution")
	fl.IntVar(&f.batch.MaxQueue, "queue-edges", 8192, "most edges waiting for the model; beyond it requests get 503")
	fl.IntVar(&f.batch.Workers, "batch-workers", runtime.NumCPU(), "model executions in flight at once (1: one execution at a time, as one GPU runs them)")
}

// load opens the scorer the flags name, the stand-in or the checkpoint,
// and wraps it in a batcher when batched. Without --checkpoint a missing
// default is no error: the scorer is nil and why says why. release closes
// the batcher, then frees the model.
func (f scorerFlags) load(batched bool) (sc policy.Scorer, why string, release func(), err error) {
	release = func() {}
	switch {
	case f.standIn != "" && f.checkpoint != "":
		return nil, "", release, badInput("--stand-in and --checkpoint exclude each other")
	case f.standIn != "":
		s, err := serve.ParseStandIn(f.standIn)
		if err != nil {
			return nil, "", release, badInput("--stand-in: %v", err)
		}
		sc = s
	default:
		s, free, err := openCheckpoint(f.checkpoint)
		if err != nil {
			if f.checkpoint != "" {
				return nil, "", release, fmt.Errorf("load checkpoint %s: %w", f.checkpoint, err)
			}
			return nil, "default checkpoint: " + err.Error(), release, nil
		}
		sc, release = s, free
	}
	if !batched {
		return sc, "", release, nil
	}
	b, closeBatcher, err := serve.Batch(sc, f.batch)
	if err != nil {
		release()
		return nil, "", func() {}, serveFlagNames.flagged(err)
	}
	free := release
	return b, "", func() { closeBatcher(); free() }, nil
}

// id names the loaded scorer for durable sessions: the checkpoint's id, or
// the stand-in's spec.
func (f scorerFlags) id() (string, error) {
	if f.standIn != "" {
		return "stand-in " + f.standIn, nil
	}
	return checkpoints.ID(f.checkpoint)
}

// serveFlagNames are the flags of serve's fields that errors name.
var serveFlagNames = flagNames{"Store": "--store", "Addr": "--addr", "Batch": "batching"}

func newServeCmd() *cobra.Command {
	var (
		sf        scorerFlags
		opts      serve.Options
		addr      string
		tokenFile string
		storeSpec string
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve priorities and ask–tell search sessions over HTTP",
		Long: `serve answers JSON over HTTP (docs/serve.md has every field and curl examples):

  POST   /v1/priorities          the learned model's solve-distance distribution and s(e) per edge
  POST   /v1/sessions            start a search: policy, params, budget, seed, the root program
  POST   /v1/sessions/{id}/ask   the next edges to expand
  POST   /v1/sessions/{id}/tell  an expanded child: tests, feedback, diagnosis, its edits, tokens
  GET    /v1/sessions/{id}       state, best program, expansions, tokens
  GET    /v1/sessions/{id}/tree  the tree so far (?format=json or parquet: a corpus shard)
  DELETE /v1/sessions/{id}       end it (saved to --sessions-dir when set)
  GET    /healthz, /metrics      health; Prometheus metrics

Concurrent scoring requests (and learned sessions) share model executions
of up to --batch-edges edges. Every baseline policy works without a
checkpoint; without one, /v1/priorities and the learned policy answer 501.
SIGINT or SIGTERM stops accepting connections, finishes the requests in
flight (up to --shutdown-timeout) and saves the open sessions (without
--store).

With --store, sessions are durable: every creation, ask and tell is
recorded before it is answered, and a server started on the same store
(after a crash, a deploy) goes on with every open session exactly where
it was; open sessions are not ended at shutdown. --store PATH is a bbolt
file for one server; --store postgres://... is shared by replicas behind
a load balancer. An unreachable, held or newer-version store is exit 2.`,
		Example: `  triage serve --addr 127.0.0.1:8080 --checkpoint out/ckpt
  triage serve --token-file out/token --sessions-dir out/sessions
  triage serve --store out/sessions.db --sessions-dir out/sessions
  triage serve --addr :8080 --store "postgres://triage@db:5432/triage?sslmode=require"
  curl -s localhost:8080/healthz`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tokenFile != "" {
				var err error
				if opts.Token, err = readToken(tokenFile); err != nil {
					return err
				}
				if opts.Token == "" {
					return badInput("--token-file %s is empty", tokenFile)
				}
			}
			scorer, why, release, err := sf.load(!sf.noBatch)
			defer release()
			if err != nil {
				return err
			}
			opts.Scorer, opts.ScorerError = scorer, why
			opts.ScorerHint = "start `triage serve` with --checkpoint; baseline policies work without one"
			if scorer != nil {
				if opts.ScorerID, err = sf.id(); err != nil {
					return err
				}
			}
			return serveFlagNames.flagged(serve.Run(cmd.Context(), opts, serve.RunConfig{Addr: addr, Store: storeSpec, Batched: !sf.noBatch}))
		},
	}
	sf.register(c)
	fl := c.Flags()
	fl.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (loopback unless told otherwise)")
	fl.StringVar(&tokenFile, "token-file", "", "file holding a bearer token every request but /healthz must carry")
	fl.StringVar(&storeSpec, "store", "", "keep sessions durable in this store: a bbolt file path (one server), or a postgres:// URL shared by replicas (docs/serve.md)")
	fl.StringVar(&opts.SessionsDir, "sessions-dir", "", "save every ended session (deleted, expired, open at shutdown) here as a corpus shard")
	fl.Int64Var(&opts.MaxBodyBytes, "max-body", 8<<20, "largest request body in bytes (larger: 413)")
	fl.DurationVar(&opts.RequestTimeout, "request-timeout", time.Minute, "time limit of one request (then 503)")
	fl.IntVar(&opts.MaxEdges, "max-edges", 1024, "most edges in one /v1/priorities request")
	fl.IntVar(&opts.MaxSessions, "max-sessions", 1024, "most open sessions")
	fl.DurationVar(&opts.SessionIdle, "session-idle", 15*time.Minute, "a session without requests for this long ends")
	fl.IntVar(&opts.MaxBudget, "max-budget", 1000, "largest session budget (the budget of a session that names none)")
	fl.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "how long shutdown waits for requests in flight")
	return c
}
