package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// pidAlive reports whether a process with this pid exists.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// ownerPID parses the owner pid from a name "<prefix><pid>-<rest>".
func ownerPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	head, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(head)
	return pid, err == nil && pid > 0
}

// sweepStale removes what pools of processes that no longer exist left
// behind (they were killed before Close): their cgroups (after killing any
// process still in them) and their temp folders.
func sweepStale(tempBase string) {
	for _, controller := range []string{"pids", "memory"} {
		parent := filepath.Join(cgroupRoot, controller, "triage-sandbox")
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			pid, ok := ownerPID(e.Name(), "")
			if !e.IsDir() || !ok || pidAlive(pid) {
				continue
			}
			poolDir := filepath.Join(parent, e.Name())
			workers, _ := os.ReadDir(poolDir)
			for _, w := range workers {
				if w.IsDir() {
					cg := &cgroup{}
					if controller == "pids" {
						cg.pids = filepath.Join(poolDir, w.Name())
					} else {
						cg.memory = filepath.Join(poolDir, w.Name())
					}
					_ = cg.remove()
				}
			}
			_ = os.Remove(poolDir)
		}
	}
	entries, err := os.ReadDir(tempBase)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := ownerPID(e.Name(), "triage-sandbox-"); ok && e.IsDir() && !pidAlive(pid) {
			_ = os.RemoveAll(filepath.Join(tempBase, e.Name()))
		}
	}
}
