package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
)

// BenchOptions configure BenchScore: a random-weight model of Config scores
// Parents parents × K edits, each edit EditTokens long after a prefix of
// TokensPerEdge − EditTokens tokens (so one unpacked edge is TokensPerEdge).
type BenchOptions struct {
	Config        Config
	Options       Options
	Parents       int
	K             int
	TokensPerEdge int
	EditTokens    int
	MaxRows       int
	Reps          int
	Seed          uint64
	Modes         []string // "packed", "unpacked"
}

// BenchResult is one mode's measurement.
type BenchResult struct {
	Mode          string  `json:"mode"`
	Edges         int     `json:"edges"`
	Seconds       float64 `json:"seconds"`
	EdgesPerSec   float64 `json:"edges_per_sec"`
	TokensPerSec  float64 `json:"tokens_per_sec"`
	RowTokens     int     `json:"row_tokens"`
	RowsPerCall   int     `json:"rows_per_call"`
	WarmupSeconds float64 `json:"warmup_seconds"`
}

// BenchScore measures scoring throughput (edges/s) per mode on backend: one
// warm-up pass (compilation, variable initialization and transfer), then
// Reps timed passes over the same edges.
func BenchScore(ctx context.Context, backend backends.Backend, o BenchOptions) ([]BenchResult, error) {
	if o.Parents <= 0 || o.K <= 0 || o.Reps <= 0 || o.EditTokens <= 0 || o.TokensPerEdge <= o.EditTokens {
		return nil, fmt.Errorf("bench: need parents, k, reps > 0 and tokens per edge > edit tokens > 0: %+v", o)
	}
	if o.Options.LoRA == nil {
		l := DefaultLoRA()
		o.Options.LoRA = &l
	}
	m, err := New(o.Config, o.Options)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 1))
	randIDs := func(n int) []int32 {
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(rng.IntN(o.Config.VocabSize))
		}
		return ids
	}
	groups := make([]Encoded, o.Parents)
	for p := range groups {
		g := Encoded{Prefix: randIDs(o.TokensPerEdge - o.EditTokens)}
		for e := 0; e < o.K; e++ {
			g.Edits = append(g.Edits, randIDs(o.EditTokens))
			g.B = append(g.B, 1+e%2)
		}
		g.Features = [NumFeatures]float32{rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()}
		groups[p] = g
	}
	var out []BenchResult
	for _, mode := range o.Modes {
		net := &Qwen3Net{M: m, EditsPerRow: o.K}
		rowTokens := o.TokensPerEdge - o.EditTokens + o.K*o.EditTokens
		switch mode {
		case "packed":
		case "unpacked":
			net.EditsPerRow = 1
			rowTokens = o.TokensPerEdge
		default:
			return nil, fmt.Errorf("bench: unknown mode %q (packed or unpacked)", mode)
		}
		s, err := NewScorer(net, m.Context(), backend, o.MaxRows)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := s.ScoreEncoded(ctx, groups); err != nil {
			s.Close()
			return nil, fmt.Errorf("bench %s: %w", mode, err)
		}
		warm := time.Since(start)
		start = time.Now()
		for r := 0; r < o.Reps; r++ {
			if _, err := s.ScoreEncoded(ctx, groups); err != nil {
				s.Close()
				return nil, fmt.Errorf("bench %s: %w", mode, err)
			}
		}
		sec := time.Since(start).Seconds()
		s.Close()
		edges := o.Parents * o.K * o.Reps
		rows := o.Parents * o.Reps
		if net.EditsPerRow == 1 {
			rows *= o.K
		}
		out = append(out, BenchResult{Mode: mode, Edges: edges, Seconds: sec, EdgesPerSec: float64(edges) / sec,
			TokensPerSec: float64(rows*lengthBucket(rowTokens)) / sec, RowTokens: lengthBucket(rowTokens),
			RowsPerCall: s.maxRows, WarmupSeconds: warm.Seconds()})
	}
	return out, nil
}
