package model

import (
	"context"
	"testing"
)

// BenchmarkScore scores edges of the small embedded-default architecture on
// the CPU backend at docs/design.md's token budgets, packed and unpacked. Run with
// go test -run X -bench Score ./model/
func BenchmarkScore(b *testing.B) {
	for _, mode := range []string{"packed", "unpacked"} {
		b.Run(mode, func(b *testing.B) {
			res, err := BenchScore(context.Background(), testBackend(b), BenchOptions{
				Config: SmallConfig(), Parents: 4, K: 3, TokensPerEdge: 1024, EditTokens: 175,
				MaxRows: 4, Reps: b.N, Modes: []string{mode}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res[0].EdgesPerSec, "edges/s")
		})
	}
}

func TestBenchScore(t *testing.T) {
	c := SmallConfig()
	c.VocabSize = 512
	res, err := BenchScore(context.Background(), testBackend(t), BenchOptions{
		Config: c, Parents: 2, K: 3, TokensPerEdge: 40, EditTokens: 8, MaxRows: 2, Reps: 1,
		Modes: []string{"packed", "unpacked"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Edges != 6 || res[1].Edges != 6 || res[0].RowTokens != 64 || res[1].RowTokens != 64 {
		t.Errorf("results %+v", res)
	}
	if _, err := BenchScore(context.Background(), testBackend(t), BenchOptions{Config: c, Modes: []string{"x"}}); err == nil {
		t.Error("bad options accepted")
	}
}
