package main

import (
	"errors"
	"io/fs"
	"log/slog"

	"triage/corpus"
	"triage/corpus/bundled"
)

// loadTaskSpec loads tasks from a JSONL path, or the embedded set when spec
// is "bundled". Malformed lines are logged with file and line and skipped; a
// missing file, or a file with no valid task, is bad input (exit 2).
func loadTaskSpec(spec string) ([]corpus.Task, error) {
	tasks, bad, err := loadTaskSpecLines(spec)
	for _, b := range bad {
		slog.Warn("skipping malformed task line", "file", b.File, "line", b.Line, "err", b.Err)
	}
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, badInput("%s: no valid task (%d malformed lines)", spec, len(bad))
	}
	return tasks, nil
}

// loadTaskSpecLines is loadTaskSpec without logging, for commands that report
// malformed lines themselves.
func loadTaskSpecLines(spec string) ([]corpus.Task, []corpus.TaskLineError, error) {
	if spec == "" {
		return nil, nil, badInput("--tasks is required: a JSONL file or %q", bundled.Name)
	}
	if spec == bundled.Name {
		tasks, err := bundled.Tasks()
		return tasks, nil, err
	}
	tasks, bad, err := corpus.LoadTasks(spec)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil, &usageError{err}
	}
	return tasks, bad, err
}
