package convert

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"triage/corpus"
)

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Commit returns the commit of the checked-out folder dir: the one its .git
// names (HEAD, a ref it points to, or packed-refs), else given (the
// option Commit). Both given must agree; neither is bad input, as is a
// given commit that is not 40 hex digits.
func Commit(dir, given string) (string, error) {
	given = strings.ToLower(strings.TrimSpace(given))
	if given != "" && !commitRE.MatchString(given) {
		return "", corpus.Invalid("{Commit} %q: want the full 40-hex commit", given)
	}
	got, err := gitHead(dir)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read the commit of %s: %w", dir, err)
	case err != nil && given == "":
		return "", corpus.Invalid("%s has no .git to read its commit from: pass {Commit}", dir)
	case err != nil:
		return given, nil
	case given != "" && given != got:
		return "", corpus.Invalid("{Commit} %s, but %s is checked out at %s", given, dir, got)
	}
	return got, nil
}

// gitHead reads the commit HEAD points to in dir/.git (a folder, or a file
// "gitdir: PATH" as in worktrees and submodules).
func gitHead(dir string) (string, error) {
	gitDir := filepath.Join(dir, ".git")
	st, err := os.Stat(gitDir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return "", err
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return "", fmt.Errorf("%s: not a gitdir file", gitDir)
		}
		gitDir = strings.TrimSpace(p)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(dir, gitDir)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	h := strings.TrimSpace(string(head))
	ref, isRef := strings.CutPrefix(h, "ref:")
	if !isRef {
		if !commitRE.MatchString(h) {
			return "", fmt.Errorf("%s/HEAD: %.50q is neither a ref nor a commit", gitDir, h)
		}
		return h, nil
	}
	ref = strings.TrimSpace(ref)
	// A worktree's refs live in the common folder.
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	for _, d := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			if c := strings.TrimSpace(string(b)); commitRE.MatchString(c) {
				return c, nil
			}
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return "", fmt.Errorf("ref %s of %s: %w", ref, gitDir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if c, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref && commitRE.MatchString(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("ref %s of %s not found", ref, gitDir)
}

// checkMIT reads the licence file of dir (LICENSE, LICENSE.md or
// LICENSE.txt) and fails unless it is the MIT licence, so that a relicensed
// upstream is not labelled MIT.
func checkMIT(dir string) error {
	for _, name := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read licence: %w", err)
		}
		if !strings.Contains(string(b), "MIT License") || !strings.Contains(string(b), "Permission is hereby granted, free of charge") {
			return corpus.BadInput("%s: not the MIT licence", filepath.Join(dir, name))
		}
		return nil
	}
	return corpus.BadInput("%s: no LICENSE file", dir)
}

// normalize turns \r\n and a lone \r into \n and ends s with one newline.
func normalize(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.TrimRight(s, "\n") + "\n"
}
