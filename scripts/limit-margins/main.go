// Command limit-margins measures how close honest runs come to the time
// limits: it runs every distinct program of a corpus of bundled or MBPP
// tasks once,
// under a 3 s CPU limit with no program budget and with the program's part
// of the CPU measured (and line coverage, as a build's proposal runs ask),
// and prints one row per program: its task's reference parts (median of 3
// runs, in ms: the program's, the program's own code within it, the
// harness's) and the program budget they give, its status, failing tests,
// and its own program and harness parts. Programs that loop show as
// timeout.
//
//	go run ./scripts/limit-margins CORPUS_DIR... > margins.tsv
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/bundled"
	"triage/corpus/limits"
	"triage/corpus/mbpp"
	"triage/corpus/shard"
	"triage/search/sandbox"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: limit-margins CORPUS_DIR...")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "limit-margins:", err)
		os.Exit(1)
	}
}

func run(dirs []string) error {
	trees, err := shard.LoadTrees(dirs...)
	if err != nil {
		return err
	}
	byID := map[string]*corpus.Task{}
	for _, source := range []func() ([]corpus.Task, error){bundled.Tasks, mbpp.Tasks} {
		all, err := source()
		if err != nil {
			return err
		}
		for i := range all {
			byID[all[i].ID] = &all[i]
		}
	}
	pool, err := sandbox.New(sandbox.Options{Workers: 2})
	if err != nil {
		return err
	}
	defer pool.Close()
	ctx := context.Background()
	limits := limits.DefaultTimeLimits()
	checks := map[string]build.TaskCheck{}
	seen := map[[2]string]bool{}
	type run struct{ task, program string }
	var runs []run
	for _, tr := range trees {
		task := byID[tr.TaskID]
		if task == nil {
			return fmt.Errorf("tree %s: task %s is neither a bundled nor an MBPP task", tr.ID, tr.TaskID)
		}
		if _, ok := checks[tr.TaskID]; !ok {
			c, err := build.CheckTask(ctx, pool, task, build.CheckOptions{ReferenceRuns: 3, Limits: limits, Coverage: true})
			if err != nil {
				return fmt.Errorf("check task %s: %w", tr.TaskID, err)
			}
			checks[tr.TaskID] = c
		}
		for i := range tr.Nodes {
			n := &tr.Nodes[i]
			k := [2]string{tr.TaskID, n.Program}
			if n.ReviseFailed || seen[k] {
				continue
			}
			seen[k] = true
			runs = append(runs, run{tr.TaskID, n.Program})
		}
	}
	out := make([]string, len(runs))
	err = corpus.ForEach(ctx, len(runs), 2, func(i int) error {
		r := runs[i]
		c := checks[r.task]
		ex, err := pool.RunWith(ctx, r.program, byID[r.task].Test,
			corpus.RunOptions{CPU: 3 * time.Second, Timeout: 10 * time.Second, SplitCPU: true, Coverage: true})
		if err != nil {
			return fmt.Errorf("run a program of %s: %w", r.task, err)
		}
		fails := 0
		for _, t := range ex.Tests {
			if !t.Passed {
				fails++
			}
		}
		out[i] = fmt.Sprintf("%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%d\t%.2f\t%.2f", r.task, c.ProgramMS, c.OwnMS, c.HarnessMS,
			float64(c.ProgramLimit)/float64(time.Millisecond), ex.Status, fails, ex.ProgramCPUMS, ex.CPUMS-ex.ProgramCPUMS)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Println("task\tref_program_ms\tref_program_own_ms\tref_harness_ms\tprogram_budget_ms\tstatus\tfailed_tests\tprogram_ms\tharness_ms")
	for _, l := range out {
		fmt.Println(l)
	}
	return nil
}
