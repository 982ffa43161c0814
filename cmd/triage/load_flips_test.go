package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/bundled"
	"triage/corpus/limits"
	"triage/corpus/mbpp"
	"triage/corpus/shard"
	"triage/search/sandbox"
)

// TestLoadFlipRate is a measurement, not a check (it asserts nothing about
// the figures): it reruns up to TRIAGE_FLIP_NODES distinct programs of the
// corpus in TRIAGE_FLIP_CORPUS (bundled or MBPP tasks), each under its
// task's wall-clock limit
// (the old limits) and under its task's CPU limit, first on the machine as
// it is and then while TRIAGE_FLIP_HOGS processes (default 2 × NumCPU) spin
// on the CPU, and logs how many statuses flipped between the two passes for
// each kind of limit. The per-task limits are measured once, before either
// pass, so both passes run under the same limits. Run with -v:
//
//	TRIAGE_FLIP_CORPUS=dir go test ./cmd/triage -run TestLoadFlipRate -v -timeout 2h
func TestLoadFlipRate(t *testing.T) {
	dir := os.Getenv("TRIAGE_FLIP_CORPUS")
	if dir == "" {
		t.Skip("a measurement: set TRIAGE_FLIP_CORPUS to a corpus folder")
	}
	maxNodes := envIntDefault("TRIAGE_FLIP_NODES", 300)
	hogs := envIntDefault("TRIAGE_FLIP_HOGS", 2*runtime.NumCPU())
	trees, err := shard.LoadTrees(dir)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*corpus.Task{}
	for _, source := range []func() ([]corpus.Task, error){bundled.Tasks, mbpp.Tasks} {
		all, err := source()
		if err != nil {
			t.Fatal(err)
		}
		for i := range all {
			byID[all[i].ID] = &all[i]
		}
	}
	type run struct {
		task    *corpus.Task
		program string
	}
	var runs []run
	seen := map[[2]string]bool{}
	for _, tr := range trees {
		for i := range tr.Nodes {
			n := &tr.Nodes[i]
			k := [2]string{tr.TaskID, n.Program}
			if n.ReviseFailed || seen[k] || byID[tr.TaskID] == nil || len(runs) >= maxNodes {
				continue
			}
			seen[k] = true
			runs = append(runs, run{byID[tr.TaskID], n.Program})
		}
	}
	pool, err := sandbox.New(sandbox.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	wall, cpu := limits.DefaultWallTimeLimits(), limits.DefaultTimeLimits()
	taskLimits := map[string][2]corpus.RunOptions{}
	for _, r := range runs {
		if _, ok := taskLimits[r.task.ID]; ok {
			continue
		}
		var lim [2]corpus.RunOptions
		for i, l := range []limits.TimeLimits{wall, cpu} {
			c, err := build.CheckTask(ctx, pool, r.task, build.CheckOptions{ReferenceRuns: 3, Limits: l})
			if err != nil || !c.Valid() {
				t.Fatalf("task %s: %+v %v", r.task.ID, c, err)
			}
			lim[i] = c.RunOptions(l)
		}
		taskLimits[r.task.ID] = lim
		t.Logf("task %s: wall limit %v; CPU limit %v (program %v, backstop %v)", r.task.ID, lim[0].Timeout, lim[1].CPU, lim[1].ProgramCPU, lim[1].Timeout)
	}
	pass := func() [][2]corpus.Execution {
		out := make([][2]corpus.Execution, len(runs))
		var mu sync.Mutex
		err := corpus.ForEach(ctx, len(runs), 2, func(i int) error {
			for j := 0; j < 2; j++ {
				ex, err := pool.RunWith(ctx, runs[i].program, runs[i].task.Test, taskLimits[runs[i].task.ID][j])
				if err != nil {
					return err
				}
				mu.Lock()
				out[i][j] = ex
				mu.Unlock()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	idle := pass()
	load0 := loadavg()
	var procs []*exec.Cmd
	for range hogs {
		c := exec.Command(sandbox.DefaultOptions().Python, "-c", "while True: pass")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, c)
	}
	loaded := pass()
	load1 := loadavg()
	for _, c := range procs {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	for j, name := range []string{"wall-clock limits", "CPU limits"} {
		flips := map[string]int{}
		n := 0
		for i := range runs {
			if a, b := idle[i][j], loaded[i][j]; a.Status != b.Status {
				n++
				flips[fmt.Sprintf("%s→%s", a.Status, b.Status)]++
				// What a flip was near: its CPU each time, and the limit named.
				t.Logf("%s: %s flipped %s→%s: CPU %.1f→%.1f ms (program %.1f→%.1f ms); %q → %q", name, runs[i].task.ID,
					a.Status, b.Status, a.CPUMS, b.CPUMS, a.ProgramCPUMS, b.ProgramCPUMS, firstLine(a.Feedback), firstLine(b.Feedback))
			}
		}
		var kinds []string
		for k, v := range flips {
			kinds = append(kinds, k+" "+strconv.Itoa(v))
		}
		sort.Strings(kinds)
		t.Logf("%s: %d of %d programs changed status under %d CPU hogs (%.1f %%) %v", name, n, len(runs), hogs, 100*float64(n)/float64(len(runs)), kinds)
	}
	t.Logf("load average: before the hogs %s, with them %s", load0, load1)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func envIntDefault(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) < 14 {
		return "?"
	}
	return string(b[:14])
}
