package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"triage/corpus"
	"triage/corpus/bundled"
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
