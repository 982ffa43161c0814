package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
)

func TestCommit(t *testing.T) {
	const other = "fedcba9876543210fedcba9876543210fedcba98"
	write := func(t *testing.T, dir string, files map[string]string) string {
		t.Helper()
		for name, text := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		flag  string
		want  string // "" with bad: bad input
		bad   bool
	}{
		{"a branch's ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": fakeCommit + "\n"}, "", fakeCommit, false},
		{"a packed ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n",
			".git/packed-refs": "# pack-refs with: peeled\n" + other + " refs/heads/dev\n" + fakeCommit + " refs/heads/main\n"}, "", fakeCommit, false},
		{"a detached head", map[string]string{".git/HEAD": fakeCommit + "\n"}, "", fakeCommit, false},
		{"a worktree's gitdir file", map[string]string{".git": "gitdir: meta/wt\n", "meta/wt/HEAD": "ref: refs/heads/x\n",
			"meta/wt/commondir": "..\n", "meta/refs/heads/x": fakeCommit}, "", fakeCommit, false},
		{"the flag agrees", map[string]string{".git/HEAD": fakeCommit}, strings.ToUpper(fakeCommit), fakeCommit, false},
		{"the flag disagrees", map[string]string{".git/HEAD": fakeCommit}, other, "", true},
		{"no .git: the flag", map[string]string{"README": "x"}, other, other, false},
		{"no .git, no flag", map[string]string{"README": "x"}, "", "", true},
		{"a short flag", map[string]string{"README": "x"}, "f5988cc", "", true},
	} {
		dir := write(t, t.TempDir(), c.files)
		got, err := Commit(dir, c.flag)
		var ie *corpus.InputError
		switch {
		case c.bad && !errors.As(err, &ie):
			t.Errorf("%s: %q, %v; want bad input", c.name, got, err)
		case !c.bad && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %s", c.name, got, err, c.want)
		}
	}
}

func TestCheckMIT(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		ok               bool
	}{
		{"MIT", "LICENSE", "MIT License\n\nPermission is hereby granted, free of charge, to any person", true},
		{"MIT in markdown", "LICENSE.md", "## MIT License\n\nPermission is hereby granted, free of charge, to any", true},
		{"another licence", "LICENSE", "Apache License\nVersion 2.0", false},
		{"none", "README.md", "MIT License", false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := checkMIT(dir); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
