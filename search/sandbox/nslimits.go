package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"triage/corpus"
)

// Limits without cgroups. Where the workers' cgroups cannot be made (an
// account without privilege; a pod that is not privileged, whose
// /sys/fs/cgroup is read-only), a run's memory and processes are still
// bounded when every layer of namespacedLimits holds: the run's own uid
// (RLIMIT_NPROC counts processes per uid, so one run's count is its own),
// the rlimits (address space, processes, CPU, file size), the memory
// accounting of memwatch.go, and the pid, net and mount namespaces with the
// read-only root and the size-capped tmpfs (nothing outside to write to or
// reach). The CPU limit (the worker reads the run's CPU clock) and the
// wall-clock backstop (outerGrace) hold either way. LimitsRequire accepts
// that set in place of the cgroups.

// cgroupLimits are the layers that bound a worker with cgroups.
var cgroupLimits = []string{"cgroup-pids", "cgroup-memory"}

// namespacedLimits are the layers that bound a run without cgroups.
var namespacedLimits = []string{"uid-drop", "rlimits", "memory-accounting", "pidns", "netns", "mountns", "readonly-root", "private-tmpfs"}

// PodCapabilities are the capabilities, as a Kubernetes pod spec names them,
// that the sandbox needs where it runs as root of a user namespace of the
// pod's own (hostUsers: false) and all others are dropped: SYS_ADMIN for the
// workers' namespaces, mounts and pivot_root, SETUID and SETGID for the
// drop to each run's uid, KILL for killing what a run left (processes of
// another uid), DAC_OVERRIDE for writing into the run folder (a tmpfs of
// the run's uid, mode 0700), CHOWN for giving the program process its own
// folder inside the judge's root-owned run folder (and tmp_path), SYS_PTRACE for reading the runs' proportional
// memory (memwatch.go). In a user namespace each holds only over what that
// namespace owns. docs/deploy.md says more; TestUnprivilegedSandbox runs
// the hostile-program suites with this bounding set.
var PodCapabilities = []string{"SYS_ADMIN", "SETUID", "SETGID", "KILL", "DAC_OVERRIDE", "CHOWN", "SYS_PTRACE"}

// errBadUIDBase means Options.UIDBase names uids this process cannot set.
var errBadUIDBase = errors.New("the runs' uids cannot be set")

// minSubIDs is the least number of subordinate ids an account needs for
// workers in user namespaces of their own: room above lowestRunUID for a
// block of uids.
const minSubIDs = lowestRunUID + 64 + 2

// memLimitBytes is the most memory one worker's runs may hold: the run's
// address space, its tmpfs and the worker's own share (the cgroup's
// memory limit, and the memory accounting's where there is no cgroup).
func memLimitBytes(o Options) int64 {
	return int64(o.MemoryMB+o.TmpfsMB+256) << 20
}

// runUIDs decides the uids runs drop to, sets p.opts.UIDBase (when zero)
// and, for an account without privilege, p.uns; it returns how a worker's
// uid is seen from this process, or nil when runs cannot get uids of their
// own (then err says why).
func (p *Pool) runUIDs(seq int64) (toHost func(int) int, err error) {
	o := &p.opts
	if o.NoIsolation {
		return nil, nil
	}
	ranges := []idRange{{Inside: 0, Outside: 0, Count: maxID}}
	toHost = func(u int) int { return u }
	if os.Geteuid() == 0 {
		// Root of a user namespace (a pod with hostUsers: false) can set
		// only the uids its map holds.
		if data, err := os.ReadFile(selfUIDMapFile); err == nil {
			if ranges, err = parseIDMap(string(data)); err != nil {
				return nil, fmt.Errorf("%s: %w", selfUIDMapFile, err)
			}
		}
	} else {
		uns, err := detectUserNS(minSubIDs)
		if err != nil {
			return nil, err
		}
		p.uns = uns
		ranges = uns.insideRanges()
		toHost = uns.outsideUID
	}
	if o.UIDBase > 0 {
		if !covers(ranges, int64(o.UIDBase), int64(o.UIDBase+o.Workers)) {
			return nil, fmt.Errorf("%w: uids %d-%d are not all mapped here (mapped: %s)", errBadUIDBase, o.UIDBase, o.UIDBase+o.Workers-1, formatRanges(ranges))
		}
		return toHost, nil
	}
	base, err := chooseUIDBase(ranges, int64(os.Getpid()), seq, o.Workers)
	if err != nil {
		return nil, err
	}
	o.UIDBase = base
	return toHost, nil
}

// checkNamespacedLimits is checkLimits for a pool whose runs have uids of
// their own and the memory accounting: without the cgroups, policy
// LimitsRequire accepts the pool when its workers have every layer of
// namespacedLimits (prot: the pool's protections).
func checkNamespacedLimits(policy LimitsPolicy, cg *cgroup, prot []string, warn []string) error {
	if cg != nil && cg.pids != "" && cg.memory != "" {
		return nil
	}
	var missing []string
	for _, l := range namespacedLimits {
		if !slices.Contains(prot, l) {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		slog.Info("sandbox: memory and process limits without cgroups", "layers", namespacedLimits, "cgroups", strings.Join(warn, "; "))
		return nil
	}
	if policy != LimitsRequire {
		return nil
	}
	reason := strings.Join(warn, "; ")
	if reason == "" {
		reason = "no cgroup"
	}
	return corpus.FieldErrorf("%w: %s; and without cgroups the layers %s are missing (in a container: a user namespace with a mapped uid range, CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and a seccomp and AppArmor profile that allow mount, unshare and pivot_root, see docs/deploy.md; or accept running without them: {Limits} warn)",
		ErrNoLimits, reason, strings.Join(missing, ", "))
}

// removeCgroups removes the workers' cgroups and the pool's folder of them.
func (p *Pool) removeCgroups() {
	for _, s := range p.all {
		if s.cg != nil {
			_ = s.cg.remove()
		}
	}
	if len(p.all) > 0 && p.all[0].cg != nil {
		for _, d := range p.all[0].cg.dirs() {
			_ = os.Remove(filepath.Dir(d))
		}
	}
}
