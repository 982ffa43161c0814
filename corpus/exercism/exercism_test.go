package exercism

import (
	"regexp"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/convert"
)

// TestEmbeddedTasks: the shipped file is what `tasks convert --from
// exercism` writes: ids exercism_<slug> in slug order, unique, the split
// of the id's hash written out, source, licence and an origin at Commit on
// every task, test files that import the reference from solution.
func TestEmbeddedTasks(t *testing.T) {
	tasks, err := Tasks()
	if err != nil {
		t.Fatal(err)
	}
	// The track at Commit has 140 practice exercises.
	if len(tasks) < 100 || len(tasks) > 140 {
		t.Fatalf("%d tasks, want most of the track's 140 exercises", len(tasks))
	}
	id := regexp.MustCompile(`^exercism_[a-z0-9_]+$`)
	imports := regexp.MustCompile(`(?m)^\s*(from solution import|import solution as \w+$)`)
	splits := map[string]int{}
	seen := map[string]bool{}
	prev := ""
	for _, task := range tasks {
		if !id.MatchString(task.ID) || seen[task.ID] {
			t.Fatalf("task id %q (bad or repeated)", task.ID)
		}
		seen[task.ID] = true
		if task.ID <= prev {
			t.Errorf("%s after %s: not in slug order", task.ID, prev)
		}
		prev = task.ID
		slug := strings.TrimPrefix(task.ID, "exercism_")
		wantOrigin := Origin + "/tree/" + Commit + "/exercises/practice/" + strings.ReplaceAll(task.Category, "_", "-")
		if task.Split != corpus.SplitFor(task.ID) || task.Source != Name || task.License != "MIT" ||
			task.Origin != wantOrigin || strings.ReplaceAll(task.Category, "-", "_") != slug {
			t.Errorf("%s: split %q source %q license %q category %q origin %q", task.ID, task.Split, task.Source, task.License, task.Category, task.Origin)
		}
		if !imports.MatchString(task.Test) || !strings.Contains(task.Test, "unittest") {
			t.Errorf("%s: the test file does not import solution:\n%s", task.ID, task.Test)
		}
		if task.Question == "" || strings.Contains(task.Solution+task.Test+task.Question, "\r") {
			t.Errorf("%s: empty question or a carriage return", task.ID)
		}
		if task.EntryPoint == "" || !regexp.MustCompile(`(?m)^(def|class) `+regexp.QuoteMeta(task.EntryPoint)+`\b`).MatchString(task.Solution) {
			t.Errorf("%s: entry point %q not defined by the solution", task.ID, task.EntryPoint)
		}
		splits[task.Split]++
	}
	if splits[corpus.SplitVal] == 0 || splits[corpus.SplitTest] == 0 || splits[corpus.SplitTrain] < len(tasks)*6/10 {
		t.Errorf("splits %v: want about 80/10/10", splits)
	}
	if Name != convert.ExercismSource || len(Commit) != 40 {
		t.Errorf("name %q commit %q", Name, Commit)
	}
}
