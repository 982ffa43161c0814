package bundled

import (
	"bytes"
	"regexp"
	"testing"

	"triage/corpus"
)

// TestEmbeddedMatchesSource keeps tasks.jsonl in sync with src/: run
// `go generate ./corpus/bundled` after editing a task.
func TestEmbeddedMatchesSource(t *testing.T) {
	embedded, err := Tasks()
	if err != nil {
		t.Fatal(err)
	}
	splits := map[string]string{}
	for _, task := range embedded {
		splits[task.ID] = task.Split
	}
	fromSrc, err := Assemble("src", splits)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := corpus.WriteTasks(&want, fromSrc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), JSONL()) {
		t.Fatal("tasks.jsonl is stale: run `go generate ./corpus/bundled`")
	}
}

func TestTaskSetShape(t *testing.T) {
	tasks, err := Tasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 120 {
		t.Errorf("%d tasks, want at least 120", len(tasks))
	}
	splits := map[string]int{}
	cats := map[string]int{}
	importLine := regexp.MustCompile(`(?m)^from solution import `)
	for _, task := range tasks {
		splits[task.Split]++
		cats[task.Category]++
		if task.Question == "" || task.EntryPoint == "" || task.Category == "" {
			t.Errorf("task %s: question, entry_point and category are required", task.ID)
		}
		if !importLine.MatchString(task.Test) {
			t.Errorf("task %s: test file does not import from solution", task.ID)
		}
	}
	n := float64(len(tasks))
	for split, lo := range map[string]float64{corpus.SplitTrain: 0.7, corpus.SplitVal: 0.07, corpus.SplitTest: 0.07} {
		if float64(splits[split]) < lo*n {
			t.Errorf("split %s has %d of %d tasks", split, splits[split], len(tasks))
		}
	}
	if len(cats) < 10 {
		t.Errorf("%d categories, want the 10 of the issue: %v", len(cats), cats)
	}
}
