package tokenizer

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// BenchOptions configures Bench.
type BenchOptions struct {
	// Text is the text to encode; empty means SyntheticCorpus(Size).
	Text string
	// Size is the synthetic corpus size in bytes (default 1 MiB).
	Size int
	// MinTime is how long the warm-cache throughput is measured at least
	// (default 1s); at least one full pass is always made.
	MinTime time.Duration
	// Runs is how many times each pathological input is timed (default
	// 3); the fastest and slowest are reported.
	Runs int
}

// BenchResult holds the figures of Bench. Times are wall clock, measured on
// one goroutine.
type BenchResult struct {
	Bytes         int           `json:"bytes"`
	Tokens        int           `json:"tokens"`
	BytesPerToken float64       `json:"bytes_per_token"`
	ColdMBps      float64       `json:"cold_mb_per_s"` // first pass, empty merge cache
	WarmMBps      float64       `json:"warm_mb_per_s"` // later passes
	Passes        int           `json:"passes"`
	Pathological  []PathoResult `json:"pathological"`
}

// PathoResult is the time of one pathological input over several runs.
type PathoResult struct {
	Name      string  `json:"name"`
	Bytes     int     `json:"bytes"`
	Tokens    int     `json:"tokens"`
	MinMillis float64 `json:"min_ms"`
	MaxMillis float64 `json:"max_ms"`
}

// Bench measures encoding throughput on opts.Text (or the synthetic corpus
// of code and tracebacks) and times each of PathologicalInputs. It uses a
// fresh merge cache so the first pass is cold.
func Bench(t *Tokenizer, opts BenchOptions) (BenchResult, error) {
	if t == nil {
		return BenchResult{}, fmt.Errorf("bench: nil tokenizer")
	}
	if opts.Size <= 0 {
		opts.Size = 1 << 20
	}
	if opts.MinTime <= 0 {
		opts.MinTime = time.Second
	}
	if opts.Runs <= 0 {
		opts.Runs = 3
	}
	text := opts.Text
	if text == "" {
		text = SyntheticCorpus(opts.Size)
	}
	tok := *t
	tok.cache = newPieceCache(cacheCapacity)
	var res BenchResult
	res.Bytes = len(text)

	start := time.Now()
	ids := tok.Encode(text)
	cold := time.Since(start)
	res.Tokens = len(ids)
	if res.Tokens > 0 {
		res.BytesPerToken = float64(res.Bytes) / float64(res.Tokens)
	}
	res.ColdMBps = mbps(res.Bytes, cold)

	buf := make([]int32, 0, len(ids))
	start = time.Now()
	for res.Passes == 0 || time.Since(start) < opts.MinTime {
		buf = tok.AppendEncode(buf[:0], text)
		res.Passes++
	}
	res.WarmMBps = mbps(res.Bytes*res.Passes, time.Since(start))

	patho := PathologicalInputs()
	for _, name := range slices.Sorted(maps.Keys(patho)) {
		s := patho[name]
		p := PathoResult{Name: name, Bytes: len(s)}
		for r := range opts.Runs {
			start := time.Now()
			p.Tokens = len(tok.AppendEncode(buf[:0], s))
			ms := float64(time.Since(start).Microseconds()) / 1e3
			if r == 0 || ms < p.MinMillis {
				p.MinMillis = ms
			}
			p.MaxMillis = max(p.MaxMillis, ms)
		}
		res.Pathological = append(res.Pathological, p)
	}
	return res, nil
}

func mbps(bytes int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}
