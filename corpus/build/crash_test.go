package build_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

const (
	crashDirEnv = "TRIAGE_CORPUS_CRASH_DIR"
	crashAtEnv  = "TRIAGE_CORPUS_CRASH_AT"
)

func crashOpts(out string) build.BuildOptions {
	o := buildtest.Options(out, &corpustest.FakeProposer{Delay: time.Millisecond}, &corpustest.FakeExecutor{})
	o.TasksPerShard = 2
	o.Resume = true
	// One tree at a time: shards complete in order, so each crash point
	// below is reached in its own run.
	o.TreesInFlight = 1
	return o
}

// TestCrashChild is the builder process that TestCrashResume kills; it does
// nothing unless started by that test.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process of TestCrashResume")
	}
	o := crashOpts(dir)
	if at := os.Getenv(crashAtEnv); at != "" {
		event, shard, _ := strings.Cut(at, ":")
		n, _ := strconv.Atoi(shard)
		*build.Hook(&o) = func(e string, s int) {
			if e == event && s == n {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			}
		}
	}
	if _, err := build.BuildCorpus(context.Background(), corpustest.FakeTasks(12), o); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
}

// TestCrashResume SIGKILLs a build at several points (a temporary shard
// written, a shard renamed but not yet in the manifest, right after a
// manifest update, and at a random moment from outside), resumes it each
// time, and checks that the final corpus has exactly the rows of an
// uninterrupted build.
func TestCrashResume(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("in the child")
	}
	ref := t.TempDir()
	ro := crashOpts(ref)
	ro.Resume = false
	ro.Config.Proposer = &corpustest.FakeProposer{}
	if _, err := build.BuildCorpus(context.Background(), corpustest.FakeTasks(12), ro); err != nil {
		t.Fatal(err)
	}
	want := buildtest.AllRows(t, ref)

	dir := t.TempDir()
	start := func(at string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashAtEnv+"="+at)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	killed := func(err error) bool {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
				return true
			}
		}
		return false
	}
	for _, at := range []string{"tmp:0", "renamed:1", "manifest:2", "tmp:3"} {
		if err := start(at).Wait(); !killed(err) {
			t.Fatalf("crash at %s: child ended with %v, want SIGKILL", at, err)
		}
		checkCrashState(t, dir)
	}
	// A kill from outside, at whatever point the build has reached once the
	// manifest lists 4 shards.
	cmd := start("")
	deadline := time.Now().Add(time.Minute)
	for {
		m, err := manifest.ReadManifest(filepath.Join(dir, "manifest.json"))
		if err == nil && len(m.Shards) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	checkCrashState(t, dir)
	// Finish.
	if err := start("").Wait(); err != nil {
		t.Fatalf("final resume: %v", err)
	}
	m, err := manifest.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil || !m.Complete || len(m.Shards) != 6 {
		t.Fatalf("final manifest %+v (err %v)", m, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	got := buildtest.AllRows(t, dir)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed corpus: %d rows, uninterrupted: %d; rows differ", len(got), len(want))
	}
	seen := map[[2]string]bool{}
	for _, r := range got {
		k := [2]string{r.TreeID, strconv.Itoa(int(r.NodeID))}
		if seen[k] {
			t.Fatalf("duplicate row %v", k)
		}
		seen[k] = true
	}
	if _, err := shard.LoadTrees(dir); err != nil {
		t.Fatal(err)
	}
}

// checkCrashState checks that after a crash every shard file reads and the
// manifest, if present, lists only readable shards.
func checkCrashState(t *testing.T, dir string) {
	t.Helper()
	files, err := shard.ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := shard.InspectShard(f); err != nil {
			t.Errorf("after a crash, %s is unreadable: %v", f, err)
		}
	}
	if m, err := manifest.ReadManifest(filepath.Join(dir, "manifest.json")); err == nil {
		for _, s := range m.Shards {
			if _, err := os.Stat(filepath.Join(dir, s.File)); err != nil {
				t.Errorf("manifest lists a missing shard: %v", err)
			}
		}
	}
}
