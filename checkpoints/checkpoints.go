// Package checkpoints holds the embedded default checkpoint: the CPU
// priority model (the small architecture) trained by `make checkpoint` on
// the bundled corpus's train split with a fixed seed. Commands use it
// unless they are given another checkpoint.
//
// Imports: nothing of triage.
package checkpoints

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

//go:embed default
var defaultFS embed.FS

// ErrNoDefault is returned when this build embeds no default checkpoint.
var ErrNoDefault = errors.New("this build embeds no default checkpoint (run `make checkpoint`)")

// DefaultPath returns a folder holding the embedded default checkpoint,
// writing it once per content under the user's cache folder (or the
// system's temporary folder) so loaders can read it as files. The folder is
// found once per process (hashing the embedded files is most of a short
// command's start).
func DefaultPath() (string, error) { return defaultPath() }

var defaultPath = sync.OnceValues(findDefault)

func findDefault() (string, error) {
	files, err := fs.ReadDir(defaultFS, "default")
	if err != nil {
		return "", fmt.Errorf("default checkpoint: %w", err)
	}
	var names []string
	for _, f := range files {
		if !f.IsDir() {
			names = append(names, f.Name())
		}
	}
	sort.Strings(names)
	has := false
	h := sha256.New()
	for _, n := range names {
		if n == "checkpoint.json" {
			has = true
		}
		data, err := defaultFS.ReadFile("default/" + n)
		if err != nil {
			return "", fmt.Errorf("default checkpoint: %w", err)
		}
		h.Write([]byte(n))
		h.Write(data)
	}
	if !has {
		return "", ErrNoDefault
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "triage", "checkpoint-default-"+sum)
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-default-")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", fmt.Errorf("default checkpoint: %w", err)
		}
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), ".tmp-default-"); err != nil {
			return "", fmt.Errorf("default checkpoint: %w", err)
		}
	}
	for _, n := range names {
		data, _ := defaultFS.ReadFile("default/" + n)
		if err := os.WriteFile(filepath.Join(tmp, n), data, 0o644); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("default checkpoint: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, e := os.Stat(filepath.Join(dir, "checkpoint.json")); e == nil {
			return dir, nil // another process wrote it first
		}
		return "", fmt.Errorf("default checkpoint: %w", err)
	}
	return dir, nil
}

// ID names a checkpoint folder (empty: the embedded default) by content:
// the sha256 of its checkpoint.json, which holds the sha256 of every
// weight file. Durable server sessions record it.
func ID(dir string) (string, error) {
	if dir == "" {
		p, err := DefaultPath()
		if err != nil {
			return "", err
		}
		dir = p
	}
	data, err := os.ReadFile(filepath.Join(dir, "checkpoint.json"))
	if err != nil {
		return "", fmt.Errorf("checkpoint id: %w", err)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(data)), nil
}
