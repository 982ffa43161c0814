package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliFlagNames returns the name of every flag of every triage command,
// hidden and deprecated ones included.
func cliFlagNames() map[string]bool {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { names[f.Name] = true }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newCLI())
	return names
}

// flagMention matches a flag as a user writes it: --name.
var flagMention = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// flagLeaks lists, as "path:line: --name", every string literal of a
// non-test Go file under root, outside cmd/ and scripts/, that names a
// triage flag: as --name, or (a hyphenated name) as the whole string.
// With comments it lists the comments that do too.
func flagLeaks(t *testing.T, root string, names map[string]bool, comments bool) []string {
	t.Helper()
	var leaks []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "cmd" || rel == "scripts" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") ||
				(rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file := fset.AddFile(rel, -1, len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, scanner.ScanComments)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			text := lit
			switch tok {
			case token.STRING:
				if u, err := strconv.Unquote(lit); err == nil {
					text = u
				}
				if strings.Contains(text, "-") && names[text] {
					leaks = append(leaks, fmt.Sprintf("%s: %q", fset.Position(pos), text))
					continue
				}
			case token.COMMENT:
				if !comments {
					continue
				}
			default:
				continue
			}
			for _, m := range flagMention.FindAllStringSubmatch(text, -1) {
				if names[m[1]] {
					leaks = append(leaks, fmt.Sprintf("%s: --%s", fset.Position(pos), m[1]))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return leaks
}

// TestNoFlagNamesOutsideCmd: no string of a package outside cmd/ and
// scripts/ names a flag of triage's CLI (issue 42): the packages take
// typed options and name their fields in errors (corpus.FieldError), and
// the commands map fields to flags. Comments may name a flag (a package
// may say which command uses it); they are counted in the log.
func TestNoFlagNamesOutsideCmd(t *testing.T) {
	names := cliFlagNames()
	if len(names) < 50 {
		t.Fatalf("only %d flag names found: the command tree is not walked", len(names))
	}
	for _, leak := range flagLeaks(t, "../..", names, false) {
		t.Errorf("%s: a package outside cmd names a flag", leak)
	}
	t.Logf("comments naming a flag: %d", len(flagLeaks(t, "../..", names, true)))
}

// TestFlagLeaksFinds: the scan finds a flag in a string, and in a comment
// only when asked.
func TestFlagLeaksFinds(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/a.go", "package lib\n\n// Uses --out.\nvar s = `bad --tasks x`\nvar u = \"test-timeout\"\nvar v = \"--pytest-only\"\n")
	write("lib/a_test.go", "package lib\n\nvar t = \"--tasks\"\n")
	write("cmd/x/b.go", "package x\n\nvar s = \"--tasks\"\n")
	names := map[string]bool{"out": true, "tasks": true, "test-timeout": true}
	if got := flagLeaks(t, root, names, false); len(got) != 2 || !strings.Contains(got[0], "--tasks") || !strings.Contains(got[1], `"test-timeout"`) {
		t.Errorf("strings: %q", got)
	}
	if got := flagLeaks(t, root, names, true); len(got) != 3 {
		t.Errorf("with comments: %q", got)
	}
}
