// Package thealgorithms embeds TheAlgorithms/Python
// (github.com/TheAlgorithms/Python, MIT) converted to the task format by
// `triage tasks convert --from thealgorithms` (convert.ConvertTheAlgorithms):
// one task per module-level function with doctests that needs only Python's
// standard library and nothing of the outside world, its doctest examples
// as pytest tests that compare values, the tasks whose reference passes
// the input checks; source "thealgorithms", split by the hash of the task
// id, the upstream commit in every task's origin. docs/tasks.md gives the
// command that remakes tasks.jsonl and what was left out.
//
// Imports: corpus and corpus/convert.
package thealgorithms

import (
	"bytes"
	_ "embed"

	"triage/corpus"
	"triage/corpus/convert"
)

//go:embed tasks.jsonl
var tasksJSONL []byte

// Name is the task-spec word that selects this set on the command line.
const Name = convert.TheAlgorithmsSource

// Commit is the upstream commit the embedded tasks were converted from.
const Commit = "f5988cc09713315817df6a7e327e258013a94440"

// Origin is the upstream repository.
const Origin = convert.TheAlgorithmsRepo

// License is the upstream licence, recorded in every task.
const License = convert.License

// JSONL returns the embedded task file.
func JSONL() []byte { return bytes.Clone(tasksJSONL) }

// Tasks parses the embedded task file. A malformed line is an error here:
// the file ships with the binary and a test keeps it valid.
func Tasks() ([]corpus.Task, error) {
	return corpus.ReadEmbeddedTasks(tasksJSONL, "thealgorithms:tasks.jsonl")
}
