package convert

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/limits"
)

func readMBPPSample(t testing.TB) []MBPPProblem {
	t.Helper()
	b, err := os.ReadFile("testdata/mbpp-sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadMBPP(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestReadMBPPSample(t *testing.T) {
	ps := readMBPPSample(t)
	if len(ps) != 9 {
		t.Fatalf("%d problems, want 9", len(ps))
	}
	byID := map[int]*MBPPProblem{}
	for i := range ps {
		p := &ps[i]
		byID[p.ID] = p
		for _, s := range append([]string{p.Text, p.Code, p.Setup}, append(p.Tests, p.Challenges...)...) {
			if strings.Contains(s, "\r") {
				t.Errorf("task %d: a carriage return is left: %q", p.ID, s)
			}
		}
	}
	want := []struct {
		id                 int
		entry, split       string
		tests, challenges  int
		solutionHas, setup string
	}{
		{1, "min_cost", corpus.SplitTrain, 3, 0, "\treturn tc[m][n]", ""},
		{6, "differ_At_One_Bit_Pos", corpus.SplitTrain, 3, 0, "def is_Power_Of_Two", ""},
		{11, "remove_Occ", corpus.SplitTest, 3, 2, "return s", ""},
		{20, "is_woodall", corpus.SplitTest, 3, 3, "x = x/2", ""},
		{104, "sort_sublists", corpus.SplitTest, 3, 0, "return result\n", ""},
		{367, "is_tree_balanced", corpus.SplitTest, 3, 0, "class Node", "root = Node(1)"},
		{596, "tuple_size", corpus.SplitVal, 3, 0, "sys.getsizeof", ""},
		{847, "lcopy", corpus.SplitTrain, 3, 0, "return xs[:]", ""},
	}
	for _, w := range want {
		p := byID[w.id]
		if p == nil {
			t.Fatalf("task %d missing", w.id)
		}
		task := p.Task(nil)
		if got := p.EntryPoint(); got != w.entry {
			t.Errorf("task %d: entry point %q, want %q", w.id, got, w.entry)
		}
		if task.ID != MBPPTaskID(w.id) || task.Split != w.split || task.Source != MBPPSource || task.License != MBPPLicense {
			t.Errorf("task %d: id %q split %q source %q license %q", w.id, task.ID, task.Split, task.Source, task.License)
		}
		if len(p.Tests) != w.tests || len(p.Challenges) != w.challenges {
			t.Errorf("task %d: %d tests %d challenges, want %d %d", w.id, len(p.Tests), len(p.Challenges), w.tests, w.challenges)
		}
		if !strings.Contains(task.Solution, w.solutionHas) || !strings.HasSuffix(task.Solution, "\n") {
			t.Errorf("task %d: solution %q lacks %q or a final newline", w.id, task.Solution, w.solutionHas)
		}
		if w.setup != "" && !strings.Contains(task.Test, "\n"+w.setup) {
			t.Errorf("task %d: setup code not in the test file:\n%s", w.id, task.Test)
		}
		if n := strings.Count(task.Test, "\ndef test_"); n != w.tests {
			t.Errorf("task %d: %d test functions without challenges, want %d", w.id, n, w.tests)
		}
		if !strings.Contains(task.Question, p.Text) || !strings.Contains(task.Question, p.Tests[0]) {
			t.Errorf("task %d: question %q lacks the text or the first assert", w.id, task.Question)
		}
	}
	// The test file of task 1, whole.
	wantTest := "from solution import *\n\n\n" +
		"def test_1():\n    assert min_cost([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2) == 8\n\n\n" +
		"def test_2():\n    assert min_cost([[2, 3, 4], [5, 9, 3], [2, 6, 4]], 2, 2) == 12\n\n\n" +
		"def test_3():\n    assert min_cost([[3, 4, 5], [6, 10, 4], [3, 7, 5]], 2, 2) == 16\n"
	if got := byID[1].Task(nil).Test; got != wantTest {
		t.Errorf("task 1 test file:\n%s\nwant:\n%s", got, wantTest)
	}
	// Chosen challenge asserts keep MBPP's numbering.
	if got := byID[20].Task([]int{0, 2}).Test; !strings.Contains(got, "def test_challenge_1():") ||
		strings.Contains(got, "test_challenge_2") || !strings.Contains(got, "def test_challenge_3():\n    assert is_woodall(159) == True\n") {
		t.Errorf("task 20 with challenges 1 and 3:\n%s", got)
	}
}

func TestReadMBPPErrors(t *testing.T) {
	good := `{"text": "t", "code": "def f(): return 1", "task_id": 3, "test_setup_code": "", "test_list": ["assert f() == 1"], "challenge_test_list": []}`
	tests := []struct {
		name, in, want string
	}{
		{"bad JSON", good + "\n{oops\n", "mbpp line 2: bad JSON"},
		{"no task id", `{"text": "t", "code": "c", "test_list": ["assert 1"]}`, "line 1: no task_id"},
		{"id out of range", strings.Replace(good, `"task_id": 3`, `"task_id": 975`, 1), "outside MBPP's 1–974"},
		{"id zero", strings.Replace(good, `"task_id": 3`, `"task_id": 0`, 1), "outside"},
		{"duplicate", good + "\n\n" + good, "mbpp line 3: duplicate task_id 3 (first on line 1)"},
		{"empty code", strings.Replace(good, `"def f(): return 1"`, `" "`, 1), "task 3: no code"},
		{"no tests", strings.Replace(good, `["assert f() == 1"]`, `[]`, 1), "no test_list"},
		{"not an assert", strings.Replace(good, `"assert f() == 1"`, `"print(1)"`, 1), "test_list[0] is not an assert"},
		{"bad challenge", strings.Replace(good, `"challenge_test_list": []`, `"challenge_test_list": [""]`, 1), "challenge_test_list[0] is not an assert"},
		{"two values", good + " {}", "more than one value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadMBPP(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if ps, err := ReadMBPP(strings.NewReader(good + "\r\n\n")); err != nil || len(ps) != 1 {
		t.Errorf("good line: %v, %v", ps, err)
	}
}

func TestMBPPSplit(t *testing.T) {
	for id, want := range map[int]string{0: "", 1: corpus.SplitTrain, 10: corpus.SplitTrain, 11: corpus.SplitTest, 510: corpus.SplitTest,
		511: corpus.SplitVal, 600: corpus.SplitVal, 601: corpus.SplitTrain, 974: corpus.SplitTrain, 975: "", -3: ""} {
		if got := MBPPSplit(id); got != want {
			t.Errorf("MBPPSplit(%d) = %q, want %q", id, got, want)
		}
	}
}

func TestEntryPointChoice(t *testing.T) {
	tests := []struct {
		code  string
		tests []string
		want  string
	}{
		{"def helper(x):\n  return x\ndef main(x):\n  return helper(x)\n", []string{"assert main(1) == 1"}, "main"},
		{"def f(x): return x\ndef ff(x): return x\n", []string{"assert ff(2) == 2"}, "ff"},
		{"def f(x): return x\n", []string{"assert math.f(2) == 2", "assert f (3) == 3"}, "f"},
		{"def a(): pass\ndef b(): pass\n", []string{"assert True"}, "b"},
		{"class C:\n    def m(self): pass\n", []string{"assert C().m() is None"}, ""},
	}
	for _, tt := range tests {
		p := MBPPProblem{Code: tt.code, Tests: tt.tests}
		if got := p.EntryPoint(); got != tt.want {
			t.Errorf("EntryPoint(%q, %q) = %q, want %q", tt.code, tt.tests, got, tt.want)
		}
	}
}

// mbppFakeExecutor passes every test function unless its body holds
// "FAILS", and fails every test of a program that holds "BROKEN".
type mbppFakeExecutor struct{}

var fakeTestDef = regexp.MustCompile(`(?m)^def (test_\w+)\(\):\n    (.*)$`)

func (mbppFakeExecutor) Run(_ context.Context, program, tests string) (corpus.Execution, error) {
	ex := corpus.Execution{Status: corpus.StatusOK}
	passed := 0
	for _, m := range fakeTestDef.FindAllStringSubmatch(tests, -1) {
		ok := !strings.Contains(program, "BROKEN") && !strings.Contains(m[2], "FAILS")
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: "test_solution.py::" + m[1], Passed: ok, Message: "assert False"})
		if ok {
			passed++
		}
	}
	ex.PassRate = float64(passed) / float64(len(ex.Tests))
	ex.FailedFrac = 1 - ex.PassRate
	return ex, nil
}

func TestConvertMBPP(t *testing.T) {
	ps := readMBPPSample(t)
	for i := range ps {
		switch ps[i].ID {
		case 20:
			ps[i].Challenges[1] += " # FAILS"
		case 6:
			ps[i].Code += "# BROKEN\n"
		}
	}
	tasks, rep, err := ConvertMBPP(context.Background(), mbppFakeExecutor{}, ps, MBPPOptions{Workers: 3, Limits: limits.DefaultTimeLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 9 || rep.Tasks != 8 || len(tasks) != 8 {
		t.Errorf("rows %d tasks %d (%d), want 9 8", rep.Rows, rep.Tasks, len(tasks))
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].TaskID != "mbpp_006" || !strings.Contains(rep.Dropped[0].Reason, "reference fails") {
		t.Errorf("dropped %+v, want mbpp_006 (reference fails)", rep.Dropped)
	}
	if rep.Challenges != 5 || rep.ChallengesKept != 4 || len(rep.ChallengesDropped) != 1 ||
		rep.ChallengesDropped[0] != (MBPPDropped{TaskID: "mbpp_020", Test: "test_challenge_2", Reason: "the reference fails it: assert False"}) {
		t.Errorf("challenges %d kept %d dropped %+v", rep.Challenges, rep.ChallengesKept, rep.ChallengesDropped)
	}
	if rep.Splits[corpus.SplitTrain] != 3 || rep.Splits[corpus.SplitTest] != 4 || rep.Splits[corpus.SplitVal] != 1 {
		t.Errorf("splits %v", rep.Splits)
	}
	if rep.Tests != 8*3+4 {
		t.Errorf("tests %d, want %d", rep.Tests, 8*3+4)
	}
	for i := 1; i < len(tasks); i++ {
		if tasks[i-1].ID >= tasks[i].ID {
			t.Errorf("tasks out of MBPP's order: %s before %s", tasks[i-1].ID, tasks[i].ID)
		}
	}
	// The converted file reads back as the same tasks.
	var buf bytes.Buffer
	if err := corpus.WriteTasks(&buf, tasks); err != nil {
		t.Fatal(err)
	}
	back, bad, err := corpus.ReadTasks(&buf, "mbpp.jsonl")
	if err != nil || len(bad) > 0 || len(back) != len(tasks) {
		t.Fatalf("read back: %d tasks, %v, %v", len(back), bad, err)
	}
	for i := range back {
		if !sameTask(back[i], tasks[i]) {
			t.Errorf("task %s changed on the round trip", tasks[i].ID)
		}
	}
}

func sameTask(a, b corpus.Task) bool {
	return a.ID == b.ID && a.Question == b.Question && a.Solution == b.Solution && a.Test == b.Test &&
		a.EntryPoint == b.EntryPoint && a.Split == b.Split && a.Source == b.Source && a.License == b.License &&
		len(a.Roots) == 0 && len(b.Roots) == 0
}

// FuzzReadMBPP: arbitrary input gives problems or an error, never a panic;
// the problems it accepts convert into tasks that the task reader reads
// back whole.
func FuzzReadMBPP(f *testing.F) {
	b, err := os.ReadFile("testdata/mbpp-sample.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(`{"text": "t", "code": "def f():\r\n\treturn 1\r", "task_id": 9, "test_list": ["assert f() == 1\n"], "challenge_test_list": ["assert  f()"]}`))
	f.Add([]byte(`{"task_id": 1e3}`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ReadMBPP(bytes.NewReader(data))
		if err != nil {
			return
		}
		tasks := make([]corpus.Task, len(ps))
		for i := range ps {
			all := make([]int, len(ps[i].Challenges))
			for j := range all {
				all[j] = j
			}
			tasks[i] = ps[i].Task(all)
			if tasks[i].Split == "" || !strings.Contains(tasks[i].Test, "def test_1():") {
				t.Fatalf("task %d: split %q, test file %q", ps[i].ID, tasks[i].Split, tasks[i].Test)
			}
		}
		var buf bytes.Buffer
		if err := corpus.WriteTasks(&buf, tasks); err != nil {
			t.Fatal(err)
		}
		back, bad, err := corpus.ReadTasks(&buf, "fuzz")
		if err != nil || len(bad) > 0 || len(back) != len(tasks) {
			t.Fatalf("read back %d of %d tasks: %v %v", len(back), len(tasks), bad, err)
		}
	})
}

// TestTaskImports: a star import leaves out the solution's "_" names, and
// pytest would collect its functions named test*; the test file handles
// both.
func TestTaskImports(t *testing.T) {
	p := MBPPProblem{ID: 19, Code: "_N = 2\ndef _sum(a):\n  return sum(a)\ndef test_dup(a):\n  return _sum(a) > _N\nclass TestBox:\n  pass\n",
		Tests: []string{"assert test_dup([1, 2])"}}
	want := "from solution import *\nfrom solution import _N, _sum\n\n" +
		"# MBPP's solution names these test*: they are not tests.\ntest_dup.__test__ = False\nTestBox.__test__ = False\n\n\n" +
		"def test_1():\n    assert test_dup([1, 2])\n"
	if got := p.Task(nil).Test; got != want {
		t.Errorf("test file:\n%s\nwant:\n%s", got, want)
	}
}
