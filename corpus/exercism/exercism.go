// Package exercism embeds Exercism's Python track (github.com/exercism/python,
// MIT) converted to the task format by `triage tasks convert --from
// exercism` (convert.ConvertExercism): one task per practice exercise whose
// reference (.meta/example.py) passes the input checks against the
// exercise's tests, source "exercism", split by the hash of the task id,
// the upstream commit in every task's origin. docs/tasks.md gives the
// command that remakes tasks.jsonl and what was left out.
//
// Imports: corpus and corpus/convert.
package exercism

import (
	"bytes"
	_ "embed"

	"triage/corpus"
	"triage/corpus/convert"
)

//go:embed tasks.jsonl
var tasksJSONL []byte

// Name is the task-spec word that selects this set on the command line.
const Name = convert.ExercismSource

// Commit is the upstream commit the embedded tasks were converted from.
const Commit = "9eb657d4507d91efef99f484e7f2a1f4074911b5"

// Origin is the upstream repository.
const Origin = convert.ExercismRepo

// License is the upstream licence, recorded in every task.
const License = convert.License

// JSONL returns the embedded task file.
func JSONL() []byte { return bytes.Clone(tasksJSONL) }

// Tasks parses the embedded task file. A malformed line is an error here:
// the file ships with the binary and a test keeps it valid.
func Tasks() ([]corpus.Task, error) {
	return corpus.ReadEmbeddedTasks(tasksJSONL, "exercism:tasks.jsonl")
}
