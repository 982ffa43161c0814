package thealgorithms

import (
	"regexp"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/convert"
)

// TestEmbeddedTasks: the shipped file is what `tasks convert --from
// thealgorithms` writes: unique ids thealgorithms_<path>_<function> in
// order, the split of the id's hash written out, source, licence and an
// origin at Commit on every task; the entry point defined by the reference,
// which keeps no doctest example and no main block; test files of plain
// pytest functions that import the reference from solution.
func TestEmbeddedTasks(t *testing.T) {
	tasks, err := Tasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 300 {
		t.Fatalf("%d tasks, want at least 300", len(tasks))
	}
	id := regexp.MustCompile(`^thealgorithms_[a-z0-9_]+$`)
	origin := regexp.MustCompile(`^` + regexp.QuoteMeta(Origin+"/blob/"+Commit+"/") + `([a-z0-9_]+)/[\w/.-]+\.py#L\d+$`)
	testFunc := regexp.MustCompile(`(?m)^def test_\d+\((capsys)?\):$`)
	prompt := regexp.MustCompile(`(?m)^\s*>>>`) // a doctest prompt (prose may say "a >>> b")
	splits := map[string]int{}
	seen := map[string]bool{}
	prev := ""
	for _, task := range tasks {
		if !id.MatchString(task.ID) || seen[task.ID] || task.ID <= prev {
			t.Fatalf("task id %q after %q (bad, repeated or out of order)", task.ID, prev)
		}
		seen[task.ID], prev = true, task.ID
		m := origin.FindStringSubmatch(task.Origin)
		if task.Split != corpus.SplitFor(task.ID) || task.Source != Name || task.License != "MIT" || m == nil || m[1] != task.Category {
			t.Errorf("%s: split %q source %q license %q category %q origin %q", task.ID, task.Split, task.Source, task.License, task.Category, task.Origin)
		}
		if !strings.HasPrefix(task.Test, "from solution import *\n") || len(testFunc.FindAllString(task.Test, -1)) == 0 {
			t.Errorf("%s: test file\n%s", task.ID, task.Test)
		}
		if prompt.MatchString(docstringOf(task.Solution, task.EntryPoint)) || strings.Contains(task.Solution, "__main__") {
			t.Errorf("%s: the reference keeps a doctest example or a main block:\n%s", task.ID, task.Solution)
		}
		if !regexp.MustCompile(`(?m)^def `+regexp.QuoteMeta(task.EntryPoint)+`\(`).MatchString(task.Solution) ||
			!strings.Contains(task.Question, "`"+task.EntryPoint+"`") {
			t.Errorf("%s: entry point %q not defined by the solution or named by the question", task.ID, task.EntryPoint)
		}
		if strings.Contains(task.Solution+task.Test+task.Question, "\r") {
			t.Errorf("%s: a carriage return is left", task.ID)
		}
		splits[task.Split]++
	}
	if splits[corpus.SplitVal] == 0 || splits[corpus.SplitTest] == 0 || splits[corpus.SplitTrain] < len(tasks)*7/10 {
		t.Errorf("splits %v: want about 80/10/10", splits)
	}
	if Name != convert.TheAlgorithmsSource || len(Commit) != 40 {
		t.Errorf("name %q commit %q", Name, Commit)
	}
}

// docstringOf returns the first triple-quoted string after `def name(` in
// src ("" if none).
func docstringOf(src, name string) string {
	_, after, ok := strings.Cut(src, "def "+name+"(")
	if !ok {
		return ""
	}
	for _, q := range []string{`"""`, "'''"} {
		if _, body, ok := strings.Cut(after, q); ok {
			doc, _, _ := strings.Cut(body, q)
			return doc
		}
	}
	return ""
}
