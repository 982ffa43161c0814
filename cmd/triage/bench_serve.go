package main

import (
	"context"
	"os"
	"strings"

	"triage/search/serve"
)

// benchServeConfig is one `triage bench serve` run as its flags give it:
// the server at url, or one started here per entry of modes (a comma list
// of batch and nobatch) with the scorer's flags; load's clients post to it.
type benchServeConfig struct {
	scorer    scorerFlags
	load      serve.LoadOptions
	url       string
	modes     string
	tokenFile string // --token-file: the bearer token for url
}

// validate checks c (the load's counts and durations are positive, the
// modes are known) and reads the token of --token-file into the load. A
// bad value is bad input naming its flag.
func (c *benchServeConfig) validate() ([]string, error) {
	lo := &c.load
	if lo.Clients <= 0 || lo.Duration <= 0 || lo.EdgesPerRequest <= 0 || lo.Timeout <= 0 {
		return nil, badInput("--clients, --duration, --edges and --request-timeout must be positive")
	}
	var modes []string
	if c.url == "" {
		var err error
		if modes, err = parseList("--modes", c.modes, "batch", "nobatch"); err != nil {
			return nil, err
		}
	}
	if c.tokenFile != "" {
		token, err := readToken(c.tokenFile)
		if err != nil {
			return nil, err
		}
		lo.Token = token
	}
	return modes, nil
}

// benchServe validates c and runs the load test: against c.url, or once
// per mode against a server started here. It returns one row per server;
// the rows' failed requests are serve.LoadErr's to report.
func benchServe(ctx context.Context, c benchServeConfig) ([]serve.LoadRow, error) {
	modes, err := c.validate()
	if err != nil {
		return nil, err
	}
	if c.url != "" {
		c.load.URL = c.url
		res, err := serve.LoadTest(ctx, c.load)
		if err != nil {
			return nil, err
		}
		return []serve.LoadRow{{Mode: "external", Scorer: c.url, LoadResult: res}}, nil
	}
	var rows []serve.LoadRow
	for _, mode := range modes {
		row, err := benchInProcess(ctx, c.scorer, mode == "batch", c.load)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// benchInProcess starts a server on a loopback port with the scorer of f
// (batched or not), runs the load test lo against it and shuts it down.
func benchInProcess(ctx context.Context, f scorerFlags, batched bool, lo serve.LoadOptions) (serve.LoadRow, error) {
	sc, why, release, err := f.load(batched)
	defer release()
	if err != nil {
		return serve.LoadRow{}, err
	}
	if sc == nil {
		return serve.LoadRow{}, badInput("no scorer to measure (%s): give --checkpoint, --stand-in or --url", why)
	}
	name := "checkpoint " + f.checkpoint
	if f.standIn != "" {
		name = "stand-in " + f.standIn
	} else if f.checkpoint == "" {
		name = "default checkpoint"
	}
	mode := "nobatch"
	if batched {
		mode = "batch"
	}
	return serve.LoadTestInProcess(ctx, sc, mode, name, lo)
}

// readToken reads the bearer token in path (--token-file), trimmed; an
// unreadable file is bad input.
func readToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", badInput("--token-file: %v", err)
	}
	return strings.TrimSpace(string(data)), nil
}
