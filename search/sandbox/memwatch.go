package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The sandbox's own memory accounting, for workers without a memory cgroup
// (an account without privilege, a pod without a writable cgroup): while a
// request is in flight, a watcher sums the memory of the processes below
// the worker that run as the run's uid, every memWatchInterval, and kills
// them all when the sum is over the limit the cgroup would have had.
// RLIMIT_AS bounds each process between two looks; the pod's own cgroup
// stays the outer bound.
//
// What it sums: each process's resident anonymous and shared-memory pages
// (RssAnon + RssShmem of /proc/PID/status, cheap to read) while that sum is
// under the limit. A page that processes share after a fork (a run's child
// shares the fork server's 40-odd MB with every process it forks) counts
// there once per process, so above the limit it reads the proportional
// figures (Pss_Anon + Pss_Shmem of /proc/PID/smaps_rollup, which split a
// shared page among its sharers, as a cgroup counts it once) and kills only
// when those are over too. Reading smaps_rollup of a run's process needs
// ptrace's read access: the owner of the worker's user namespace has it; root
// of a pod's user namespace needs CAP_SYS_PTRACE (docs/deploy.md). Where it
// cannot be read, the resident figure decides, and a run of many forked
// processes is cut sooner than a cgroup would cut it.

// memWatchInterval is how often a watcher looks: a look at a run of a few
// processes (six) costs 0.5-1.2 ms on the development VM at a load
// average of 16-20 on its 2 cores, so about 1-2 % of a core while a run is in
// flight. Between two looks RLIMIT_AS bounds each process.
const memWatchInterval = 50 * time.Millisecond

// procRoot is where the watcher reads processes (tests replace it).
var procRoot = "/proc"

// memWatch watches one request's processes; stop ends it and says whether
// it killed them, and the largest sum it saw.
type memWatch struct {
	done   chan struct{}
	wg     sync.WaitGroup
	killed bool
	peak   int64
}

// watchMemory starts watching the processes below root (the worker's pid)
// whose real uid is uid, killing them when their resident memory sums to
// more than limit bytes.
func watchMemory(root, uid int, limit int64) *memWatch {
	m := &memWatch{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(memWatchInterval)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
			}
			pids, sum := runMemory(root, uid)
			if sum > limit {
				sum = proportionalMemory(pids, sum)
			}
			m.peak = max(m.peak, sum)
			if sum > limit {
				for _, pid := range pids {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				m.killed = true
			}
		}
	}()
	return m
}

// stop ends the watch and reports what it did.
func (m *memWatch) stop() (killed bool, peak int64) {
	close(m.done)
	m.wg.Wait()
	return m.killed, m.peak
}

// runMemory lists the processes below root whose real uid is uid and sums
// their resident anonymous and shared-memory pages (RssAnon + RssShmem: a
// run's own memory; its files are read-only or in its size-capped tmpfs).
func runMemory(root, uid int) (pids []int, sum int64) {
	for _, pid := range descendants(root) {
		data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
		if err != nil {
			continue // ended meanwhile
		}
		u, mem, ok := parseStatusMemory(data)
		if !ok || u != uid {
			continue
		}
		pids = append(pids, pid)
		sum += mem
	}
	return pids, sum
}

// proportionalMemory sums the proportional memory (Pss_Anon + Pss_Shmem) of
// pids; resident is the sum to keep where one of them cannot be read.
func proportionalMemory(pids []int, resident int64) int64 {
	var sum int64
	for _, pid := range pids {
		data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "smaps_rollup"))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
				continue // ended meanwhile
			}
			return resident
		}
		mem, ok := parseRollup(data)
		if !ok {
			return resident
		}
		sum += mem
	}
	return sum
}

// parseRollup reads Pss_Anon + Pss_Shmem (bytes) from the text of
// /proc/PID/smaps_rollup.
func parseRollup(data []byte) (mem int64, ok bool) {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		key, val, found := bytes.Cut(line, []byte(":"))
		if !found || (string(key) != "Pss_Anon" && string(key) != "Pss_Shmem") {
			continue
		}
		f := bytes.Fields(val)
		if len(f) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 || kb > 1<<40 {
			return 0, false
		}
		mem += kb << 10
		n++
	}
	return mem, n == 2
}

// descendants lists the processes below root (not root itself), from the
// children files of each of their threads.
func descendants(root int) []int {
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		dir := filepath.Join(procRoot, strconv.Itoa(pid), "task")
		tasks, _ := os.ReadDir(dir)
		for _, task := range tasks {
			data, err := os.ReadFile(filepath.Join(dir, task.Name(), "children"))
			if err != nil {
				continue
			}
			for _, field := range bytes.Fields(data) {
				c, err := strconv.Atoi(string(field))
				if err != nil || seen[c] {
					continue
				}
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// parseStatusMemory reads the real uid and RssAnon + RssShmem (bytes) from
// the text of /proc/PID/status.
func parseStatusMemory(data []byte) (uid int, mem int64, ok bool) {
	haveUID := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		key, val, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		f := bytes.Fields(val)
		if len(f) == 0 {
			continue
		}
		switch string(key) {
		case "Uid":
			v, err := strconv.Atoi(string(f[0]))
			if err != nil {
				return 0, 0, false
			}
			uid, haveUID = v, true
		case "RssAnon", "RssShmem":
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil || kb < 0 || kb > 1<<40 { // 1 PiB: no real process
				return 0, 0, false
			}
			mem += kb << 10
		}
	}
	return uid, mem, haveUID
}

// childrenFilesWork reports whether the kernel lists a process's children
// (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN), which the watcher
// needs.
func childrenFilesWork() bool {
	self := strconv.Itoa(os.Getpid())
	_, err := os.Stat(filepath.Join(procRoot, self, "task", self, "children"))
	return err == nil
}
