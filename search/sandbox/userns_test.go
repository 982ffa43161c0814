package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// onlyRootMapped makes this process's uid map, as the sandbox reads it,
// one that maps root alone (a user namespace without a range).
func onlyRootMapped(t *testing.T) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "uid_map")
	if err := os.WriteFile(f, []byte("         0       1000          1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := selfUIDMapFile
	selfUIDMapFile = f
	t.Cleanup(func() { selfUIDMapFile = old })
}

func TestParseIDMap(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []idRange
		ok   bool
	}{
		{"         0          0 4294967295\n", []idRange{{0, 0, 4294967295}}, true},
		{"0 1000 1\n1 1500000000 65536\n", []idRange{{0, 1000, 1}, {1, 1500000000, 65536}}, true},
		{"         0  123404288      65536\n", []idRange{{0, 123404288, 65536}}, true},
		{"", nil, true},
		{"0 0\n", nil, false},
		{"0 0 0\n", nil, false},
		{"-1 0 5\n", nil, false},
		{"0 x 5\n", nil, false},
		{"4294967290 0 10\n", nil, false},
	} {
		got, err := parseIDMap(tc.text)
		if (err == nil) != tc.ok || (tc.ok && !equalRanges(got, tc.want)) {
			t.Errorf("parseIDMap(%q) = %v, %v; want %v ok=%v", tc.text, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseSubIDs(t *testing.T) {
	text := "# comment\nalice:100000:65536\ntriage-unpriv:1500000000:65536\n999:200000:10\nbob:300000:65536\n"
	got, err := parseSubIDs(text, "triage-unpriv", 999)
	want := []idRange{{0, 1500000000, 65536}, {0, 200000, 10}}
	if err != nil || !equalRanges(got, want) {
		t.Fatalf("parseSubIDs = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"alice:100000\n", "alice:x:5\n", "alice:5:0\n", "alice:4294967295:2\n"} {
		if _, err := parseSubIDs(bad, "alice", 1); err == nil {
			t.Errorf("parseSubIDs(%q) accepted", bad)
		}
	}
}

func equalRanges(a, b []idRange) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestChooseUIDBase: root of the initial namespace keeps the historical
// choice; a pod's 65536-uid range and an account's subordinate range give a
// block inside the range, above the system's own ids, spread by pid; a
// range too small for the workers is an error.
func TestChooseUIDBase(t *testing.T) {
	full := []idRange{{0, 0, maxID}}
	if got, err := chooseUIDBase(full, 1234, 1, 4); err != nil || got != 100000+int((1234*7+131)%40000)*64 {
		t.Errorf("full map: %d, %v", got, err)
	}
	pod := []idRange{{0, 123404288, 65536}}
	seen := map[int]bool{}
	for pid := int64(1); pid < 200; pid++ {
		got, err := chooseUIDBase(pod, pid, 1, 8)
		if err != nil || got < lowestRunUID || got+8 > 65534 || (got-lowestRunUID)%64 != 0 {
			t.Fatalf("pod map, pid %d: %d, %v", pid, got, err)
		}
		seen[got] = true
	}
	if len(seen) < 100 {
		t.Errorf("pod map: %d distinct bases over 199 pids, want them spread", len(seen))
	}
	sub := []idRange{{1, 1500000000, 65536}}
	if got, err := chooseUIDBase(sub, 7, 2, 100); err != nil || got < lowestRunUID || got+100 > 65535 || !covers(sub, int64(got), int64(got+100)) {
		t.Errorf("subordinate range, 100 workers: %d, %v", got, err)
	}
	if _, err := chooseUIDBase([]idRange{{0, 1000, 1}}, 7, 1, 1); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("root alone mapped: %v, want no room", err)
	}
	if _, err := chooseUIDBase([]idRange{{0, 100000, 1050}}, 7, 1, 64); err == nil {
		t.Error("1050 ids gave room for 64 workers above 1000")
	}
}

// TestDetectUserNS reads the subordinate ranges of this process's account
// from files of the test's own.
func TestDetectUserNS(t *testing.T) {
	if _, err := os.Stat("/usr/bin/newuidmap"); err != nil {
		t.Skip("no newuidmap (Debian's uidmap)")
	}
	dir := t.TempDir()
	old := subIDFiles
	t.Cleanup(func() { subIDFiles = old })
	subIDFiles = [2]string{filepath.Join(dir, "subuid"), filepath.Join(dir, "subgid")}
	uid, gid := os.Geteuid(), os.Getegid()
	write := func(u, g string) {
		if err := os.WriteFile(subIDFiles[0], []byte(u), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(subIDFiles[1], []byte(g), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strconv.Itoa(uid)+":300000:65536\n", strconv.Itoa(uid)+":400000:70000\n")
	u, err := detectUserNS(minSubIDs)
	if err != nil || u.subUID != 300000 || u.subGID != 400000 || u.count != 65536 || u.uid != uid || u.gid != gid {
		t.Fatalf("detectUserNS = %+v, %v", u, err)
	}
	if u.outsideUID(62000) != 300000+61999 {
		t.Errorf("outsideUID(62000) = %d", u.outsideUID(62000))
	}
	write(strconv.Itoa(uid)+":300000:100\n", strconv.Itoa(uid)+":400000:70000\n")
	if _, err := detectUserNS(minSubIDs); !errors.Is(err, errNoUserNS) {
		t.Errorf("100 subordinate uids: %v, want errNoUserNS", err)
	}
	write("someone-else:300000:65536\n", strconv.Itoa(uid)+":400000:70000\n")
	if _, err := detectUserNS(minSubIDs); !errors.Is(err, errNoUserNS) {
		t.Errorf("no range of this account: %v, want errNoUserNS", err)
	}
}

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tpython3\nUid:\t1500061999\t1500061999\t1500061999\t1500061999\nVmRSS:\t  50000 kB\nRssAnon:\t   40000 kB\nRssFile:\t    9000 kB\nRssShmem:\t    1000 kB\n"
	uid, mem, ok := parseStatusMemory([]byte(status))
	if !ok || uid != 1500061999 || mem != 41000<<10 {
		t.Errorf("parseStatusMemory = %d, %d, %v", uid, mem, ok)
	}
	if _, _, ok := parseStatusMemory([]byte("Name:\tx\n")); ok {
		t.Error("a status without Uid parsed")
	}
	if _, _, ok := parseStatusMemory([]byte("Uid:\tx\n")); ok {
		t.Error("a bad Uid parsed")
	}
}

func FuzzParseIDMap(f *testing.F) {
	f.Add("0 0 4294967295\n")
	f.Add("0 1000 1\n1 1500000000 65536\n")
	f.Fuzz(func(t *testing.T, text string) {
		ranges, err := parseIDMap(text)
		if err != nil {
			return
		}
		for _, r := range ranges {
			if r.Count <= 0 || r.Inside+r.Count > maxID || r.Outside+r.Count > maxID {
				t.Fatalf("range out of bounds: %+v", r)
			}
		}
		if len(ranges) > 0 {
			if base, err := chooseUIDBase(ranges, 7, 1, 4); err == nil && !covers(ranges, int64(base), int64(base)+4) {
				t.Fatalf("base %d not inside %v", base, ranges)
			}
		}
	})
}

func FuzzParseSubIDs(f *testing.F) {
	f.Add("alice:100000:65536\n", "alice", 1000)
	f.Add("1000:5:7\n#x\n", "bob", 1000)
	f.Fuzz(func(t *testing.T, text, name string, id int) {
		ranges, err := parseSubIDs(text, name, id)
		if err != nil {
			return
		}
		for _, r := range ranges {
			if r.Count <= 0 || r.Outside < 0 || r.Outside+r.Count > maxID {
				t.Fatalf("range out of bounds: %+v", r)
			}
		}
	})
}

func FuzzParseStatusMemory(f *testing.F) {
	f.Add([]byte("Uid:\t1\t1\t1\t1\nRssAnon:\t5 kB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, mem, ok := parseStatusMemory(data); ok && mem < 0 {
			t.Fatalf("negative memory %d", mem)
		}
	})
}

func TestParseRollup(t *testing.T) {
	rollup := "557aef29c000-7ffd8fcd9000 ---p 00000000 00:00 0    [rollup]\nRss:   1696 kB\nPss:   234 kB\nPss_Anon:   116 kB\nPss_File:   118 kB\nPss_Shmem:   4 kB\n"
	if mem, ok := parseRollup([]byte(rollup)); !ok || mem != 120<<10 {
		t.Errorf("parseRollup = %d, %v", mem, ok)
	}
	if _, ok := parseRollup([]byte("Rss: 5 kB\nPss: 4 kB\n")); ok {
		t.Error("a rollup without Pss_Anon parsed (kernels before 5.8 lack it)")
	}
}
