package codeprior

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// testRefs are two task sets' references: running_max shares a window with
// testdata/src/beta/maxval.py, the word count one with alpha/text.py (and
// its copy beta/text_copy.py).
var testRefs = []Reference{
	{TaskSet: "set1", TaskID: "max", Code: "def running_max(values):\n    best = values[0]\n    for v in values:\n        if v > best:\n            best = v\n    return best\n"},
	{TaskSet: "set1", TaskID: "short", Code: "def f(x):\n    return x + 1\n"},
	{TaskSet: "set2", TaskID: "count", Code: "def tally(s):\n    c = {}\n    for t in split_all(s):\n        c[t] = c.get(t, 0) + 1\n    return c\n"},
}

func testOptions() BuildOptions {
	src := func(label string) SourceDir {
		return SourceDir{Dir: filepath.Join("testdata", "src", label),
			SourceInfo: SourceInfo{Label: label, Kind: "repository", Repo: "test/" + label, Commit: "0000", License: "MIT"}}
	}
	return BuildOptions{Sources: []SourceDir{src("alpha"), src("beta")}, References: testRefs, Order: 4, HeldOutEvery: 1000}
}

func buildTest(t *testing.T, opts BuildOptions) ([]byte, *Header) {
	t.Helper()
	data, h, err := Build(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data, h
}

func TestBuildReport(t *testing.T) {
	_, h := buildTest(t, testOptions())
	alpha, beta := h.Sources[0], h.Sources[1]
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"alpha files", alpha.Files, 4},
		{"alpha overlap (text.py)", alpha.DroppedOverlap, 1},
		{"alpha data (table.py)", alpha.DroppedData, 1},
		{"alpha kept", alpha.Train + alpha.HeldOut, 2},
		{"alpha overlap with set2", alpha.Overlap[1].Files, 1},
		{"alpha overlap with set1", alpha.Overlap[0].Files, 0},
		{"beta files (README.txt is no .py)", beta.Files, 4},
		{"beta overlap (maxval.py)", beta.DroppedOverlap, 1},
		{"beta duplicate (text_copy.py)", beta.DroppedDuplicate, 1},
		{"beta kept", beta.Train + beta.HeldOut, 2},
		{"beta overlap with set1", beta.Overlap[0].Files, 1},
		{"set1 references", h.TaskSets[0].Tasks, 2},
		{"set1 references too short for a window", h.TaskSets[0].NoWindow, 1},
		{"set1 files dropped", h.TaskSets[0].FilesDropped, 1},
		{"set1 references matched", h.TaskSets[0].TasksMatched, 1},
		{"set2 files dropped", h.TaskSets[1].FilesDropped, 1},
		{"set2 references matched", h.TaskSets[1].TasksMatched, 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	if beta.Overlap[0].Windows < 1 || h.TaskSets[0].WindowsMatched < 1 {
		t.Errorf("no matched window recorded: %+v %+v", beta.Overlap, h.TaskSets[0])
	}
	if want := []int{1, 1, 2, 3}; !slices.Equal(h.MinCount, want) {
		t.Errorf("min counts %v, want the schedule's first %v", h.MinCount, want)
	}
	if h.TrainTokens <= 0 || alpha.FilesSHA256 == "" || alpha.FilesSHA256 == beta.FilesSHA256 {
		t.Errorf("tokens %d, file list sums %q %q", h.TrainTokens, alpha.FilesSHA256, beta.FilesSHA256)
	}
	if len(h.Eval) != 3 || h.Eval[1].Set != "references:set1" || !(h.Eval[1].PPL > 1) {
		t.Errorf("eval %+v", h.Eval)
	}
}

func TestBuildDeterministicAndRoundTrip(t *testing.T) {
	a, h := buildTest(t, testOptions())
	b, _ := buildTest(t, testOptions())
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same inputs differ")
	}
	m, err := Load(a)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Header()
	if got.TrainTokens != h.TrainTokens || len(got.Sources) != 2 || got.Sources[1].License != "MIT" || got.Order != 4 {
		t.Errorf("header read back %+v", got)
	}
	again, err := encode(m.header, m.lm)
	if err != nil || !bytes.Equal(again, a) {
		t.Errorf("decode then encode changes the bytes (err %v)", err)
	}
	sc := m.Program("def f(xs):\n    return sorted(xs)\n")
	if len(sc.Tokens) == 0 || math.IsNaN(sc.Total) || sc.Total >= 0 {
		t.Errorf("score %+v", sc)
	}
}

func TestBuildOptionsAndBudget(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*BuildOptions)
	}{
		{"no source", func(o *BuildOptions) { o.Sources = nil }},
		{"label twice", func(o *BuildOptions) { o.Sources[1].Label = o.Sources[0].Label }},
		{"no folder", func(o *BuildOptions) { o.Sources[0].Dir = filepath.Join("testdata", "none") }},
		{"order 11", func(o *BuildOptions) { o.Order = 11 }},
		{"cutoffs of another order", func(o *BuildOptions) { o.MinCount = []int{1, 2} }},
	} {
		o := testOptions()
		c.edit(&o)
		if _, _, err := Build(o, nil); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: err %v, want ErrOptions", c.name, err)
		}
	}
	o := testOptions()
	o.Budget = 1000
	if _, _, err := Build(o, nil); err == nil {
		t.Error("a 1000-byte budget was met")
	}
	o = testOptions()
	o.MinCount = []int{1, 2, 2, 2}
	small, h := buildTest(t, o)
	o = testOptions()
	o.MinCount = []int{1, 1, 1, 1}
	full, _ := buildTest(t, o)
	if len(small) >= len(full) || h.MinCount[3] != 2 {
		t.Errorf("cutoff 2: %d bytes, cutoff 1: %d bytes; min counts %v", len(small), len(full), h.MinCount)
	}
}

func TestLoadRefusesDamage(t *testing.T) {
	data, _ := buildTest(t, testOptions())
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", data[:len(data)/2]},
		{"a flipped byte", flip(data, len(data)/2)},
		{"truncated, resealed", seal(data[:len(data)/2])},
		{"the header's JSON damaged, resealed", seal(flip(data, 14)[:len(data)-sha256.Size])},
		{"another magic", seal(append([]byte("NOTAPRIO"), data[8:len(data)-sha256.Size]...))},
	} {
		if _, err := Load(c.data); !errors.Is(err, ErrArtifact) {
			t.Errorf("%s: err %v, want ErrArtifact", c.name, err)
		}
	}
}

// TestLoadRandomDamage: random damage to an artifact, resealed so the
// checks past the checksum are reached, is refused or loads a model that
// scores with finite log-probabilities; never a panic. (FuzzLoad explores
// further; this runs in every test run.)
func TestLoadRandomDamage(t *testing.T) {
	opts := testOptions()
	opts.Order = 3
	data, _ := buildTest(t, opts)
	body := data[:len(data)-sha256.Size]
	rng := rand.New(rand.NewPCG(5, 6))
	loaded := 0
	for i := range 600 {
		d := bytes.Clone(body)
		for range 1 + rng.IntN(3) {
			d[rng.IntN(len(d))] = byte(rng.IntN(256))
		}
		if i%3 == 0 {
			d = d[:rng.IntN(len(d))]
		}
		m, err := Load(seal(d))
		if err != nil {
			continue
		}
		loaded++
		for _, tok := range m.Program("def f(a):\n    return a[0] + 1\n").Tokens {
			if math.IsNaN(tok.LogProb) || math.IsInf(tok.LogProb, 0) {
				t.Fatalf("damage %d: token %+v not finite", i, tok)
			}
		}
	}
	t.Logf("%d of 600 damaged artifacts loaded", loaded)
}

func flip(data []byte, i int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 0x5a
	return out
}

// seal appends the checksum, so a reader's checks past it are reached.
func seal(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append(bytes.Clone(body), sum[:]...)
}

// FuzzLoad: an artifact handed in from outside is a usable model or an
// error, never a panic; a model that loads scores programs with finite
// log-probabilities.
func FuzzLoad(f *testing.F) {
	opts := testOptions()
	opts.Order = 3
	data, _, err := Build(opts, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-sha256.Size])
	f.Add(data[:100])
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, d := range [][]byte{in, seal(in)} {
			m, err := Load(d)
			if err != nil {
				continue
			}
			sc := m.Program("def f(a):\n    return a[0] + 1\n")
			for _, tok := range sc.Tokens {
				if math.IsNaN(tok.LogProb) || math.IsInf(tok.LogProb, 0) {
					t.Fatalf("token %+v: log-probability not finite", tok)
				}
			}
		}
	})
}
