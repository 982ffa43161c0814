// Command sandbox-parity runs the reference and every root of each task of a
// task file through the sandbox, each with per-test line coverage, under the
// limits `triage tasks validate` gives them, and writes one JSON line per
// program: its status, pass rate, every test's verdict and lines, and the
// feedback. Built at two commits (the older one in a git worktree), it shows
// whether a change of the sandbox keeps statuses, coverage and feedback:
//
//	go run ./scripts/sandbox-parity -tasks tasks-with-roots.jsonl -out new.jsonl
//	go run ./scripts/sandbox-parity -compare old.jsonl new.jsonl
//
// The roots come from the task file (`triage tasks inject` writes them):
// injecting them anew would make roots that depend on the sandbox compared.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/corpus/taskset"
	"triage/search/sandbox"
)

// Program is one line of the output.
type Program struct {
	Task     string  `json:"task"`
	Kind     string  `json:"kind"` // "ref" or "root"
	Index    int     `json:"index"`
	Status   string  `json:"status"`
	PassRate float64 `json:"pass_rate"`
	Tests    []Test  `json:"tests"`
	Feedback string  `json:"feedback"`
}

// Test is one test of a program's run.
type Test struct {
	Name   string  `json:"name"`
	Passed bool    `json:"passed"`
	Lines  []int32 `json:"lines"`
}

func main() {
	spec := flag.String("tasks", "", `task file (JSONL with roots), or "bundled" or "mbpp"`)
	out := flag.String("out", "", "output JSONL")
	workers := flag.Int("workers", 2, "sandbox workers")
	only := flag.String("only", "", "a regexp of the task ids to run (default: all)")
	cover := flag.Bool("coverage", true, "per-test line coverage (what a corpus build asks for programs that get proposals)")
	compare := flag.Bool("compare", false, "compare two outputs given as arguments")
	flag.Parse()
	if *compare {
		if flag.NArg() != 2 {
			fail("usage: sandbox-parity -compare OLD.jsonl NEW.jsonl")
		}
		os.Exit(compareFiles(flag.Arg(0), flag.Arg(1)))
	}
	if *spec == "" || *out == "" {
		fail("usage: sandbox-parity -tasks FILE -out FILE [-workers N] [-only REGEXP]")
	}
	if err := run(*spec, *out, *workers, *only, *cover); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}

func run(spec, out string, workers int, only string, cover bool) error {
	tasks, err := taskset.Load(spec, false)
	if err != nil {
		return err
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		var kept []corpus.Task
		for _, t := range tasks {
			if re.MatchString(t.ID) {
				kept = append(kept, t)
			}
		}
		tasks = kept
	}
	limits := limits.DefaultTimeLimits()
	pool, err := sandbox.Start(workers, sandbox.LimitsWarn, &limits, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	var mu sync.Mutex
	ctx := context.Background()
	done := 0
	return corpus.ForEach(ctx, len(tasks), 2*workers, func(i int) error {
		lines, err := runTask(ctx, pool, &tasks[i], limits, cover)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range lines {
			b, _ := json.Marshal(p)
			w.Write(append(b, '\n'))
		}
		done++
		if done%50 == 0 {
			fmt.Fprintf(os.Stderr, "%d of %d tasks\n", done, len(tasks))
		}
		return nil
	})
}

// runTask runs a task's reference, then its roots under the limit the
// reference gives the task.
func runTask(ctx context.Context, e corpus.Executor, t *corpus.Task, limits limits.TimeLimits, cover bool) ([]Program, error) {
	measure := limits.Measure()
	measure.Coverage = cover
	ex, err := corpus.RunWith(ctx, e, t.Solution, t.Test, measure)
	if err != nil {
		return nil, fmt.Errorf("task %s: reference: %w", t.ID, err)
	}
	out := []Program{program(t.ID, "ref", 0, ex)}
	ref := limits.Sample(ex)
	o := limits.Run(limits.LimitOf(ref))
	if o.CPU > 0 {
		o.ProgramCPU = limits.ProgramLimitOf(ref)
	}
	o.Coverage = cover
	for i, root := range t.Roots {
		ex, err := corpus.RunWith(ctx, e, root, t.Test, o)
		if err != nil {
			return nil, fmt.Errorf("task %s: root %d: %w", t.ID, i, err)
		}
		out = append(out, program(t.ID, "root", i, ex))
	}
	return out, nil
}

func program(task, kind string, i int, ex corpus.Execution) Program {
	p := Program{Task: task, Kind: kind, Index: i, Status: string(ex.Status), PassRate: ex.PassRate, Feedback: ex.Feedback}
	for _, tr := range ex.Tests {
		p.Tests = append(p.Tests, Test{Name: tr.Name, Passed: tr.Passed, Lines: tr.Lines})
	}
	return p
}

// objectAddress masks what differs between two runs of the same program:
// object addresses, temporary folders' numbers.
var objectAddress = regexp.MustCompile(`0x[0-9a-f]{6,}|[0-9a-f]{12}|[0-9]{12,}`)

func read(path string) (map[string]Program, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	out := map[string]Program{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var p Program
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		key := fmt.Sprintf("%s/%s%d", p.Task, p.Kind, p.Index)
		if _, dup := out[key]; !dup {
			order = append(order, key)
		}
		out[key] = p
	}
	return out, order, sc.Err()
}

// compareFiles prints how each program of b differs from a's and returns
// the exit code: 0 when none does.
func compareFiles(a, b string) int {
	old, order, err := read(a)
	if err != nil {
		fail(err.Error())
	}
	cur, _, err := read(b)
	if err != nil {
		fail(err.Error())
	}
	counts := map[string]int{}
	var diffs []string
	for _, k := range order {
		p, ok := cur[k]
		if !ok {
			counts["missing"]++
			continue
		}
		q := old[k]
		counts["compared"]++
		var what []string
		if p.Status != q.Status {
			what = append(what, "status "+q.Status+" -> "+p.Status)
		}
		if verdicts(p) != verdicts(q) {
			what = append(what, "verdicts")
		}
		if coverage(p) != coverage(q) {
			what = append(what, "coverage")
		}
		if objectAddress.ReplaceAllString(p.Feedback, "0x…") != objectAddress.ReplaceAllString(q.Feedback, "0x…") {
			what = append(what, "feedback")
		}
		for _, w := range what {
			counts[strings.Fields(w)[0]]++
		}
		if len(what) > 0 {
			diffs = append(diffs, k+": "+strings.Join(what, ", "))
		}
	}
	sort.Strings(diffs)
	for _, d := range diffs {
		fmt.Println(d)
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %d\n", k, counts[k])
	}
	if len(diffs) > 0 {
		return 1
	}
	return 0
}

func verdicts(p Program) string {
	var b strings.Builder
	for _, t := range p.Tests {
		fmt.Fprintf(&b, "%s=%v;", t.Name, t.Passed)
	}
	return b.String()
}

func coverage(p Program) string {
	var b strings.Builder
	for _, t := range p.Tests {
		fmt.Fprintf(&b, "%s=%v;", t.Name, t.Lines)
	}
	return b.String()
}
