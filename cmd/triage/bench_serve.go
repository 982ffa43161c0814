package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"triage/search/serve"
)

func newBenchServeCmd() *cobra.Command {
	var (
		sf scorerFlags
		bc serve.BenchConfig
	)
	lo := &bc.Load
	c := &cobra.Command{
		Use:   "serve",
		Short: "Load test of POST /v1/priorities: p50, p99, requests/s, edges/s, with batching on and off",
		Long: `serve runs --clients concurrent clients against POST /v1/priorities for
--duration, each posting --edges edges (one parent's k edits) and waiting for
the answer before the next request, and prints latency percentiles,
requests/s, edges/s and errors.

Without --url it starts the server in this process on a loopback port, once
per --modes entry ("batch": concurrent requests share model executions of up
to --batch-edges; "nobatch": one execution per request), with the scorer of
--checkpoint (default: the embedded default checkpoint) or of --stand-in, a
simulated model that executes one call at a time, each taking the given
time per call plus per edge. With --url it measures that server as it is.
It fails (exit 1) when any request failed.`,
		Example: `  triage bench serve --checkpoint out/ckpt --clients 64 --duration 30s
  triage bench serve --stand-in 10ms+3ms/edge --clients 64 --duration 30s
  triage bench serve --url http://127.0.0.1:8080 --token-file tok`,
		RunE: func(cmd *cobra.Command, args []string) error {
			bc.Scorer = sf.ScorerConfig
			rows, err := serve.Bench(cmd.Context(), bc)
			if err != nil {
				return err
			}
			if err := printResult(cmd, rows, func(w io.Writer) error { return serve.WriteLoadTable(w, rows) }); err != nil {
				return err
			}
			return serve.LoadErr(rows)
		},
	}
	sf.register(c)
	fl := c.Flags()
	fl.StringVar(&bc.URL, "url", "", "measure the server at this base URL instead of one started here")
	fl.StringVar(&bc.Modes, "modes", "batch,nobatch", "in-process server modes to measure, in order")
	fl.StringVar(&bc.TokenFile, "token-file", "", "bearer token for --url")
	fl.IntVar(&lo.Clients, "clients", 64, "concurrent clients")
	fl.DurationVar(&lo.Duration, "duration", 30*time.Second, "how long the clients post")
	fl.IntVar(&lo.EdgesPerRequest, "edges", 3, "edges per request")
	fl.DurationVar(&lo.Timeout, "request-timeout", time.Minute, "time limit of one request (> 0)")
	deprecatedAlias(c, "timeout", "request-timeout")
	return c
}
