package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"triage/corpus"
)

// TestRestartRetriesSlowStart: a worker killed between runs is started
// again on the next run; a start that misses its hello timeout (as under a
// machine's load) is retried with twice the time instead of failing the
// run.
func TestRestartRetriesSlowStart(t *testing.T) {
	python := DefaultOptions().Python
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	slow, log := filepath.Join(dir, "slow"), filepath.Join(dir, "starts")
	// The wrapper hangs once when the marker exists (removing it), as a
	// start that never says hello in time.
	wrapper := filepath.Join(dir, "python")
	script := "#!/bin/sh\necho start >> " + log + "\nif [ -e " + slow + " ]; then rm -f " + slow + "; sleep 600; fi\nexec " + python + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := ownPool(t, Options{Workers: 1, Timeout: 5 * time.Second, Python: wrapper})
	p.hello = 3 * time.Second
	prog, tests := "def f():\n    return 1\n", "from solution import f\n\ndef test_f():\n    assert f() == 1\n"
	run := func() corpus.Execution {
		t.Helper()
		ex, err := p.Run(context.Background(), prog, tests)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return ex
	}
	if ex := run(); ex.Status != corpus.StatusOK || ex.PassRate != 1 {
		t.Fatalf("first run: %+v", ex)
	}
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := <-p.slots // no run is in flight: end the worker as a crash would
	s.w.kill()
	s.w = nil
	p.slots <- s
	if ex := run(); ex.Status != corpus.StatusOK || ex.PassRate != 1 {
		t.Fatalf("run after the slow start: %+v", ex)
	}
	data, _ := os.ReadFile(log)
	if n := strings.Count(string(data), "start"); n < 3 {
		t.Errorf("%d worker starts, want the first, the slow one and its retry", n)
	}
	if _, err := os.Stat(slow); !os.IsNotExist(err) {
		t.Errorf("the slow start never ran: %v", err)
	}
}
