package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is where the cgroup v1 hierarchies are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroup is one worker's cgroup in the v1 pids and memory hierarchies (each
// part may be missing when that controller is unavailable).
type cgroup struct {
	pids   string // folder in the pids hierarchy, "" if none
	memory string // folder in the memory hierarchy, "" if none
}

// newCgroup makes the cgroup name (a relative path) in each available v1
// controller and sets its limits. Controllers that cannot be used are
// reported in warn and left out.
func newCgroup(name string, memBytes int64, maxPids int) (cg *cgroup, warn []string) {
	cg = &cgroup{}
	if dir, err := makeCgroupDir("pids", name); err != nil {
		warn = append(warn, fmt.Sprintf("pids cgroup: %v", err))
	} else if err := writeFile(filepath.Join(dir, "pids.max"), strconv.Itoa(maxPids)); err != nil {
		warn = append(warn, fmt.Sprintf("pids cgroup: %v", err))
		_ = os.Remove(dir)
	} else {
		cg.pids = dir
	}
	if dir, err := makeCgroupDir("memory", name); err != nil {
		warn = append(warn, fmt.Sprintf("memory cgroup: %v", err))
	} else if err := writeFile(filepath.Join(dir, "memory.limit_in_bytes"), strconv.FormatInt(memBytes, 10)); err != nil {
		warn = append(warn, fmt.Sprintf("memory cgroup: %v", err))
		_ = os.Remove(dir)
	} else {
		// Swap accounting exists only on some kernels; when it does, cap swap too.
		sw := filepath.Join(dir, "memory.memsw.limit_in_bytes")
		if _, err := os.Stat(sw); err == nil {
			_ = writeFile(sw, strconv.FormatInt(memBytes, 10))
		}
		cg.memory = dir
	}
	return cg, warn
}

func makeCgroupDir(controller, name string) (string, error) {
	base := filepath.Join(cgroupRoot, controller)
	if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil {
		return "", fmt.Errorf("cgroup v1 %s controller not mounted at %s", controller, base)
	}
	dir := filepath.Join(base, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("make %s: %w", dir, err)
	}
	return dir, nil
}

func writeFile(path, value string) error {
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// add moves pid (and its future children) into the cgroup.
func (c *cgroup) add(pid int) error {
	var errs []error
	for _, dir := range []string{c.pids, c.memory} {
		if dir != "" {
			if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// procs lists the processes in the cgroup (from the pids controller, else memory).
func (c *cgroup) procs() ([]int, error) {
	dir := c.pids
	if dir == "" {
		dir = c.memory
	}
	if dir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("read cgroup procs: %w", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids, nil
}

// killAll sends SIGKILL to every process in the cgroup until it is empty or
// the deadline passes.
func (c *cgroup) killAll(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := c.procs()
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// remove kills what is left and removes the cgroup folders.
func (c *cgroup) remove() error {
	c.killAll(2 * time.Second)
	var errs []error
	for _, dir := range []string{c.pids, c.memory} {
		if dir == "" {
			continue
		}
		var err error
		for i := 0; i < 100; i++ {
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove cgroup: %w", err))
		}
	}
	return errors.Join(errs...)
}

// limitsInForce reports the limits the kernel holds for this cgroup.
func (c *cgroup) limitsInForce() (pidsMax string, memLimit string) {
	if c.pids != "" {
		if b, err := os.ReadFile(filepath.Join(c.pids, "pids.max")); err == nil {
			pidsMax = strings.TrimSpace(string(b))
		}
	}
	if c.memory != "" {
		if b, err := os.ReadFile(filepath.Join(c.memory, "memory.limit_in_bytes")); err == nil {
			memLimit = strings.TrimSpace(string(b))
		}
	}
	return pidsMax, memLimit
}
