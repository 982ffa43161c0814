package mbpp

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/convert"
)

// TestEmbeddedTasks: the shipped file is what `tasks convert --from mbpp`
// writes: MBPP ids in order, MBPP's splits, source and licence on every
// task, test files of one function per assert that import from solution.
func TestEmbeddedTasks(t *testing.T) {
	tasks, err := Tasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 900 || len(tasks) > 974 {
		t.Fatalf("%d tasks, want most of MBPP's 974", len(tasks))
	}
	id := regexp.MustCompile(`^mbpp_(\d{3})$`)
	testFunc := regexp.MustCompile(`(?m)^def (test_\d+|test_challenge_\d+)\(\):\n    assert `)
	splits := map[string]int{}
	prev := 0
	for _, task := range tasks {
		m := id.FindStringSubmatch(task.ID)
		if m == nil {
			t.Fatalf("task id %q", task.ID)
		}
		n, _ := strconv.Atoi(m[1])
		if n <= prev {
			t.Errorf("%s after mbpp_%03d: not in MBPP's order", task.ID, prev)
		}
		prev = n
		if task.Split != convert.MBPPSplit(n) || task.Source != Name || task.License != convert.MBPPLicense {
			t.Errorf("%s: split %q source %q license %q", task.ID, task.Split, task.Source, task.License)
		}
		if !strings.HasPrefix(task.Test, "from solution import *\n") || len(testFunc.FindAllString(task.Test, -1)) < 3 {
			t.Errorf("%s: test file\n%s", task.ID, task.Test)
		}
		if strings.Contains(task.Solution+task.Test+task.Question, "\r") {
			t.Errorf("%s: a carriage return is left", task.ID)
		}
		if task.EntryPoint == "" || !strings.Contains(task.Solution, "def "+task.EntryPoint) {
			t.Errorf("%s: entry point %q not defined by the solution", task.ID, task.EntryPoint)
		}
		splits[task.Split]++
	}
	// MBPP's splits hold 384 train (10 prompt + 374), 90 val and 500 test tasks.
	for split, all := range map[string]int{corpus.SplitTrain: 384, corpus.SplitVal: 90, corpus.SplitTest: 500} {
		if splits[split] > all || splits[split] < all*9/10 {
			t.Errorf("split %s: %d of MBPP's %d tasks", split, splits[split], all)
		}
	}
}
