package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
)

// How runs get uids of their own (one per worker, so that RLIMIT_NPROC, which
// the kernel counts per uid, bounds each run's processes alone):
//
//   - as root of the initial user namespace, any uid: a block of 64 from
//     100000 on, picked from the process id so that pools of different
//     processes do not share counts;
//   - as root of a user namespace with a mapped range (a Kubernetes pod with
//     hostUsers: false maps 65536 uids), a block inside that range, read from
//     /proc/self/uid_map: a uid outside it cannot be set;
//   - as an account without privilege that has subordinate uids and gids
//     (/etc/subuid, /etc/subgid) and Debian's uidmap (newuidmap, newgidmap),
//     each worker starts in a user namespace of its own where it is root,
//     with the account's range mapped from uid 1 on: the worker is root
//     there (namespaces, mounts, the uid drop) and nowhere else.

// idRange is one line of /proc/PID/uid_map or gid_map: Count ids from
// Inside (in the namespace) map to Outside (in its parent).
type idRange struct {
	Inside, Outside, Count int64
}

// selfUIDMapFile is this process's uid map (tests replace it).
var selfUIDMapFile = "/proc/self/uid_map"

// subIDFiles are the subordinate uid and gid files (tests replace them).
var subIDFiles = [2]string{"/etc/subuid", "/etc/subgid"}

// maxID is the largest id a map can hold (uid_map counts are 32-bit and
// (uid_t)-1 is never a valid id).
const maxID = 1<<32 - 1

// parseIDMap reads the text of a uid_map or gid_map: lines of three
// numbers, each range within 32 bits.
func parseIDMap(text string) ([]idRange, error) {
	var out []idRange
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("id map line %d %q: want inside, outside and count", i+1, line)
		}
		var n [3]int64
		for j, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < 0 || v > maxID {
				return nil, fmt.Errorf("id map line %d %q: %q is not an id", i+1, line, s)
			}
			n[j] = v
		}
		r := idRange{Inside: n[0], Outside: n[1], Count: n[2]}
		if r.Count == 0 || r.Inside+r.Count > maxID || r.Outside+r.Count > maxID {
			return nil, fmt.Errorf("id map line %d %q: range out of bounds", i+1, line)
		}
		out = append(out, r)
	}
	return out, nil
}

// parseSubIDs reads the text of /etc/subuid or /etc/subgid and returns the
// ranges of the account (lines "owner:first:count" whose owner is name or
// the numeric id), as Inside 0 ranges of Outside first.
func parseSubIDs(text, name string, id int) ([]idRange, error) {
	var out []idRange
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d %q: want owner:first:count", i+1, line)
		}
		if f[0] != name && f[0] != strconv.Itoa(id) {
			continue
		}
		first, err1 := strconv.ParseInt(f[1], 10, 64)
		count, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || first < 0 || count <= 0 || first+count > maxID {
			return nil, fmt.Errorf("line %d %q: not a range of ids", i+1, line)
		}
		out = append(out, idRange{Outside: first, Count: count})
	}
	return out, nil
}

// uidBlock is the number of uids a pool takes at least: one per worker,
// in blocks of 64.
func uidBlock(workers int) int64 {
	return int64((workers + 63) / 64 * 64)
}

// rootUIDRangeLow and rootUIDBlocks are where root of the initial user
// namespace picks its runs' uids: 40000 blocks from 100000 on.
const (
	rootUIDRangeLow = 100000
	rootUIDBlocks   = 40000
	// lowestRunUID keeps runs off the ids a system's own accounts use.
	lowestRunUID = 1000
)

// chooseUIDBase picks the first uid of a pool of workers from the ids that
// can be set (ranges: inside ids of this process's uid map, or a worker
// namespace's), spread by pid and seq (a process's pool count) so that
// pools of different processes do not share RLIMIT_NPROC counts.
func chooseUIDBase(ranges []idRange, pid, seq int64, workers int) (int, error) {
	block := uidBlock(workers)
	spread := pid*7 + seq*131
	// The whole id space mapped (root of the initial namespace): the
	// historical choice.
	if covers(ranges, rootUIDRangeLow, rootUIDRangeLow+rootUIDBlocks*64+block) {
		return int(rootUIDRangeLow + (spread%rootUIDBlocks)*64), nil
	}
	var best idRange
	for _, r := range ranges {
		if r.Count > best.Count {
			best = r
		}
	}
	lo := max(best.Inside, lowestRunUID)
	// The top two ids of a 16-bit range are nobody's and (uid_t)-1's.
	hi := best.Inside + best.Count - 2
	n := (hi - lo) / block
	if n < 1 {
		return 0, fmt.Errorf("the uids this process can set (%s) leave no room for %d workers' own uids from %d on", formatRanges(ranges), workers, lowestRunUID)
	}
	return int(lo + (spread%n)*block), nil
}

// covers reports whether ranges hold every inside id in [lo, hi).
func covers(ranges []idRange, lo, hi int64) bool {
	for _, r := range ranges {
		if r.Inside <= lo && hi <= r.Inside+r.Count {
			return true
		}
	}
	return false
}

func formatRanges(ranges []idRange) string {
	var parts []string
	for _, r := range ranges {
		parts = append(parts, fmt.Sprintf("%d-%d", r.Inside, r.Inside+r.Count-1))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// userNS is how an account without privilege gives each worker a user
// namespace of its own: newuidmap and newgidmap map root of the namespace
// to the account and ids 1..Count to the account's subordinate ranges.
type userNS struct {
	newuidmap, newgidmap string
	uid, gid             int   // the account's, outside
	subUID, subGID       int64 // the first subordinate ids
	count                int64 // ids mapped from 1 on (the smaller range)
}

// errUserNSStart means a worker could not be started in a user namespace
// of its own (the id maps could not be written).
var errUserNSStart = errors.New("start worker in a user namespace")

// errNoUserNS explains why workers cannot get user namespaces here.
var errNoUserNS = errors.New("no user namespaces with a mapped uid range")

// detectUserNS finds what an account without privilege needs for workers
// in user namespaces of their own: newuidmap and newgidmap, and
// subordinate uid and gid ranges of at least minCount ids.
func detectUserNS(minCount int64) (*userNS, error) {
	u := &userNS{uid: os.Geteuid(), gid: os.Getegid()}
	var err error
	for _, p := range []*string{&u.newuidmap, &u.newgidmap} {
		name := "newuidmap"
		if p == &u.newgidmap {
			name = "newgidmap"
		}
		if *p, err = exec.LookPath(name); err != nil {
			return nil, fmt.Errorf("%w: %s not found (Debian's uidmap package)", errNoUserNS, name)
		}
	}
	acct, err := user.LookupId(strconv.Itoa(u.uid))
	if err != nil {
		return nil, fmt.Errorf("%w: uid %d has no account name: %v", errNoUserNS, u.uid, err)
	}
	var firsts [2]int64
	counts := [2]int64{}
	for i, file := range subIDFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errNoUserNS, err)
		}
		id := u.uid
		if i == 1 {
			id = u.gid
		}
		ranges, err := parseSubIDs(string(data), acct.Username, id)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errNoUserNS, file, err)
		}
		for _, r := range ranges {
			if r.Count > counts[i] {
				firsts[i], counts[i] = r.Outside, r.Count
			}
		}
		if counts[i] < minCount {
			return nil, fmt.Errorf("%w: %s gives %s %d ids, want at least %d", errNoUserNS, file, acct.Username, counts[i], minCount)
		}
	}
	u.subUID, u.subGID = firsts[0], firsts[1]
	u.count = min(counts[0], counts[1])
	return u, nil
}

// insideRanges are the ids a worker's namespace maps, as chooseUIDBase
// reads them (root, 0, is the account itself and is never a run's).
func (u *userNS) insideRanges() []idRange {
	return []idRange{{Inside: 1, Outside: u.subUID, Count: u.count}}
}

// outsideUID is the uid outside the namespaces that a worker's inside uid
// (1..count) is.
func (u *userNS) outsideUID(inside int) int {
	return int(u.subUID) + inside - 1
}

// mapIDs writes the uid and gid maps of the process pid, which was started
// in a new user namespace and waits for them.
func (u *userNS) mapIDs(pid int) error {
	p := strconv.Itoa(pid)
	for _, m := range []struct {
		prog       string
		own, first int64
	}{{u.newuidmap, int64(u.uid), u.subUID}, {u.newgidmap, int64(u.gid), u.subGID}} {
		args := []string{p, "0", strconv.FormatInt(m.own, 10), "1", "1", strconv.FormatInt(m.first, 10), strconv.FormatInt(u.count, 10)}
		if out, err := exec.Command(m.prog, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w: %s", m.prog, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// userNSShim runs in the worker's new user namespace before the worker: it
// waits until the parent has written the id maps (a byte on fd 5), then
// executes the worker, which so becomes root of the namespace with its
// capabilities there (a process gains them at execve once its uid is
// mapped to 0).
const userNSShim = `read -r _ <&5 || exit 111; exec 5<&-; exec "$0" "$@"`
