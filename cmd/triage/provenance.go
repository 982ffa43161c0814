package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
)

// buildCommit and buildModified are set by the Makefile's -ldflags
// (-X main.buildCommit=... -X main.buildModified=true|false) for builds that
// carry no VCS stamp (GOFLAGS=-buildvcs=false, a worktree Go cannot read).
var buildCommit, buildModified string

// revision is the commit a binary was built from, for checkpoints.
type revision struct {
	Commit   string // full hash, or "unknown"
	Modified string // "true" when built with uncommitted changes, "false", or "" when unknown
	From     string // where Commit came from: buildinfo, ldflags, git (the working directory) or none
}

// currentRevision reads the commit from the build info, else from the
// linker flags, else from git in the working directory (`make checkpoint`
// trains in the checkout it builds), else says it is unknown.
func currentRevision() revision {
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	return revisionOf(settings, buildCommit, buildModified, gitRevision)
}

func revisionOf(settings []debug.BuildSetting, ldCommit, ldModified string, git func() (string, string, error)) revision {
	var r revision
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			r.Commit = s.Value
		case "vcs.modified":
			r.Modified = s.Value
		}
	}
	if r.Commit != "" {
		r.From = "buildinfo"
		return r
	}
	if ldCommit != "" {
		return revision{Commit: ldCommit, Modified: ldModified, From: "ldflags"}
	}
	if git != nil {
		if c, m, err := git(); err == nil && c != "" {
			return revision{Commit: c, Modified: m, From: "git"}
		}
	}
	return revision{Commit: "unknown", From: "none"}
}

// gitRevision is HEAD of the working directory's checkout and whether
// tracked files differ from it.
func gitRevision() (string, string, error) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", "", err
	}
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return strings.TrimSpace(string(head)), "", nil
	}
	mod := "false"
	if len(strings.TrimSpace(string(st))) > 0 {
		mod = "true"
	}
	return strings.TrimSpace(string(head)), mod, nil
}
