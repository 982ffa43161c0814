package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeV2 is a cgroup v2 kernel in memory: folders made by Mkdir get the
// interface files of the controllers their parent enables; it enforces
// the rules the sandbox must follow (a controller is enabled only where
// the parent offers it, and a cgroup other than the root that hands
// controllers down holds no process: EBUSY either way round).
type fakeV2 struct {
	root   string
	groups map[string]*fakeGroup
	where  map[int]string // pid → cgroup folder
	swap   bool           // memory.swap.max exists
	self   int
	writes []string // "path=value", in order
}

type fakeGroup struct {
	controllers []string // offered (cgroup.controllers)
	subtree     []string // enabled for children (cgroup.subtree_control)
	files       map[string]string
}

func newFakeV2(root string, offered []string, swap bool) *fakeV2 {
	k := &fakeV2{root: root, groups: map[string]*fakeGroup{}, where: map[int]string{}, swap: swap, self: os.Getpid()}
	k.groups[root] = &fakeGroup{controllers: offered, files: map[string]string{}}
	return k
}

// container makes path (below root) a container's cgroup holding pids,
// this process first; the root offers memory and pids to it.
func (k *fakeV2) container(path string, pids ...int) {
	dir := k.root
	for _, part := range strings.Split(path, "/") {
		k.groups[dir].subtree = k.groups[dir].controllers
		dir = filepath.Join(dir, part)
		if err := k.Mkdir(dir); err != nil {
			panic(err)
		}
	}
	for _, p := range pids {
		k.where[p] = filepath.Join(k.root, path)
	}
}

func (k *fakeV2) procsOf(dir string) []int {
	var out []int
	for p, d := range k.where {
		if d == dir {
			out = append(out, p)
		}
	}
	sort.Ints(out)
	return out
}

func pathErr(op, path string, err error) error { return &fs.PathError{Op: op, Path: path, Err: err} }

func (k *fakeV2) ReadFile(path string) ([]byte, error) {
	if path == selfCgroupFile {
		rel, _ := filepath.Rel(k.root, k.where[k.self])
		return []byte("0::" + filepath.Join("/", rel) + "\n"), nil
	}
	g := k.groups[filepath.Dir(path)]
	if g == nil {
		return nil, pathErr("open", path, fs.ErrNotExist)
	}
	switch filepath.Base(path) {
	case "cgroup.controllers":
		return []byte(strings.Join(g.controllers, " ") + "\n"), nil
	case "cgroup.subtree_control":
		return []byte(strings.Join(g.subtree, " ") + "\n"), nil
	case "cgroup.procs":
		var b strings.Builder
		for _, p := range k.procsOf(filepath.Dir(path)) {
			b.WriteString(strconv.Itoa(p) + "\n")
		}
		return []byte(b.String()), nil
	}
	if v, ok := g.files[filepath.Base(path)]; ok {
		return []byte(v), nil
	}
	return nil, pathErr("open", path, fs.ErrNotExist)
}

func (k *fakeV2) WriteFile(path, value string) error {
	dir := filepath.Dir(path)
	g := k.groups[dir]
	if g == nil {
		return pathErr("open", path, fs.ErrNotExist)
	}
	switch filepath.Base(path) {
	case "cgroup.subtree_control":
		for _, f := range strings.Fields(value) {
			c := strings.TrimPrefix(f, "+")
			if !slices.Contains(g.controllers, c) {
				return pathErr("write", path, syscall.ENOENT)
			}
			if dir != k.root && len(k.procsOf(dir)) > 0 {
				return pathErr("write", path, syscall.EBUSY)
			}
			if !slices.Contains(g.subtree, c) {
				g.subtree = append(g.subtree, c)
			}
		}
		return nil
	case "cgroup.procs":
		if dir != k.root && len(g.subtree) > 0 {
			return pathErr("write", path, syscall.EBUSY)
		}
		pid, err := strconv.Atoi(value)
		if err != nil {
			return pathErr("write", path, syscall.EINVAL)
		}
		k.where[pid] = dir
		return nil
	case "cgroup.kill":
		for _, p := range k.procsOf(dir) {
			delete(k.where, p)
		}
		return nil
	}
	if _, ok := g.files[filepath.Base(path)]; !ok {
		return pathErr("open", path, fs.ErrNotExist) // cgroup files are never created by writing
	}
	g.files[filepath.Base(path)] = value
	return nil
}

func (k *fakeV2) Mkdir(path string) error {
	if k.groups[path] != nil {
		return nil
	}
	parent := k.groups[filepath.Dir(path)]
	if parent == nil {
		return pathErr("mkdir", path, fs.ErrNotExist)
	}
	g := &fakeGroup{controllers: slices.Clone(parent.subtree), files: map[string]string{"cgroup.kill": ""}}
	for _, c := range g.controllers {
		switch c {
		case "memory":
			g.files["memory.max"] = "max"
			if k.swap {
				g.files["memory.swap.max"] = "max"
			}
		case "pids":
			g.files["pids.max"] = "max"
		}
	}
	k.groups[path] = g
	return nil
}

func (k *fakeV2) Remove(path string) error {
	if k.groups[path] == nil {
		return pathErr("remove", path, fs.ErrNotExist)
	}
	kids, _ := k.Dirs(path)
	if len(kids) > 0 || len(k.procsOf(path)) > 0 {
		return pathErr("remove", path, syscall.EBUSY)
	}
	delete(k.groups, path)
	return nil
}

func (k *fakeV2) Dirs(path string) ([]string, error) {
	if k.groups[path] == nil {
		return nil, pathErr("open", path, fs.ErrNotExist)
	}
	var out []string
	for d := range k.groups {
		if filepath.Dir(d) == path && d != path {
			out = append(out, filepath.Base(d))
		}
	}
	sort.Strings(out)
	return out, nil
}

// useFake points the cgroup code at k (and cgroupRoot at k.root) for the
// rest of the test.
func useFake(t *testing.T, k cgroupFS, root string) {
	oldFS, oldRoot := cgfs, cgroupRoot
	cgfs, cgroupRoot = k, root
	resetV2Base()
	t.Cleanup(func() {
		cgfs, cgroupRoot = oldFS, oldRoot
		resetV2Base()
	})
}

// TestCgroupV2 drives newCgroup on a fake v2 kernel: a Kubernetes-style
// container whose cgroup holds this process (it must move itself into a
// leaf before handing memory and pids down), a systemd-style delegated
// cgroup that already hands them down, and cgroups that cannot give the
// limits, each with the reason.
func TestCgroupV2(t *testing.T) {
	const mem, pids = 1 << 30, 64
	self := os.Getpid()
	for _, tc := range []struct {
		name      string
		setup     func(k *fakeV2)
		offered   []string
		swap      bool
		wantLimit bool
		wantSelf  string // where this process ends up (relative to root)
		warn      string
	}{
		{name: "container root holds this process", offered: []string{"cpu", "memory", "pids"}, swap: true,
			setup: func(k *fakeV2) { k.container("pod/ctr", self) }, wantLimit: true, wantSelf: "/pod/ctr/" + v2LeafName},
		{name: "no swap accounting", offered: []string{"memory", "pids"},
			setup: func(k *fakeV2) { k.container("pod/ctr", self) }, wantLimit: true, wantSelf: "/pod/ctr/" + v2LeafName},
		{name: "delegated and already handing down", offered: []string{"memory", "pids"}, swap: true,
			setup: func(k *fakeV2) {
				k.container("svc", self)
				leaf := filepath.Join(k.root, "svc", v2LeafName)
				_ = k.Mkdir(leaf)
				k.where[self] = leaf
				k.groups[filepath.Join(k.root, "svc")].subtree = []string{"memory", "pids"}
			}, wantLimit: true, wantSelf: "/svc/" + v2LeafName},
		{name: "another process shares the cgroup", offered: []string{"memory", "pids"},
			setup: func(k *fakeV2) { k.container("pod/ctr", self, 1) }, warn: "still holds other processes (1)"},
		{name: "pids not delegated", offered: []string{"memory"},
			setup: func(k *fakeV2) { k.container("pod/ctr", self) }, warn: "controllers pids are not available"},
		{name: "controllers bound to v1", offered: []string{"hugetlb"},
			setup: func(k *fakeV2) { k.container("ctr", self) }, warn: "controllers memory, pids are not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := "/fake/cgroup"
			k := newFakeV2(root, tc.offered, tc.swap)
			k.groups[root].files["cgroup.controllers"] = "" // v2 at the mount point
			tc.setup(k)
			useFake(t, k, root)
			if !cgroupV2() {
				t.Fatal("the fake root is not seen as cgroup v2")
			}
			cg, warn := newCgroup("triage-sandbox/1-1/w0", mem, pids)
			err := checkLimits(LimitsRequire, cg, warn)
			if tc.warn != "" {
				if err == nil || !errors.Is(err, ErrNoLimits) || !strings.Contains(err.Error(), tc.warn) {
					t.Fatalf("warn %q, checkLimits %v; want ErrNoLimits with %q", warn, err, tc.warn)
				}
				if checkLimits(LimitsWarn, cg, warn) != nil {
					t.Fatal("LimitsWarn refused")
				}
				return
			}
			if err != nil || len(warn) > 0 {
				t.Fatalf("newCgroup: warn %q, %v", warn, err)
			}
			if got, _ := filepath.Rel(root, k.where[self]); "/"+got != tc.wantSelf {
				t.Errorf("this process is in %s, want %s", "/"+got, tc.wantSelf)
			}
			p, m := cg.limitsInForce()
			if p != strconv.Itoa(pids) || m != strconv.Itoa(mem) {
				t.Errorf("limits in force pids %q memory %q", p, m)
			}
			g := k.groups[cg.memory]
			if sw, ok := g.files["memory.swap.max"]; ok != tc.swap || (ok && sw != "0") {
				t.Errorf("memory.swap.max %q (present %v), want 0 where present (swap %v)", sw, ok, tc.swap)
			}
			// A worker joins; the kill empties the group; removal leaves no
			// worker cgroup behind.
			if err := cg.add(4242); err != nil {
				t.Fatal(err)
			}
			if procs, _ := cg.procs(); !slices.Equal(procs, []int{4242}) {
				t.Fatalf("procs %v", procs)
			}
			if err := cg.remove(); err != nil {
				t.Fatal(err)
			}
			if k.groups[cg.memory] != nil {
				t.Errorf("%s left behind", cg.memory)
			}
			// A second pool of this process reuses the base (no second move).
			cg2, warn2 := newCgroup("triage-sandbox/1-2/w0", mem, pids)
			if checkLimits(LimitsRequire, cg2, warn2) != nil || filepath.Dir(filepath.Dir(cg2.pids)) != filepath.Dir(filepath.Dir(cg.pids)) {
				t.Errorf("second pool: %s, %q", cg2.pids, warn2)
			}
		})
	}
}

// TestCgroupV1Unavailable: where neither v1 controllers nor v2 are
// mounted, the limits are missing, LimitsRequire refuses with the reason
// and LimitsWarn lets the pool run.
func TestCgroupV1Unavailable(t *testing.T) {
	useFake(t, osCgroupFS{}, t.TempDir())
	cg, warn := newCgroup("triage-sandbox/1-1/w0", 1<<30, 64)
	if cg.pids != "" || cg.memory != "" || len(warn) != 2 {
		t.Fatalf("cgroup %+v, warn %q", cg, warn)
	}
	err := checkLimits(LimitsRequire, cg, warn)
	if !errors.Is(err, ErrNoLimits) || !strings.Contains(err.Error(), "pids controller not mounted") || !strings.Contains(err.Error(), "Limits warn") {
		t.Fatalf("checkLimits: %v", err)
	}
	if err := checkLimits(LimitsWarn, cg, warn); err != nil {
		t.Fatal(err)
	}
}

// TestLimitsRequiredRefusesPool: New itself refuses with ErrNoLimits
// and leaves no folder behind when the limits cannot be set up: no cgroups,
// and no uids for runs of their own (a user namespace that maps root
// alone), so not the limits without cgroups either.
func TestLimitsRequiredRefusesPool(t *testing.T) {
	useFake(t, osCgroupFS{}, t.TempDir())
	onlyRootMapped(t)
	dir := t.TempDir()
	_, err := New(Options{Workers: 1, Limits: LimitsRequire, Dir: dir})
	if !errors.Is(err, ErrNoLimits) {
		t.Fatalf("New: %v, want ErrNoLimits", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := ParseLimitsPolicy("sometimes"); err == nil {
		t.Error("ParseLimitsPolicy accepted sometimes")
	}
}

// TestCgroupLimitsRealKernel: on this host's own cgroups, the pool's
// worker cgroups hold the limits (v1 or v2, whichever is mounted), or New
// with LimitsRequire says why not.
func TestCgroupLimitsRealKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox worker")
	}
	if _, err := os.Stat(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	p, err := New(Options{Workers: 1, Limits: LimitsRequire})
	if errors.Is(err, ErrNoLimits) {
		t.Skipf("this host cannot give the limits (what New says): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.all[0]
	pm, mm := s.cg.limitsInForce()
	if pm != strconv.Itoa(p.opts.MaxProcs) || mm == "" {
		t.Fatalf("limits in force: pids %q memory %q", pm, mm)
	}
	t.Logf("cgroup v2 %v: %s pids.max %s, memory %s", s.cg.v2, s.cg.pids, pm, mm)
}

// TestCgroupV2RealMount mounts a cgroup v2 hierarchy at a temporary folder
// and makes a worker cgroup in it. Where the memory and pids controllers
// are bound to v1 (a hybrid host) the kernel cannot offer them to v2, and
// the test skips with what the cgroup code says.
func TestCgroupV2RealMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting cgroup2 needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("cgroup2", mnt, "cgroup2", 0, ""); err != nil {
		t.Skipf("cannot mount cgroup2 here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	useFake(t, osCgroupFS{}, mnt)
	if !cgroupV2() {
		t.Fatal("a cgroup2 mount is not seen as v2")
	}
	cg, warn := newCgroup("triage-sandbox/"+strconv.Itoa(os.Getpid())+"-0/w0", 1<<30, 64)
	if err := checkLimits(LimitsRequire, cg, warn); err != nil {
		if !strings.Contains(err.Error(), "are not available") {
			t.Fatalf("unexpected refusal: %v", err)
		}
		t.Skipf("v2 limits unavailable on this host (the refusal is the expected one): %v", err)
	}
	defer func() {
		_ = cg.remove()
		_ = os.Remove(filepath.Dir(cg.pids))
	}()
	if p, m := cg.limitsInForce(); p != "64" || m != strconv.Itoa(1<<30) {
		t.Fatalf("limits in force: pids %q memory %q", p, m)
	}
}
