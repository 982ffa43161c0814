package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// savedBag writes a small bag checkpoint with fitted statistics.
func savedBag(t *testing.T) (string, *Bundle) {
	t.Helper()
	cfg := BagConfig{Buckets: 256, Embed: 4, Hidden: 8, MaxParentIDs: 32, MaxEditIDs: 32, NGramOrder: 2, NGramBits: 8}
	lm, _ := NewNGram(2, 8)
	lm.Fit("def f(a, b):\n    return a + b\n", map[string]bool{})
	b, err := NewBag(cfg, 5, 8, lm, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetFeatureStats(b.Ctx, [NumFeatures]float32{0.1, 0.2, 0.3, 0.4}, [NumFeatures]float32{1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	std := make([]float32, len(BagDense))
	for i := range std {
		std[i] = 1
	}
	if err := SetDenseStats(b.Ctx, cfg, make([]float32, len(BagDense)), std); err != nil {
		t.Fatal(err)
	}
	// Create the remaining variables by scoring once.
	s, err := b.Scorer(testBackend(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Score(context.Background(), bagEdges()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := t.TempDir()
	if err := b.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir, b
}

func TestCheckpointSaveLoad(t *testing.T) {
	dir, orig := savedBag(t)
	b, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Meta.Arch != "bag" || b.Meta.Bins != 5 || b.Net.(*BagNet).LM.Vocab != orig.Net.(*BagNet).LM.Vocab {
		t.Errorf("loaded %+v", b.Meta)
	}
	for _, bb := range []*Bundle{orig, b} {
		s, err := bb.Scorer(testBackend(t), 4)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	sa, _ := orig.Scorer(testBackend(t), 4)
	sb, _ := b.Scorer(testBackend(t), 4)
	defer sa.Close()
	defer sb.Close()
	da, _ := sa.Score(context.Background(), bagEdges())
	db, err := sb.Score(context.Background(), bagEdges())
	if err != nil {
		t.Fatal(err)
	}
	for i := range da {
		for j := range da[i] {
			if da[i][j] != db[i][j] {
				t.Fatalf("edge %d: scores %v before saving, %v after loading", i, da[i], db[i])
			}
		}
	}
}

// TestBadCheckpoints: every broken checkpoint is an ErrCheckpoint error,
// never a panic.
func TestBadCheckpoints(t *testing.T) {
	good, _ := savedBag(t)
	copyDir := func(t *testing.T) string {
		dst := t.TempDir()
		entries, _ := os.ReadDir(good)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(good, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dst
	}
	editJSON := func(t *testing.T, dir string, fn func(m map[string]any)) {
		raw, _ := os.ReadFile(filepath.Join(dir, CheckpointFile))
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		raw, _ = json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, CheckpointFile), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"missing folder", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, "no such file"},
		{"empty folder", func(t *testing.T) string { return t.TempDir() }, "checkpoint.json"},
		{"not JSON", func(t *testing.T) string {
			d := copyDir(t)
			_ = os.WriteFile(filepath.Join(d, CheckpointFile), []byte("{not json"), 0o644)
			return d
		}, "checkpoint.json"},
		{"other format", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["format"] = "triage-checkpoint/99" })
			return d
		}, "format"},
		{"unknown arch", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["arch"] = "lstm" })
			return d
		}, "architecture"},
		{"truncated weights", func(t *testing.T) string {
			d := copyDir(t)
			p := filepath.Join(d, WeightsFile)
			data, _ := os.ReadFile(p)
			_ = os.WriteFile(p, data[:len(data)/2], 0o644)
			return d
		}, "sha256"},
		{"altered weights", func(t *testing.T) string {
			d := copyDir(t)
			p := filepath.Join(d, WeightsFile)
			data, _ := os.ReadFile(p)
			data[len(data)-1] ^= 0xff
			_ = os.WriteFile(p, data, 0o644)
			return d
		}, "sha256"},
		{"missing weights", func(t *testing.T) string {
			d := copyDir(t)
			_ = os.Remove(filepath.Join(d, WeightsFile))
			return d
		}, "no such file"},
		{"shape mismatch", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["bag"].(map[string]any)["embed"] = 5.0 })
			return d
		}, "shape"},
		{"bins mismatch", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["bins"] = 7.0 })
			return d
		}, "inconsistent"},
		{"bad feature stats", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["feature_std"] = []any{1.0, 0.0, 1.0, 1.0} })
			return d
		}, "std"},
		{"path in files", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["files"] = map[string]any{"../x": "00"} })
			return d
		}, "plain file name"},
		{"huge config", func(t *testing.T) string {
			d := copyDir(t)
			editJSON(t, d, func(m map[string]any) { m["bag"].(map[string]any)["buckets"] = 1e12 })
			return d
		}, "buckets"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.setup(t)
			b, err := LoadCheckpoint(dir)
			if err == nil || b != nil {
				t.Fatalf("LoadCheckpoint = %v, %v; want an error", b, err)
			}
			if !errors.Is(err, ErrCheckpoint) {
				t.Errorf("error %v does not wrap ErrCheckpoint", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}
