package train

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/backends"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/model"
)

// Setup is a training command's setup (`triage train`, `triage cv`): the
// corpus folders, the output folder, the options and the backend.
type Setup struct {
	Corpus  []string
	Out     string
	Backend string
	Options Options
}

// Open checks s (the corpus folders hold shards, Out is given, the
// options are valid, the architecture and base model load, the backend is
// known) and opens the backend. It returns the corpus folders; every
// problem with s is bad input naming its field (corpus.Invalid).
func (s *Setup) Open() ([]string, backends.Backend, error) {
	if len(s.Corpus) == 0 {
		return nil, nil, corpus.Invalid("{Corpus} is required")
	}
	if s.Out == "" {
		return nil, nil, corpus.Invalid("{Out} is required")
	}
	var dirs []string
	for _, d := range s.Corpus {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if err := shard.CheckDirs([]string{d}); err != nil {
			return nil, nil, err
		}
		if files, _ := shard.ListShards(d); len(files) == 0 {
			return nil, nil, corpus.Invalid("{Corpus} %s: no corpus shards (part-*.parquet)", d)
		}
		dirs = append(dirs, d)
	}
	o := &s.Options
	if o.Steps == 0 && o.Epochs <= 0 {
		return nil, nil, corpus.Invalid("{Options.Epochs} must be > 0 (or give {Options.Steps})")
	}
	if err := o.Validate(); err != nil {
		return nil, nil, &corpus.InputError{Err: err}
	}
	if o.Arch != "small" && o.Arch != "0.6b" {
		if _, err := model.LoadConfig(o.Arch); err != nil {
			return nil, nil, corpus.Invalid("{Options.Arch} %s: want small, 0.6b or a Qwen3 config.json (%v)", o.Arch, err)
		}
	}
	if o.Base != "" {
		if _, err := os.Stat(filepath.Join(o.Base, "config.json")); err != nil {
			return nil, nil, corpus.Invalid("{Options.Base} %s: not a Hugging Face model folder: %v", o.Base, err)
		}
	}
	if _, err := model.BackendConfig(s.Backend); err != nil {
		return nil, nil, corpus.BadInput("%v", err)
	}
	be, err := model.NewBackend(s.Backend)
	if err != nil {
		return nil, nil, err
	}
	return dirs, be, nil
}

// RunConfig is one `triage train`: the setup, whether to resume the run in
// Setup.Out, whether to replay the best checkpoint on the test split, and
// what the checkpoint records (Versions, Command).
type RunConfig struct {
	Setup
	Resume, RecordTest bool
	// Progress shows a progress bar on stderr.
	Progress bool
	Versions map[string]string
	Command  string
}

// RunCommand opens c's setup, trains on the train split of its folders,
// validates on their val split (and records the test split's E[T] with
// RecordTest), and returns the run. An output folder that holds another
// run, or a resume that does not match it, is bad input.
func RunCommand(ctx context.Context, c RunConfig) (*Run, error) {
	dirs, be, err := c.Open()
	if err != nil {
		return nil, err
	}
	defer be.Finalize()
	sources, err := RecordSources(dirs)
	if err != nil {
		return nil, err
	}
	env := Env{
		Train:   ShardSource{Dirs: dirs, Split: corpus.SplitTrain},
		Val:     ShardSource{Dirs: dirs, Split: corpus.SplitVal},
		Backend: be, Out: c.Out, Resume: c.Resume, Sources: sources,
		Versions: c.Versions, BuildQwen3: BuildQwen3, Command: c.Command,
	}
	if c.RecordTest {
		env.Test = ShardSource{Dirs: dirs, Split: corpus.SplitTest}
	}
	rep := NewReporter(c.Progress)
	env.Progress = rep.Update
	run, err := Train(ctx, c.Options, env)
	rep.Finish()
	if err != nil {
		if strings.Contains(err.Error(), "already holds") || strings.Contains(err.Error(), "options differ") ||
			strings.Contains(err.Error(), "no interrupted run") {
			return nil, &corpus.InputError{Err: err}
		}
		return nil, err
	}
	return run, nil
}

// CommandLine is a command line for the record: "triage" and args, each
// argument with a space or a quote quoted.
func CommandLine(args []string) string {
	args = append([]string{"triage"}, args...)
	for i, a := range args {
		if strings.ContainsAny(a, " \t\"'") {
			args[i] = strconv.Quote(a)
		}
	}
	return strings.Join(args, " ")
}

// Versions are the versions a checkpoint records: Go, triage, GoMLX and
// the commit the binary was built from (see CurrentRevision; ldCommit and
// ldModified are the linker's stamp).
func Versions(ldCommit, ldModified string) map[string]string {
	v := map[string]string{}
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
		v["go"] = bi.GoVersion
		v["triage"] = bi.Main.Version
		for _, dep := range bi.Deps {
			if dep.Path == "github.com/gomlx/gomlx" {
				v["gomlx"] = dep.Version
			}
		}
	}
	r := revisionOf(settings, ldCommit, ldModified, gitRevision)
	v["triage_revision"], v["triage_revision_from"] = r.Commit, r.From
	if r.Modified != "" {
		v["triage_modified"] = r.Modified
	}
	return v
}

// revision is the commit a binary was built from, for checkpoints.
type revision struct {
	Commit   string // full hash, or "unknown"
	Modified string // "true" when built with uncommitted changes, "false", or "" when unknown
	From     string // where Commit came from: buildinfo, ldflags, git (the working directory) or none
}

// revisionOf reads the commit from the build info, else from the linker
// flags (builds without a VCS stamp: GOFLAGS=-buildvcs=false, a worktree
// Go cannot read), else from git in the working directory (`make
// checkpoint` trains in the checkout it builds), else says it is unknown.
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
