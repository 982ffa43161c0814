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
	if cgroupV2() {
		if base, err := cgroupV2Base(); err == nil {
			sweepStaleCgroups(filepath.Join(base, "triage-sandbox"), func(dir string) *cgroup {
				return &cgroup{pids: dir, memory: dir, v2: true}
			})
		}
	} else {
		sweepStaleCgroups(filepath.Join(cgroupRoot, "pids", "triage-sandbox"), func(dir string) *cgroup { return &cgroup{pids: dir} })
		sweepStaleCgroups(filepath.Join(cgroupRoot, "memory", "triage-sandbox"), func(dir string) *cgroup { return &cgroup{memory: dir} })
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

// sweepStaleCgroups removes the pool folders under parent whose owner
// process is gone, each worker's cgroup (made by mk) first.
func sweepStaleCgroups(parent string, mk func(dir string) *cgroup) {
	pools, err := cgfs.Dirs(parent)
	if err != nil {
		return
	}
	for _, name := range pools {
		pid, ok := ownerPID(name, "")
		if !ok || pidAlive(pid) {
			continue
		}
		poolDir := filepath.Join(parent, name)
		workers, _ := cgfs.Dirs(poolDir)
		for _, w := range workers {
			_ = mk(filepath.Join(poolDir, w)).remove()
		}
		_ = cgfs.Remove(poolDir)
	}
}
