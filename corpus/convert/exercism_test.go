package convert

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/limits"
)

const fakeCommit = "0123456789abcdef0123456789abcdef01234567"

// TestExercismTasks converts testdata/exercism, a fake track: each
// exercise's task, or the reason it is left out.
func TestExercismTasks(t *testing.T) {
	tasks, skipped, err := ExercismTasks("testdata/exercism", fakeCommit)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]corpus.Task{}
	for _, task := range tasks {
		byID[task.ID] = task
	}
	why := skipReasons(skipped)
	for _, c := range []struct {
		id     string
		reason string   // left out with a reason that holds this
		has    []string // else: the test file holds these
		hasNot []string
		entry  string
	}{
		{id: "exercism_leap", entry: "leap_year",
			has:    []string{"from solution import (\n    leap_year,\n)", "def test_year_divisible_by_400"},
			hasNot: []string{"test_far_future", "unittest.skip", "from leap"}},
		{id: "exercism_leap test_far_future", reason: "test marked skip upstream"},
		{id: "exercism_tally", entry: "score",
			has: []string{"import solution as tally\n", "tally.score([1, 1, 2], tally.ONES)", `"tally", "tal" + "ly"`}},
		{id: "exercism_reader", entry: "first_line",
			has: []string{"from solution import first_line", "# test_helpers.py, inlined:\nimport io\n\n\ndef fake_open(",
				`mock.patch("solution.open"`},
			hasNot: []string{"from test_helpers import"}},
		{id: "exercism_dice", reason: "uses randomness: imports random"},
		{id: "exercism_gui", reason: "needs more files: editor"},
		{id: "exercism_shapes", reason: "helper module in a way not inlined: fixtures"},
	} {
		task, ok := byID[c.id]
		if !leftOutAsSaid(t, c.id, c.reason, why, ok) {
			continue
		}
		holds(t, c.id, "the test file", task.Test, c.has, c.hasNot)
		slug := strings.ReplaceAll(strings.TrimPrefix(c.id, "exercism_"), "_", "-")
		if task.EntryPoint != c.entry || task.Source != ExercismSource || task.License != License || task.Category != slug ||
			task.Split != corpus.SplitFor(task.ID) || task.Origin != ExercismRepo+"/tree/"+fakeCommit+"/exercises/practice/"+slug {
			t.Errorf("%s: entry %q source %q license %q category %q split %q origin %q", c.id, task.EntryPoint,
				task.Source, task.License, task.Category, task.Split, task.Origin)
		}
	}
	if len(tasks) != 3 {
		t.Errorf("%d tasks, want leap, reader and tally", len(tasks))
	}
	leap := byID["exercism_leap"]
	if leap.Question != "# Instructions\n\nGiven a year, report if it is a leap year.\n\n# Instructions append\n\nReturn a bool.\n" {
		t.Errorf("leap's question (instructions and their append, line ends normalised): %q", leap.Question)
	}
}

// TestConvertExercism runs the whole conversion with a fake executor: a
// reference that fails is left out for it, one much slower than the others
// as slow, and the report counts what it read.
func TestConvertExercism(t *testing.T) {
	exec := corpus.ExecutorFunc(func(ctx context.Context, program, tests string) (corpus.Execution, error) {
		return fakeRun(program, tests, map[string]string{"score": "fail", "leap_year": "slow"}), nil
	})
	tasks, rep, err := ConvertExercism(context.Background(), exec, "testdata/exercism", Options{Commit: fakeCommit, Workers: 2,
		Limits: limits.DefaultTimeLimits(), SlowFactor: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != "exercism_reader" {
		t.Fatalf("kept %v, want exercism_reader alone", ids(tasks))
	}
	if rep.Units != 6 || rep.Converted != 3 || rep.Tasks != 1 || rep.Commit != fakeCommit ||
		rep.Reasons["validate: reference fails (tests fail)"] != 1 || rep.Reasons["slow: reference above 3× the median"] != 1 ||
		rep.Reasons["convert: uses randomness"] != 1 {
		t.Errorf("report %+v", rep)
	}
	if _, _, err := ConvertExercism(context.Background(), exec, "testdata/exercism", Options{}); err == nil {
		t.Error("no .git and no --commit: no error")
	}
}

var testFuncRE = regexp.MustCompile(`(?m)^\s*def (test_\w+)\(`)

// fakeRun passes every test function of tests, except that a program
// defining a function named in outcome fails its tests ("fail") or runs
// a hundred times slower than the others ("slow").
func fakeRun(program, tests string, outcome map[string]string) corpus.Execution {
	ex := corpus.Execution{Status: corpus.StatusOK, PassRate: 1, CPUMS: 10, ProgramCPUMS: 1}
	pass := true
	for name, o := range outcome {
		if strings.Contains(program, "def "+name+"(") {
			switch o {
			case "fail":
				pass = false
			case "slow":
				ex.CPUMS = 1000
			}
		}
	}
	for _, m := range testFuncRE.FindAllStringSubmatch(tests, -1) {
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: "test_solution.py::" + m[1], Passed: pass})
	}
	if !pass {
		ex.PassRate, ex.FailedFrac = 0, 1
	}
	return ex
}

func ids(tasks []corpus.Task) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.ID)
	}
	return out
}

func TestDropSkippedTests(t *testing.T) {
	in := "class T(unittest.TestCase):\n    def test_a(self):\n        pass\n\n    @unittest.skip(\"x\")\n    @other\n    def test_b(self):\n        x = 1\n\n        y = 2\n\n    def test_c(self):\n        pass\n"
	got, names := dropSkippedTests(in)
	want := "class T(unittest.TestCase):\n    def test_a(self):\n        pass\n\n    def test_c(self):\n        pass\n"
	if got != want || len(names) != 1 || names[0] != "test_b" {
		t.Errorf("got %q %v", got, names)
	}
	if got, names := dropSkippedTests("@unittest.skipIf(True, 'x')\ndef test_a():\n    pass\n"); len(names) != 0 || !strings.Contains(got, "test_a") {
		t.Errorf("skipIf is not always a skip: %q %v", got, names)
	}
}

// skipReasons maps each unit left out ("id" or "id test") to its reason
// and detail.
func skipReasons(skipped []Skipped) map[string]string {
	why := map[string]string{}
	for _, s := range skipped {
		key := s.ID
		if s.Test != "" {
			key += " " + s.Test
		}
		why[key] = s.Reason + ": " + s.Detail
	}
	return why
}

// leftOutAsSaid checks that id was left out for reason (when reason is
// set) or made a task (found), and reports whether to go on checking the
// task.
func leftOutAsSaid(t *testing.T, id, reason string, why map[string]string, found bool) bool {
	t.Helper()
	switch {
	case reason != "":
		if !strings.Contains(why[id], reason) {
			t.Errorf("%s: left out for %q, want %q", id, why[id], reason)
		}
		return false
	case !found:
		t.Errorf("%s: no task (%s)", id, why[id])
		return false
	}
	return true
}

// holds checks that text (what, of task id) holds every string of has and
// none of hasNot.
func holds(t *testing.T, id, what, text string, has, hasNot []string) {
	t.Helper()
	for _, s := range has {
		if !strings.Contains(text, s) {
			t.Errorf("%s: %s lacks %q:\n%s", id, what, s, text)
		}
	}
	for _, s := range hasNot {
		if strings.Contains(text, s) {
			t.Errorf("%s: %s keeps %q:\n%s", id, what, s, text)
		}
	}
}
