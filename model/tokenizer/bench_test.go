package tokenizer

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// cpuMeter reports the process CPU time per op and the MB/s it implies,
// besides the wall-clock figures of the testing package.
type cpuMeter struct {
	start time.Duration
	bytes int
}

func startCPU(b *testing.B, bytes int) *cpuMeter {
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	return &cpuMeter{start: processCPU(), bytes: bytes}
}

func (m *cpuMeter) stop(b *testing.B) {
	cpu := processCPU() - m.start
	if cpu <= 0 || b.N == 0 {
		return
	}
	perOp := cpu.Seconds() / float64(b.N)
	b.ReportMetric(perOp*1e3, "cpu-ms/op")
	b.ReportMetric(float64(m.bytes)/1e6/perOp, "cpu-MB/s")
}

const benchCorpusSize = 1 << 20

func TestSyntheticCorpus(t *testing.T) {
	a, b := SyntheticCorpus(50_000), SyntheticCorpus(50_000)
	if a != b {
		t.Fatal("SyntheticCorpus is not deterministic")
	}
	if len(a) < 50_000 || len(a) > 52_000 {
		t.Errorf("SyntheticCorpus(50000) has %d bytes", len(a))
	}
	for _, want := range []string{"def ", "class ", "Traceback (most recent call last):", "AssertionError", "test session starts"} {
		if !strings.Contains(a, want) {
			t.Errorf("corpus lacks %q", want)
		}
	}
}

// BenchmarkEncode is the throughput figure: ~1 MiB of Python code and
// pytest output, with the merge cache warm (as in training, where the same
// tokenizer encodes the whole corpus). Run with -cpu 1.
func BenchmarkEncode(b *testing.B) {
	tok := qwen3(b)
	text := SyntheticCorpus(benchCorpusSize)
	tok.Encode(text) // warm the cache
	m := startCPU(b, len(text))
	for b.Loop() {
		tok.Encode(text)
	}
	m.stop(b)
}

// BenchmarkEncodeColdCache encodes the corpus with an empty merge cache at
// each iteration (a first pass over new text).
func BenchmarkEncodeColdCache(b *testing.B) {
	base := qwen3(b)
	text := SyntheticCorpus(benchCorpusSize)
	m := startCPU(b, len(text))
	for b.Loop() {
		b.StopTimer()
		tok := *base
		tok.cache = newPieceCache(cacheCapacity)
		b.StartTimer()
		tok.Encode(text)
	}
	m.stop(b)
}

// BenchmarkPreTokenize compares the hand scanner with regexp2 on the
// corpus (the reason the scanner exists).
func BenchmarkPreTokenize(b *testing.B) {
	text := SyntheticCorpus(benchCorpusSize)
	rs := qwen2Regexp(b)
	for _, c := range []struct {
		name string
		sp   splitter
	}{{"scanner", qwen2Splitter{}}, {"regexp2", rs}} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			m := startCPU(b, len(text))
			for b.Loop() {
				if err := c.sp.split(text, func(int, int) { n++ }); err != nil {
					b.Fatal(err)
				}
			}
			m.stop(b)
		})
	}
}

// BenchmarkPathological times each long adversarial input of the fixtures
// (target: under 100 ms each); TestQwen3Pathological checks their ids.
func BenchmarkPathological(b *testing.B) {
	tok := qwen3(b)
	inputs, _ := pathological(b)
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		s := inputs[name]
		b.Run(name, func(b *testing.B) {
			m := startCPU(b, len(s))
			for b.Loop() {
				tok.Encode(s)
			}
			m.stop(b)
		})
	}
}

// TestBench checks Bench's bookkeeping (not its times).
func TestBench(t *testing.T) {
	tok := qwen3(t)
	text := SyntheticCorpus(20_000)
	res, err := Bench(tok, BenchOptions{Text: text, MinTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != len(text) || res.Tokens != tok.CountTokens(text) || res.Passes < 1 {
		t.Errorf("Bench = %+v; want bytes %d, tokens %d, passes >= 1", res, len(text), tok.CountTokens(text))
	}
	if len(res.Pathological) != 5 {
		t.Fatalf("Bench timed %d pathological inputs, want 5", len(res.Pathological))
	}
	for _, p := range res.Pathological {
		if p.Tokens == 0 || p.Bytes == 0 {
			t.Errorf("pathological %+v: empty", p)
		}
	}
	if _, err := Bench(nil, BenchOptions{}); err == nil {
		t.Error("Bench(nil) succeeded")
	}
}

// TestPathologicalInputs checks the generated inputs: the repetitive ones
// equal the fixtures', and all of them round-trip.
func TestPathologicalInputs(t *testing.T) {
	tok := qwen3(t)
	gen := PathologicalInputs()
	fixtures, refs := pathological(t)
	if !slices.Equal(slices.Sorted(maps.Keys(gen)), slices.Sorted(maps.Keys(fixtures))) {
		t.Fatalf("names %v, fixtures %v", slices.Sorted(maps.Keys(gen)), slices.Sorted(maps.Keys(fixtures)))
	}
	for _, name := range []string{"spaces_50k", "letters_50k", "newlines_50k"} {
		if gen[name] != fixtures[name] {
			t.Errorf("%s differs from the fixture", name)
		} else if got := tok.Encode(gen[name]); !slices.Equal(got, refs[name]) {
			t.Errorf("%s: %s", name, firstDiff(got, refs[name]))
		}
	}
	for name, s := range gen {
		if got := tok.Decode(tok.Encode(s)); got != s {
			t.Errorf("%s does not round-trip", name)
		}
	}
	if PathologicalInputs()["cjk_100k"] != gen["cjk_100k"] {
		t.Error("PathologicalInputs is not deterministic")
	}
}
