package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/mbpp"
)

// staticProbe runs guard.py's static check over the programs on stdin (a
// JSON list) and prints the findings of each.
const staticProbe = `
import json, sys
ns = {"__name__": "guard"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
print(json.dumps([ns["static_findings"](p) for p in json.load(sys.stdin)]))
`

// runStatic returns the static check's findings for each program.
func runStatic(t *testing.T, programs []string) [][]string {
	t.Helper()
	in, _ := json.Marshal(programs)
	cmd := exec.Command(DefaultOptions().Python, "-c", staticProbe, "guard.py")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		stdin.Write(in)
		stdin.Close()
	}()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("static check: %v", err)
	}
	var got [][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("static check output: %v", err)
	}
	return got
}

// TestStaticCheckPassesHonestPrograms: no reference solution of the bundled
// task set or of the benchmark set trips the static check.
func TestStaticCheckPassesHonestPrograms(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var programs, names []string
	for _, task := range tasks {
		programs = append(programs, task.Solution)
		names = append(names, task.ID)
	}
	suites, err := BenchSuites()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range suites {
		programs = append(programs, s.Program)
		names = append(names, s.Name)
	}
	got := runStatic(t, programs)
	flagged := 0
	for i, f := range got {
		if len(f) == 0 {
			continue
		}
		// The benchmark's crash programs end the process on purpose.
		if i >= len(tasks) && len(f) > 0 {
			flagged++
			continue
		}
		t.Errorf("%s: static findings on an honest program: %v", names[i], f)
	}
	if flagged == 0 {
		t.Error("no benchmark crash program was flagged: the check proves nothing")
	}
}

// TestStaticCheckFindings: what the static check reports, and what it lets
// through.
func TestStaticCheckFindings(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	cases := []struct {
		program string
		flagged bool
	}{
		{"import _pytest.python\n", true},
		{"from _pytest import runner\n", true},
		{"import pytest\n", true},
		{"import gc\n", true},
		{"import inspect\n", true},
		{"import ctypes\n", true},
		{"from unittest.mock import ANY\n", true},
		{"from unittest import mock\n", true},
		{"import os\nos._exit(0)\n", true},
		{"from os import _exit\n", true},
		{"import sys\nf = sys._getframe()\n", true},
		{"import sys\nm = sys.modules['x']\n", true},
		{"x = __import__('os')\n", true},
		{"open('test_solution.py')\n", true},
		{"class A:\n    def __eq__(self, other):\n        return True\n", true},
		{"class A:\n    __eq__ = lambda self, other: True\n", true},
		{"class A:\n    def __ne__(self, *args):\n        return False\n", true},
		{"setattr(int, '__eq__', 1)\n", true},
		// Honest code.
		{"class A:\n    def __eq__(self, other):\n        return isinstance(other, A) and self.v == other.v\n", false},
		{"class A:\n    def __eq__(self, other):\n        return NotImplemented\n", false},
		{"import sys\nsys.setrecursionlimit(10000)\n", false},
		{"import unittest\n", false},
		{`"""Solved with pytest in mind."""` + "\nimport collections\n", false},
		{"if __name__ == '__main__':\n    print(1)\n", false},
		{"def f(:\n", false},
	}
	programs := make([]string, len(cases))
	for i, c := range cases {
		programs[i] = c.program
	}
	got := runStatic(t, programs)
	for i, c := range cases {
		if (len(got[i]) > 0) != c.flagged {
			t.Errorf("%q: findings %v, want flagged %v", c.program, got[i], c.flagged)
		}
	}
}

// TestBundledReferencesConfirmed runs every third bundled reference (every
// one with TRIAGE_SANDBOX_ALL_BUNDLED=1) through the pool: each passes under
// pytest and is confirmed by the re-check (no false tamper), and its test
// file collects without a program.
func TestBundledReferencesConfirmed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bundled references")
	}
	all, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var tasks []corpus.Task
	for i, task := range all {
		if i%3 == 0 || os.Getenv("TRIAGE_SANDBOX_ALL_BUNDLED") == "1" {
			tasks = append(tasks, task)
		}
	}
	p := testPool(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, p.Options().Workers)
	for _, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ex, err := p.Run(context.Background(), task.Solution, task.Test)
			if err != nil {
				t.Errorf("%s: %v", task.ID, err)
				return
			}
			if !ex.Solved() {
				t.Errorf("%s: reference not solved (%s):\n%s", task.ID, ex.Status, ex.Feedback)
			}
		}()
	}
	wg.Wait()
	p.expMu.Lock()
	known := 0
	for _, e := range p.expected {
		if e.known {
			known++
		}
	}
	p.expMu.Unlock()
	if known < len(tasks) {
		t.Errorf("only %d test files have reference ids, want ≥ %d", known, len(tasks))
	}
}

// TestReferenceIDsFromTextMatchCollection: the bundled test files and every
// 8th MBPP one, most of which the worker reads ids from (static_test_ids:
// plain files, with test classes, fixtures of their own and parameter sets
// of literals): the ids are those pytest collects from each with the
// stand-in program (a pool with the shortcut off), in the same order.
func TestReferenceIDsFromTextMatchCollection(t *testing.T) {
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	more, err := mbpp.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(more); i += 8 {
		tasks = append(tasks, more[i])
	}
	fromText := ownPool(t, Options{Workers: 2, Timeout: 10 * time.Second})
	collected := ownPool(t, Options{Workers: 2, Timeout: 10 * time.Second, disabled: layerSet{layerStaticIDs: true}})
	type pair struct {
		id        string
		got, want expectation
	}
	results := make([]pair, len(tasks))
	var wg sync.WaitGroup
	for i, task := range tasks {
		wg.Add(1)
		go func() { // the pools' slots bound how many run at once
			defer wg.Done()
			expect := func(p *Pool) expectation {
				e, err := expectOn(t, p, task.Test)
				if err != nil {
					t.Errorf("%s: %v", task.ID, err)
				}
				return e
			}
			results[i] = pair{task.ID, expect(fromText), expect(collected)}
		}()
	}
	wg.Wait()
	if n := collected.staticIDs.Load(); n != 0 {
		t.Fatalf("%d test files read from their text with the shortcut off", n)
	}
	n := fromText.staticIDs.Load()
	if n < int64(len(tasks))*9/10 {
		t.Errorf("only %d of %d test files read from their text", n, len(tasks))
	}
	t.Logf("%d of %d test files read from their text", n, len(tasks))
	for _, r := range results {
		if !r.want.known {
			t.Errorf("%s: pytest's collection gave no ids (%s)", r.id, r.want.why)
			continue
		}
		if !r.got.known || !slices.Equal(r.got.ids, r.want.ids) {
			t.Errorf("%s: ids %v (%s), pytest collects %v", r.id, r.got.ids, r.got.why, r.want.ids)
		}
	}
}
