package convert

import (
	"context"
	"os"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/limits"
)

const python = "/usr/bin/python3"

func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python + " to run extract.py")
	}
}

// TestTheAlgorithmsCandidates reads testdata/thealgorithms, a fake tree
// of modules with doctests, and checks each function's task or the reason
// it is left out: references cut to what they need, without examples or
// the main block; tests comparing values, floats within a tolerance, a
// multi-line want, exceptions with their message, printed output, state
// carried from one example to the next; examples and functions left out.
func TestTheAlgorithmsCandidates(t *testing.T) {
	needPython(t)
	fns, err := ExtractFunctions(context.Background(), python, "testdata/thealgorithms")
	if err != nil {
		t.Fatal(err)
	}
	cands, skipped := theAlgorithmsCandidates(fns, fakeCommit)
	byID := map[string]algoCandidate{}
	for _, c := range cands {
		byID[c.task.ID] = c
	}
	why := skipReasons(skipped)
	for _, c := range []struct {
		id      string
		reason  string
		test    []string // the test file holds these
		ref     []string // the reference holds these
		refNot  []string
		tests   int
		prompts string // in the question
	}{
		{id: "thealgorithms_maths_sample_scaled_square", tests: 2,
			test: []string{"def test_1():\n    assert scaled_square(3) == 18\n",
				"def test_2():\n    with pytest.raises(NegativeError) as _e:\n        scaled_square(-1)\n    assert str(_e.value) == \"x must be non-negative\"\n"},
			ref: []string{"from __future__ import annotations\n\nSCALE = 2\n\n\nclass NegativeError(ValueError):",
				"def _square(x: int) -> int:\n    return x * x\n", "def scaled_square(x: int) -> int:\n    \"\"\"\n    Return SCALE times the square of x.\n    \"\"\"\n    if x < 0:"},
			refNot:  []string{">>>", "Examples:", "import math", "typing", "__main__", "UNUSED"},
			prompts: "def scaled_square(x: int) -> int:\n    \"\"\"\n    Return SCALE times the square of x.\n    \"\"\"\n"},
		{id: "thealgorithms_maths_sample__square", tests: 1, test: []string{"from solution import _square\n", "assert _square(3) == 9"}},
		{id: "thealgorithms_maths_sample_hypot_list", tests: 3,
			test: []string{"import cmath\n", "def _close(got, want):",
				"    assert _close(hypot_list(2), (\n        [1.4142135623730951,\n         2.8284271247461903]\n    ))\n",
				"    assert hypot_list(0) == []\n", "    with pytest.raises(ValueError) as _e:\n        hypot_list(-1)\n    assert str(_e.value) == \"n must be >= 0\"\n"},
			ref: []string{"import math\n\n\ndef hypot_list("}},
		{id: "thealgorithms_maths_sample_hypot_list test_4", reason: "ELLIPSIS"},
		{id: "thealgorithms_maths_sample_hypot_list test_5", reason: "marked SKIP"},
		{id: "thealgorithms_maths_sample_counter", tests: 3,
			test: []string{"def test_2():\n    c = counter()\n    assert next(c) == 0\n",
				"def test_3():\n    c = counter()\n    next(c)\n    assert next(c) == 1\n",
				"def test_4():\n    c = counter()\n    next(c)\n    next(c)\n    assert str(next(c)) == \"2\"\n"}},
		{id: "thealgorithms_maths_sample_test_helper_name", reason: "defines a name pytest collects"},
		{id: "thealgorithms_maths_impure_roll", reason: "uses randomness: imports random"},
		{id: "thealgorithms_maths_impure_mean", reason: "outside the standard library: numpy"},
		{id: "thealgorithms_maths_impure_read_first", reason: "reads or writes files: uses open"},
		{id: "thealgorithms_maths_impure_one", reason: "escapes shift its lines"},
		{id: "thealgorithms_strings_printing_show_pair", tests: 2,
			test: []string{"def test_1(capsys):\n    assert _shown(capsys, show_pair(1, 2)) == \"1 2\\n3\\n\"\n",
				"assert _shown(capsys, show_pair(\"x\", \"y\")) == \"x y\\n'xy'\\n\""}},
		{id: "thealgorithms_strings_printing_stars", tests: 2,
			test: []string{"assert str(stars(3)) == \"***\"", "def test_3():\n    assert (stars(2) == \"**\") == True\n"}},
		{id: "thealgorithms_strings_printing_stars test_1", reason: "shows values"},
	} {
		cand, ok := byID[c.id]
		if !leftOutAsSaid(t, c.id, c.reason, why, ok) {
			continue
		}
		task := cand.task
		if len(cand.tests) != c.tests {
			t.Errorf("%s: %d tests, want %d:\n%s", c.id, len(cand.tests), c.tests, task.Test)
		}
		holds(t, c.id, "the test file", task.Test, c.test, nil)
		holds(t, c.id, "the reference", task.Solution, c.ref, c.refNot)
		if !strings.Contains(task.Question, c.prompts) {
			t.Errorf("%s: the question lacks %q:\n%s", c.id, c.prompts, task.Question)
		}
		path, _, _ := strings.Cut(strings.TrimPrefix(task.Origin, TheAlgorithmsRepo+"/blob/"+fakeCommit+"/"), "#L")
		if task.Source != TheAlgorithmsSource || task.License != License || task.Split != corpus.SplitFor(task.ID) ||
			!strings.HasPrefix(task.ID, "thealgorithms_"+strings.ReplaceAll(strings.TrimSuffix(path, ".py"), "/", "_")) ||
			task.Category != strings.Split(path, "/")[0] || task.EntryPoint == "" {
			t.Errorf("%s: source %q license %q split %q origin %q category %q entry %q", c.id, task.Source, task.License,
				task.Split, task.Origin, task.Category, task.EntryPoint)
		}
	}
	if len(cands) != 6 {
		t.Errorf("%d candidates, want 6: %v", len(cands), func() []string {
			var s []string
			for _, c := range cands {
				s = append(s, c.task.ID)
			}
			return s
		}())
	}
}

// TestConvertTheAlgorithms runs the whole conversion with a fake executor
// whose runs fail the test named in a program's comment: that test is left
// out of its task, a task that fails all of its tests is left out, and the
// rest keep every test. The output is the same for the same input.
func TestConvertTheAlgorithms(t *testing.T) {
	needPython(t)
	exec := corpus.ExecutorFunc(func(ctx context.Context, program, tests string) (corpus.Execution, error) {
		ex := fakeRun(program, tests, map[string]string{"show_pair": "fail"})
		if strings.Contains(program, "def counter(") {
			for i := range ex.Tests {
				if strings.HasSuffix(ex.Tests[i].Name, "::test_3") {
					ex.Tests[i].Passed, ex.PassRate = false, 0.5
				}
			}
		}
		return ex, nil
	})
	o := Options{Commit: fakeCommit, Workers: 2, Limits: limits.DefaultTimeLimits(), Python: python}
	tasks, rep, err := ConvertTheAlgorithms(context.Background(), exec, "testdata/thealgorithms", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(tasks), " "); got != "thealgorithms_maths_sample__square thealgorithms_maths_sample_counter "+
		"thealgorithms_maths_sample_hypot_list thealgorithms_maths_sample_scaled_square thealgorithms_strings_printing_stars" {
		t.Fatalf("kept %s", got)
	}
	for _, task := range tasks {
		if task.ID == "thealgorithms_maths_sample_counter" && (strings.Contains(task.Test, "def test_3(") || !strings.Contains(task.Test, "def test_4(")) {
			t.Errorf("counter's test_3 is not the one left out:\n%s", task.Test)
		}
	}
	if rep.Units != 11 || rep.Converted != 5 || rep.Tasks != 5 || rep.Reasons["tests: the reference fails every example's test"] != 1 ||
		rep.Reasons["tests: the reference fails the example's test"] != 3 {
		t.Errorf("report: units %d converted %d tasks %d reasons %v", rep.Units, rep.Converted, rep.Tasks, rep.Reasons)
	}
	again, _, err := ConvertTheAlgorithms(context.Background(), exec, "testdata/thealgorithms", o)
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	if err := corpus.WriteTasks(&a, tasks); err != nil {
		t.Fatal(err)
	}
	if err := corpus.WriteTasks(&b, again); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("two conversions of one tree differ")
	}
	if _, _, err := ConvertTheAlgorithms(context.Background(), exec, "testdata/exercism", o); err == nil {
		t.Error("a tree without DIRECTORY.md converted")
	}
}

func TestTheAlgorithmsTaskID(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"maths/factorial.py", "factorial"}:               "thealgorithms_maths_factorial_factorial",
		{"project_euler/problem_001/sol1.py", "solution"}: "thealgorithms_project_euler_problem_001_sol1_solution",
		{"Graphs/a-b.py", "Run"}:                          "thealgorithms_graphs_a_b_run",
	} {
		if got := TheAlgorithmsTaskID(in[0], in[1]); got != want {
			t.Errorf("%v: %q, want %q", in, got, want)
		}
	}
}
