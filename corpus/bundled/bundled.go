// Package bundled embeds triage's own task set: Python repair tasks written by
// the triage team (not taken from any dataset), each a question, a reference
// solution and a pytest file, with fixed train/val/test splits. The authoring
// source is src/<task_id>/{question.md,solution.py,test_solution.py,meta.json};
// `go generate ./corpus/bundled` assembles it into tasks.jsonl.
//
// Imports: corpus only.
package bundled

//go:generate go run ./gen -src src -out tasks.jsonl

import (
	"bytes"
	_ "embed"

	"triage/corpus"
)

//go:embed tasks.jsonl
var tasksJSONL []byte

// Name is the task-spec word that selects this set on the command line.
const Name = "bundled"

// JSONL returns the embedded task file.
func JSONL() []byte { return bytes.Clone(tasksJSONL) }

// Tasks parses the embedded task file; each task's source is Name. A
// malformed line is an error here: the file ships with the binary and a
// test keeps it valid.
func Tasks() ([]corpus.Task, error) {
	tasks, err := corpus.ReadEmbeddedTasks(tasksJSONL, "bundled:tasks.jsonl")
	if err != nil {
		return nil, err
	}
	for i := range tasks {
		tasks[i].Source = Name
	}
	return tasks, nil
}
