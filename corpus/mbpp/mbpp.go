// Package mbpp embeds MBPP (Austin et al. 2021, "Program Synthesis with
// Large Language Models"; CC-BY-4.0; mbpp/mbpp.jsonl of
// github.com/google-research/google-research) converted to the task format
// by `triage tasks convert --from mbpp` (convert.ConvertMBPP): the tasks whose
// reference passes the input checks, MBPP's own splits, source "mbpp".
// docs/tasks.md gives the command that remakes tasks.jsonl and the sha256 of
// the original file it was made from.
package mbpp

import (
	"bytes"
	_ "embed"

	"triage/corpus"
	"triage/corpus/convert"
)

//go:embed tasks.jsonl
var tasksJSONL []byte

// Name is the task-spec word that selects this set on the command line.
const Name = convert.MBPPSource

// Commit is the google-research commit whose mbpp/mbpp.jsonl the tasks
// come from.
const Commit = "2251e8c67a7fe7d6348714967ee101080b28e956"

// JSONL returns the embedded task file.
func JSONL() []byte { return bytes.Clone(tasksJSONL) }

// Tasks parses the embedded task file. A malformed line is an error here:
// the file ships with the binary and a test keeps it valid.
func Tasks() ([]corpus.Task, error) {
	return corpus.ReadEmbeddedTasks(tasksJSONL, "mbpp:tasks.jsonl")
}
