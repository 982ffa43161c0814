package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"triage/corpus"
)

// cgroupRoot is where cgroups are mounted: the v1 hierarchies in folders
// named after their controllers, or the v2 unified hierarchy itself.
var cgroupRoot = "/sys/fs/cgroup"

// selfCgroupFile names this process's cgroups ("0::/path" on v2).
var selfCgroupFile = "/proc/self/cgroup"

// cgfs is the file system the cgroup code reads and writes; tests replace
// it with a fake kernel.
var cgfs cgroupFS = osCgroupFS{}

// cgroupFS is what the cgroup code needs of the file system.
type cgroupFS interface {
	ReadFile(path string) ([]byte, error)
	// WriteFile writes value to an existing file (cgroup files are never
	// created by writing).
	WriteFile(path, value string) error
	// Mkdir makes one folder; one that exists is not an error.
	Mkdir(path string) error
	Remove(path string) error
	// Dirs lists the sub-folders of path.
	Dirs(path string) ([]string, error)
}

type osCgroupFS struct{}

func (osCgroupFS) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

func (osCgroupFS) WriteFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (osCgroupFS) Mkdir(path string) error {
	if err := os.Mkdir(path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

func (osCgroupFS) Remove(path string) error { return os.Remove(path) }

func (osCgroupFS) Dirs(path string) ([]string, error) {
	entries, err := os.ReadDir(path)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, err
}

// cgroup is one worker's cgroup: on v1 a folder in the pids and one in the
// memory hierarchy, on v2 one folder of the unified hierarchy (pids and
// memory then name it twice). A part whose limit could not be set is "".
type cgroup struct {
	pids   string
	memory string
	v2     bool
}

// cgroupV2 reports whether cgroupRoot is the v2 unified hierarchy (on a
// hybrid host, with v2 mounted at cgroupRoot/unified, the controllers are
// v1's and so is the sandbox).
func cgroupV2() bool {
	_, err := cgfs.ReadFile(filepath.Join(cgroupRoot, "cgroup.controllers"))
	return err == nil
}

// newCgroup makes the cgroup name (a relative path) and sets its memory
// and process limits, on v1 or v2, whichever cgroupRoot holds. Limits that
// cannot be set are reported in warn and left out.
func newCgroup(name string, memBytes int64, maxPids int) (cg *cgroup, warn []string) {
	if cgroupV2() {
		return newCgroupV2(name, memBytes, maxPids)
	}
	cg = &cgroup{}
	if dir, err := makeCgroupDir("pids", name); err != nil {
		warn = append(warn, fmt.Sprintf("pids cgroup: %v", err))
	} else if err := writeFile(filepath.Join(dir, "pids.max"), strconv.Itoa(maxPids)); err != nil {
		warn = append(warn, fmt.Sprintf("pids cgroup: %v", err))
		_ = cgfs.Remove(dir)
	} else {
		cg.pids = dir
	}
	if dir, err := makeCgroupDir("memory", name); err != nil {
		warn = append(warn, fmt.Sprintf("memory cgroup: %v", err))
	} else if err := writeFile(filepath.Join(dir, "memory.limit_in_bytes"), strconv.FormatInt(memBytes, 10)); err != nil {
		warn = append(warn, fmt.Sprintf("memory cgroup: %v", err))
		_ = cgfs.Remove(dir)
	} else {
		// Swap accounting exists only on some kernels; when it does, cap swap too.
		sw := filepath.Join(dir, "memory.memsw.limit_in_bytes")
		if _, err := cgfs.ReadFile(sw); err == nil {
			_ = writeFile(sw, strconv.FormatInt(memBytes, 10))
		}
		cg.memory = dir
	}
	return cg, warn
}

func makeCgroupDir(controller, name string) (string, error) {
	base := filepath.Join(cgroupRoot, controller)
	if _, err := cgfs.ReadFile(filepath.Join(base, "cgroup.procs")); err != nil {
		return "", fmt.Errorf("cgroup v1 %s controller not mounted at %s (and %s is not a cgroup v2 hierarchy)", controller, base, cgroupRoot)
	}
	dir := base
	for _, part := range strings.Split(filepath.Clean(name), string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		if err := cgfs.Mkdir(dir); err != nil {
			return "", fmt.Errorf("make %s: %w", dir, err)
		}
	}
	return dir, nil
}

// v2Controllers are the controllers a worker's v2 cgroup needs.
var v2Controllers = []string{"memory", "pids"}

// v2LeafName is the leaf this process moves itself into when its own v2
// cgroup must hand controllers down (the no-internal-process rule: a
// cgroup other than the root that enables controllers for its children
// holds no process itself).
const v2LeafName = "triage-main"

// v2Base is the cgroup (a folder) below which pools make theirs: this
// process's own v2 cgroup at the first pool, with memory and pids enabled
// for its children; it never changes afterwards, even though the process
// may have moved itself into v2LeafName below it.
var v2Base struct {
	once sync.Once
	dir  string
	err  error
}

// resetV2Base forgets v2Base (tests with a fake kernel).
func resetV2Base() {
	v2Base.once = sync.Once{}
	v2Base.dir, v2Base.err = "", nil
}

// cgroupV2Base returns v2Base, setting it up at the first call.
func cgroupV2Base() (string, error) {
	v2Base.once.Do(func() { v2Base.dir, v2Base.err = setupV2Base() })
	return v2Base.dir, v2Base.err
}

// setupV2Base finds this process's v2 cgroup and enables memory and pids in
// its cgroup.subtree_control, first moving this process into a leaf of its
// own when the kernel refuses because the cgroup holds processes.
func setupV2Base() (string, error) {
	data, err := cgfs.ReadFile(selfCgroupFile)
	if err != nil {
		return "", fmt.Errorf("cgroup v2: %w", err)
	}
	own := ""
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			own = p
		}
	}
	if own == "" {
		return "", fmt.Errorf("cgroup v2: no unified-hierarchy line (0::) in %s", selfCgroupFile)
	}
	dir := filepath.Join(cgroupRoot, own)
	if filepath.Base(dir) == v2LeafName { // moved there by an earlier run of this program
		dir = filepath.Dir(dir)
	}
	avail, err := cgfs.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return "", fmt.Errorf("cgroup v2: this process's cgroup %s: %w", dir, err)
	}
	if missing := missingControllers(string(avail)); len(missing) > 0 {
		return "", fmt.Errorf("cgroup v2: controllers %s are not available in %s (cgroup.controllers %q): the parent cgroup must delegate them (on a host: systemd-run -p Delegate=yes; under cgroup v1 bindings they cannot be enabled)",
			strings.Join(missing, ", "), dir, strings.TrimSpace(string(avail)))
	}
	err = enableControllers(dir)
	if errors.Is(err, syscall.EBUSY) {
		leaf := filepath.Join(dir, v2LeafName)
		if err := cgfs.Mkdir(leaf); err != nil {
			return "", fmt.Errorf("cgroup v2: make %s: %w", leaf, err)
		}
		if err := cgfs.WriteFile(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			return "", fmt.Errorf("cgroup v2: move this process into %s: %w", leaf, err)
		}
		err = enableControllers(dir)
		if errors.Is(err, syscall.EBUSY) {
			others, _ := cgfs.ReadFile(filepath.Join(dir, "cgroup.procs"))
			return "", fmt.Errorf("cgroup v2: %s still holds other processes (%s) after this one moved to %s, so it cannot hand memory and pids to the sandbox: run triage as the container's only process, or in a cgroup of its own",
				dir, strings.Join(strings.Fields(string(others)), " "), v2LeafName)
		}
	}
	if err != nil {
		return "", fmt.Errorf("cgroup v2: %w", err)
	}
	return dir, nil
}

// missingControllers lists the v2Controllers not in a cgroup.controllers or
// cgroup.subtree_control text.
func missingControllers(list string) []string {
	have := map[string]bool{}
	for _, c := range strings.Fields(list) {
		have[c] = true
	}
	var missing []string
	for _, c := range v2Controllers {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	return missing
}

// enableControllers enables v2Controllers for the children of dir, unless
// they are already.
func enableControllers(dir string) error {
	path := filepath.Join(dir, "cgroup.subtree_control")
	cur, err := cgfs.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	missing := missingControllers(string(cur))
	if len(missing) == 0 {
		return nil
	}
	if err := cgfs.WriteFile(path, "+"+strings.Join(missing, " +")); err != nil {
		return fmt.Errorf("enable %s in %s: %w", strings.Join(missing, ", "), path, err)
	}
	return nil
}

// newCgroupV2 makes name below the v2 base, with memory and pids enabled
// on the way down, and sets memory.max, memory.swap.max (no swap, as v1's
// memsw limit) where the kernel has it, and pids.max.
func newCgroupV2(name string, memBytes int64, maxPids int) (*cgroup, []string) {
	cg := &cgroup{v2: true}
	fail := func(err error) (*cgroup, []string) {
		return cg, []string{fmt.Sprintf("pids and memory cgroup: %v", err)}
	}
	dir, err := cgroupV2Base()
	if err != nil {
		return fail(err)
	}
	parts := strings.Split(filepath.Clean(name), string(filepath.Separator))
	for i, part := range parts {
		dir = filepath.Join(dir, part)
		if err := cgfs.Mkdir(dir); err != nil {
			return fail(fmt.Errorf("cgroup v2: make %s: %w", dir, err))
		}
		if i < len(parts)-1 {
			if err := enableControllers(dir); err != nil {
				return fail(fmt.Errorf("cgroup v2: %w", err))
			}
		}
	}
	var warn []string
	if err := writeFile(filepath.Join(dir, "pids.max"), strconv.Itoa(maxPids)); err != nil {
		warn = append(warn, fmt.Sprintf("pids cgroup: %v", err))
	} else {
		cg.pids = dir
	}
	if err := writeFile(filepath.Join(dir, "memory.max"), strconv.FormatInt(memBytes, 10)); err != nil {
		warn = append(warn, fmt.Sprintf("memory cgroup: %v", err))
	} else {
		cg.memory = dir
		sw := filepath.Join(dir, "memory.swap.max") // absent without swap accounting
		if _, err := cgfs.ReadFile(sw); err == nil {
			_ = writeFile(sw, "0")
		}
	}
	if cg.pids == "" && cg.memory == "" {
		_ = cgfs.Remove(dir)
	}
	return cg, warn
}

func writeFile(path, value string) error {
	if err := cgfs.WriteFile(path, value); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// dirs lists the cgroup's folders, each once.
func (c *cgroup) dirs() []string {
	var out []string
	for _, d := range []string{c.pids, c.memory} {
		if d != "" && (len(out) == 0 || out[0] != d) {
			out = append(out, d)
		}
	}
	return out
}

// add moves pid (and its future children) into the cgroup.
func (c *cgroup) add(pid int) error {
	var errs []error
	for _, dir := range c.dirs() {
		if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// procs lists the processes in the cgroup (from the pids controller, else memory).
func (c *cgroup) procs() ([]int, error) {
	dirs := c.dirs()
	if len(dirs) == 0 {
		return nil, nil
	}
	data, err := cgfs.ReadFile(filepath.Join(dirs[0], "cgroup.procs"))
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

// killAll kills every process in the cgroup (at once with cgroup.kill on
// v2 kernels that have it, else by SIGKILL to each) until it is empty or the
// deadline passes.
func (c *cgroup) killAll(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	byFile := c.v2 && len(c.dirs()) > 0 && cgfs.WriteFile(filepath.Join(c.dirs()[0], "cgroup.kill"), "1") == nil
	for {
		pids, err := c.procs()
		if err != nil || len(pids) == 0 {
			return
		}
		if !byFile {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
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
	for _, dir := range c.dirs() {
		var err error
		for i := 0; i < 100; i++ {
			if err = cgfs.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
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
		if b, err := cgfs.ReadFile(filepath.Join(c.pids, "pids.max")); err == nil {
			pidsMax = strings.TrimSpace(string(b))
		}
	}
	if c.memory != "" {
		file := "memory.limit_in_bytes"
		if c.v2 {
			file = "memory.max"
		}
		if b, err := cgfs.ReadFile(filepath.Join(c.memory, file)); err == nil {
			memLimit = strings.TrimSpace(string(b))
		}
	}
	return pidsMax, memLimit
}

// ErrNoLimits is returned by New when the workers' memory and process
// limits cannot be set up (neither cgroup memory and pids nor, without
// them, the set of nslimits.go) and Options.Limits is LimitsRequire; the
// message says why.
var ErrNoLimits = errors.New("sandbox: the memory and process limits cannot be set up")

// LimitsPolicy says what New does when the memory and process limits of
// its workers cannot be set up.
type LimitsPolicy string

// Limits policies. Options' zero value is LimitsWarn, as before; the CLI
// asks for LimitsRequire unless told otherwise.
const (
	LimitsWarn    LimitsPolicy = "warn"    // run without them, with a slog warning
	LimitsRequire LimitsPolicy = "require" // refuse: New returns an error wrapping ErrNoLimits
)

// ParseLimitsPolicy reads a limits policy by name: require or warn.
func ParseLimitsPolicy(s string) (LimitsPolicy, error) {
	switch p := LimitsPolicy(s); p {
	case LimitsWarn, LimitsRequire:
		return p, nil
	}
	return "", corpus.FieldErrorf("{Limits} %q: want require or warn", s)
}

// checkLimits returns an error wrapping ErrNoLimits when cg lacks a limit
// and the policy requires them; warn holds what newCgroup reported.
func checkLimits(policy LimitsPolicy, cg *cgroup, warn []string) error {
	if policy != LimitsRequire || (cg != nil && cg.pids != "" && cg.memory != "") {
		return nil
	}
	reason := strings.Join(warn, "; ")
	if reason == "" {
		reason = "no cgroup"
	}
	return corpus.FieldErrorf("%w: %s (run as root where cgroup v1, or cgroup v2 with memory and pids delegated, is writable; or where runs can get uids of their own to bound them without cgroups: root of a user namespace with a mapped uid range, or an account with subordinate ids and newuidmap; in a container see docs/deploy.md; or accept running without them: {Limits} warn)", ErrNoLimits, reason)
}
