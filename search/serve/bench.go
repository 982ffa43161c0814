package serve

import (
	"context"
	"os"
	"strings"

	"triage/corpus"
)

// BenchConfig is one `triage bench serve` run as its flags give it: the
// server at URL, or one started here per entry of Modes (a comma list of
// batch and nobatch) with Scorer's scorer; Load's clients post to it.
type BenchConfig struct {
	Scorer    ScorerConfig
	Load      LoadOptions
	URL       string
	Modes     string
	TokenFile string // --token-file: the bearer token for URL
}

// Validate checks c (the load's counts and durations are positive, the
// modes are known) and reads the token of TokenFile into Load. A bad value
// is bad input (an InputError) naming its flag.
func (c *BenchConfig) Validate() ([]string, error) {
	lo := &c.Load
	if lo.Clients <= 0 || lo.Duration <= 0 || lo.EdgesPerRequest <= 0 || lo.Timeout <= 0 {
		return nil, corpus.BadInput("--clients, --duration, --edges and --request-timeout must be positive")
	}
	var modes []string
	if c.URL == "" {
		var err error
		if modes, err = corpus.ParseList("--modes", c.Modes, "batch", "nobatch"); err != nil {
			return nil, err
		}
	}
	if c.TokenFile != "" {
		token, err := ReadToken(c.TokenFile)
		if err != nil {
			return nil, err
		}
		lo.Token = token
	}
	return modes, nil
}

// Bench validates c and runs the load test: against c.URL, or once per
// mode against a server started here. It returns one row per server; the
// rows' failed requests are LoadErr's to report.
func Bench(ctx context.Context, c BenchConfig) ([]LoadRow, error) {
	modes, err := c.Validate()
	if err != nil {
		return nil, err
	}
	if c.URL != "" {
		c.Load.URL = c.URL
		res, err := LoadTest(ctx, c.Load)
		if err != nil {
			return nil, err
		}
		return []LoadRow{{Mode: "external", Scorer: c.URL, LoadResult: res}}, nil
	}
	var rows []LoadRow
	for _, mode := range modes {
		sc := c.Scorer
		sc.Batched = mode == "batch"
		row, err := BenchInProcess(ctx, sc, c.Load)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReadToken reads the bearer token in path (--token-file), trimmed; an
// unreadable file is bad input.
func ReadToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", corpus.BadInput("--token-file: %v", err)
	}
	return strings.TrimSpace(string(data)), nil
}
