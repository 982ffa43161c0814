package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/taskset"
)

// TestReadmeTaskCounts: the README's count of bundled tasks and its
// train/val/test split sizes are those of the embedded set.
func TestReadmeTaskCounts(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	splits := map[string]int{}
	for _, tk := range tasks {
		sp := tk.Split
		if sp == "" {
			sp = corpus.SplitFor(tk.ID)
		}
		splits[sp]++
	}
	total := regexp.MustCompile("The embedded set \\(`--tasks bundled`\\) has (\\d+) tasks").FindSubmatch(readme)
	split := regexp.MustCompile(`splits (\d+)/(\d+)/(\d+) \(train/val/test\)`).FindSubmatch(readme)
	if total == nil || split == nil {
		t.Fatal("README: no sentence with the bundled task count and splits")
	}
	want := []int{len(tasks), splits[corpus.SplitTrain], splits[corpus.SplitVal], splits[corpus.SplitTest]}
	for i, m := range [][]byte{total[1], split[1], split[2], split[3]} {
		if n, _ := strconv.Atoi(string(m)); n != want[i] {
			t.Errorf("README says %s where the bundled set has %d (tasks, train, val, test: %v)", m, want[i], want)
		}
	}
}

// TestDocsTaskSetsTable: docs/tasks.md's table of embedded sets has a row
// per set with its task count and splits as the binary holds them.
func TestDocsTaskSetsTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tasks.md")
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) int {
		n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		return n
	}
	for _, s := range taskset.Sources() {
		tasks, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		splits := map[string]int{}
		for _, tk := range tasks {
			splits[tk.Split]++
		}
		m := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(s.Name) + "` \\| ([\\d,]+) \\| ([\\d,]+)/([\\d,]+)/([\\d,]+)").FindStringSubmatch(string(doc))
		if m == nil {
			t.Errorf("docs/tasks.md: no row for %s", s.Name)
			continue
		}
		if num(m[1]) != len(tasks) || num(m[2]) != splits[corpus.SplitTrain] || num(m[3]) != splits[corpus.SplitVal] || num(m[4]) != splits[corpus.SplitTest] {
			t.Errorf("docs/tasks.md says %s for %s; the set has %d tasks, %v", m[0], s.Name, len(tasks), splits)
		}
	}
}
