// Package taskset resolves the --tasks of every command that reads tasks:
// a JSONL file, or a task set embedded in the binary by its name
// ("bundled", "mbpp", "exercism", "thealgorithms"), and describes the
// embedded sets (Sources).
//
// Imports: corpus and its subpackages bundled, mbpp, exercism and
// thealgorithms.
package taskset

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/convert"
	"triage/corpus/exercism"
	"triage/corpus/mbpp"
	"triage/corpus/thealgorithms"
)

// Source describes a task set embedded in the binary.
type Source struct {
	// Name is the word that selects it in place of a task file.
	Name string
	// License is the licence of its tasks; Commit the upstream commit they
	// were converted from; Origin where upstream they come from. The
	// bundled set is this repository's own: its Commit and License say
	// so.
	License, Commit, Origin string
	// Load parses its tasks.
	Load func() ([]corpus.Task, error)
}

// ThisRepository is the commit and licence of the bundled set, written here.
const ThisRepository = "this repository"

// Sources are the embedded task sets, in the order `tasks sources` lists
// them.
func Sources() []Source {
	return []Source{
		{Name: bundled.Name, License: ThisRepository, Commit: ThisRepository, Origin: "corpus/bundled/src", Load: bundled.Tasks},
		{Name: mbpp.Name, License: convert.MBPPLicense, Commit: mbpp.Commit, Origin: convert.MBPPOrigin, Load: mbpp.Tasks},
		{Name: exercism.Name, License: exercism.License, Commit: exercism.Commit, Origin: exercism.Origin, Load: exercism.Tasks},
		{Name: thealgorithms.Name, License: thealgorithms.License, Commit: thealgorithms.Commit, Origin: thealgorithms.Origin, Load: thealgorithms.Tasks},
	}
}

// builtin are the task sets embedded in the binary, by the word
// that names them in place of a file.
var builtin = func() map[string]func() ([]corpus.Task, error) {
	m := map[string]func() ([]corpus.Task, error){}
	for _, s := range Sources() {
		m[s.Name] = s.Load
	}
	return m
}()

// Load loads tasks from a JSONL path, or an embedded set when spec
// names one (Sources). Malformed lines are logged with file and line; unless
// skipBadLines, a file with one is bad input naming the first (and the
// option SkipBadLines). A missing file, or a file with no valid task, is
// bad input too.
func Load(spec string, skipBadLines bool) ([]corpus.Task, error) {
	tasks, bad, err := LoadLines(spec)
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		slog.Warn("malformed task line", "file", b.File, "line", b.Line, "err", b.Err)
	}
	if len(bad) > 0 && !skipBadLines {
		more := ""
		if len(bad) > 1 {
			more = fmt.Sprintf(" (and %d more malformed lines)", len(bad)-1)
		}
		return nil, corpus.Invalid("%v%s; fix the file or pass {SkipBadLines}", bad[0], more)
	}
	if len(tasks) == 0 && len(bad) == 0 {
		return nil, corpus.BadInput("%s: no task", spec)
	}
	if len(tasks) == 0 {
		return nil, corpus.BadInput("%s: no valid task (%d malformed lines)", spec, len(bad))
	}
	return tasks, nil
}

// SamePath reports whether paths a and b name one file: equal absolute
// paths, or the same file on disk (links).
func SamePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ba, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ba {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// LoadLines is Load without logging, for commands that report
// malformed lines themselves.
func LoadLines(spec string) ([]corpus.Task, []corpus.TaskLineError, error) {
	if spec == "" {
		return nil, nil, corpus.Invalid("{Tasks} is required: a JSONL file or an embedded set (%s)", strings.Join(Names(), ", "))
	}
	if load, ok := builtin[spec]; ok {
		tasks, err := load()
		return tasks, nil, err
	}
	tasks, bad, err := corpus.LoadTasks(spec)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil, &corpus.InputError{Err: err}
	}
	return tasks, bad, err
}

// Names are the names of the embedded task sets.
func Names() []string {
	var out []string
	for _, s := range Sources() {
		out = append(out, s.Name)
	}
	return out
}

// Builtin reports whether spec names an embedded task set.
func Builtin(spec string) bool {
	_, ok := builtin[spec]
	return ok
}
