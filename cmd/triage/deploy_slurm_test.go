package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"triage/corpus/manifest"
)

// slurmPrograms are Debian's slurm-wlm and munge programs the cluster test
// runs (`make prereqs` installs them as root).
var slurmPrograms = []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel"}

// slurmCluster is a one-node Slurm cluster on localhost whose munge key,
// sockets, ports, configuration and state live in one temporary folder:
// munged, slurmctld and slurmd run in the foreground as the test's
// children and stop when the test ends.
type slurmCluster struct {
	dir   string   // everything of the cluster
	conf  string   // slurm.conf
	env   []string // the environment of clients: SLURM_CONF
	procs []*exec.Cmd
	names []string
}

// slurmDaemonExes are the programs (as /proc/PID/exe names them) whose
// processes the cluster must not leave behind.
var slurmDaemonExes = []string{"munged", "slurmctld", "slurmd", "slurmstepd", "slurmctld-wlm", "slurmd-wlm", "slurmstepd-wlm"}

// startSlurm starts the cluster, or skips t with the reason it cannot.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the Slurm cluster test runs slurmd, which starts jobs as their users, as root: run it as root")
	}
	for _, p := range slurmPrograms {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not found: install Debian's slurm-wlm and munge (`make prereqs` does, as root)", p)
		}
	}
	before := daemonPids()
	t.Cleanup(func() {
		// Nothing of the cluster is left running: no daemon, no job step.
		var left []string
		for pid, exe := range daemonPids() {
			if _, ok := before[pid]; !ok {
				left = append(left, fmt.Sprintf("%d (%s)", pid, exe))
			}
		}
		if len(left) > 0 {
			t.Errorf("Slurm or munge processes left running after the cluster stopped: %s", strings.Join(left, ", "))
		}
	})

	dir, err := os.MkdirTemp("", "slurmtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// munged wants its socket's folder and every folder above it
	// searchable by all, its key readable only by itself.
	for _, d := range []string{"", "run", "state", "spool", "jobs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "munge"), 0o700); err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	t.Cleanup(c.stop)

	key := filepath.Join(dir, "munge", "munge.key")
	if out, err := exec.Command("mungekey", "--create", "--keyfile="+key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v\n%s", err, out)
	}
	sock := filepath.Join(dir, "run", "munge.socket")
	c.daemon(t, "munged", "munged", "--foreground", "--force", "--key-file="+key, "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "run", "munged.pid"), "--log-file="+filepath.Join(dir, "munge", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "munged.seed"))
	waitFor(t, 20*time.Second, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	node := nodeConfig(t)
	ports := freePorts(t, 2)
	conf := fmt.Sprintf(`# A one-node cluster of the Slurm test (cmd/triage/deploy_slurm_test.go).
ClusterName=triagetest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%s
SlurmdSpoolDir=%s
SlurmctldPidFile=%s
SlurmdPidFile=%s
SlurmctldLogFile=%s
SlurmdLogFile=%s
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=3600
# A dependency that can no longer be met (afterok on a cancelled array
# task) cancels the dependent job instead of leaving it pending.
DependencyParameters=kill_invalid_depend
NodeName=triage NodeHostname=localhost NodeAddr=127.0.0.1 %s State=UNKNOWN
PartitionName=test Nodes=triage Default=YES MaxTime=INFINITE State=UP
`, ports[0], ports[1], sock, filepath.Join(dir, "state"), filepath.Join(dir, "spool"),
		filepath.Join(dir, "run", "slurmctld.pid"), filepath.Join(dir, "run", "slurmd.pid"),
		filepath.Join(dir, "slurmctld.log"), filepath.Join(dir, "slurmd.log"), node)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("node: %s; slurmctld port %d, slurmd port %d", node, ports[0], ports[1])
	c.daemon(t, "slurmctld", "slurmctld", "-D", "-f", c.conf)
	c.daemon(t, "slurmd", "slurmd", "-D", "-N", "triage", "-f", c.conf)
	waitFor(t, 60*time.Second, "the node to be idle", func() bool {
		out, err := c.client("sinfo", "-h", "-n", "triage", "-o", "%T")
		return err == nil && strings.TrimSpace(out) == "idle"
	})
	return c
}

// nodeConfig is the node's line as `slurmd -C` measures this machine
// (CPUs, boards, sockets, cores, threads and RealMemory), without its
// NodeName: the node declares no more than the machine has.
func nodeConfig(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("slurmd", "-C").Output()
	if err != nil {
		t.Fatalf("slurmd -C: %v", err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	var keep []string
	for _, f := range strings.Fields(line) {
		if !strings.HasPrefix(f, "NodeName=") {
			keep = append(keep, f)
		}
	}
	if !slices.ContainsFunc(keep, func(f string) bool { return strings.HasPrefix(f, "CPUs=") }) {
		t.Fatalf("slurmd -C printed no CPUs: %q", out)
	}
	return strings.Join(keep, " ")
}

// freePorts finds n TCP ports nothing listens on now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// daemon starts one daemon in the foreground, its output into the
// cluster's folder.
func (c *slurmCluster) daemon(t *testing.T, name string, argv ...string) {
	t.Helper()
	out, err := os.Create(filepath.Join(c.dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = out, out
	// A test killed before its clean-up does not leave the daemon behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.procs = append(c.procs, cmd)
	c.names = append(c.names, name)
}

// stop cancels every job and stops the daemons, the last started first,
// each with SIGTERM and, after 20 s, SIGKILL.
func (c *slurmCluster) stop() {
	if len(c.procs) == 3 {
		_, _ = c.client("scancel", "--full", "--user=root")
		// Job steps end before slurmd does, or they outlive it.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			out, err := c.client("squeue", "-h")
			if err != nil || strings.TrimSpace(out) == "" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		_ = p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	c.procs = nil
}

// client runs a Slurm client program against the cluster.
func (c *slurmCluster) client(argv ...string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// slurmJob is one record of `scontrol show job`: a job, or one task of an
// array.
type slurmJob struct {
	ID, ArrayJobID, ArrayTaskID, State string
}

// jobs reads every job record the controller holds for the job ids given.
func (c *slurmCluster) jobs(ids ...string) ([]slurmJob, error) {
	var out []slurmJob
	for _, id := range ids {
		text, err := c.client("scontrol", "-o", "show", "job", id)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			f := map[string]string{}
			for _, kv := range strings.Fields(line) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					f[k] = v
				}
			}
			out = append(out, slurmJob{ID: f["JobId"], ArrayJobID: f["ArrayJobId"], ArrayTaskID: f["ArrayTaskId"], State: f["JobState"]})
		}
	}
	return out, nil
}

// finalStates are the states of a job that has ended.
var finalStates = []string{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED"}

// wait waits until every record of the jobs ids has ended and returns them,
// keyed "id" or "arrayid_task".
func (c *slurmCluster) wait(t *testing.T, timeout time.Duration, ids ...string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		js, err := c.jobs(ids...)
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		ended := true
		for _, j := range js {
			key := j.ID
			if j.ArrayTaskID != "" {
				key = j.ArrayJobID + "_" + j.ArrayTaskID
			}
			states[key] = j.State
			ended = ended && slices.Contains(finalStates, j.State)
		}
		if ended {
			return states
		}
		if time.Now().After(deadline) {
			c.dumpLogs(t)
			t.Fatalf("jobs %v not done within %v: %v", ids, timeout, states)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// dumpLogs logs the tail of the controller's and the node's logs.
func (c *slurmCluster) dumpLogs(t *testing.T) {
	for _, f := range []string{"slurmctld.log", "slurmd.log"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, f))
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		t.Logf("%s (tail):\n%s", f, data)
	}
}

// daemonPids lists the running processes of slurmDaemonExes.
func daemonPids() map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		if slices.Contains(slurmDaemonExes, filepath.Base(exe)) {
			out[pid] = exe
		}
	}
	return out
}

// waitFor polls cond every 100 ms until it holds, failing t after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slurmTestTasks are bundled tasks whose trees hold a fix at k 2, depth 2
// (the training needs trees with a fix in the train and val splits); the
// build of the third slice of a 3-task array (dp_house_robber,
// str_decode_counts) has mutants that run into the CPU limit, which keeps
// it running long enough to be cancelled between its two shards.
var slurmTestTasks = []string{"arr_move_zeros", "bit_gray_code", "dp_house_robber", "parse_ipv4", "sim_round_robin", "str_decode_counts"}

// submitted is what submit.sh printed: the three jobs' ids.
type submitted struct{ build, merge, train string }

var submitLine = regexp.MustCompile(`^build (\d+) merge (\d+) train (\d+)$`)

// submit runs scripts/deploy/slurm/submit.sh with env added, in dir (where
// the jobs' logs go).
func (c *slurmCluster) submit(t *testing.T, dir string, env []string) submitted {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(deployDir, "slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, c.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, out)
	}
	m := submitLine.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		t.Fatalf("submit.sh printed %q, want \"build ID merge ID train ID\"", out)
	}
	return submitted{m[1], m[2], m[3]}
}

// TestDeploySlurmCluster runs the project's Slurm scripts on a real
// one-node cluster (Debian's slurm-wlm and munge, started by the test):
// submit.sh, with the overrides of a small cluster, builds a small corpus as
// a 3-task job array, merges it after the array and trains the small model
// on CPU (no GPU on the node); the merged rows equal a one-process build's,
// and `triage eval` loads the checkpoint. Then one array task is cancelled
// between its shards: the merge and the training, whose dependency can no
// longer be met, are cancelled too, and submit.sh run again completes the
// build with --resume, with the same rows, no shard lost or doubled.
func TestDeploySlurmCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Slurm cluster and builds a corpus through it")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 for the sandbox")
	}
	c := startSlurm(t)
	work := c.dir // jobs run as root: the folders need no other owner

	tasks := writeBundledSubset(t, work, slurmTestTasks...)
	// The CLI, as the jobs run it: this test binary in its CLI mode.
	triage := filepath.Join(work, "triage")
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec %s -test.run='^TestDeployCLIChild$' -- \"$@\"\n", cliChildEnv, os.Args[0])
	if err := os.WriteFile(triage, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// A fixed CPU limit: adaptive limits are measured per process, and a
	// timeout's feedback names its limit.
	buildFlags := "--tasks-per-shard 1 --test-timeout 1s --reference-runs 1"
	one := filepath.Join(work, "one")
	args := append([]string{"corpus", "build", "--tasks", tasks, "--proposer", "mutate", "--k", "2", "--depth", "2", "--roots", "1",
		"--workers", "1", "--no-progress", "--out", one}, strings.Fields(buildFlags)...)
	if out, err := runCLIProcess(nil, args...).CombinedOutput(); err != nil {
		t.Fatalf("one-process build: %v\n%s", err, out)
	}
	want := rowHashes(t, one)
	t.Logf("one-process build: %d rows, %d shards", len(want), len(slurmTestTasks))

	overrides := func(data string) []string {
		return []string{"TRIAGE=" + triage, "DATA=" + data, "TASKS=" + tasks, "K=2", "DEPTH=2", "ROOTS=1", "BUILD_FLAGS=" + buildFlags,
			"ARRAY=0-2", "BUILD_CPUS=1", "BUILD_MEM_PER_CPU=1G", "MERGE_MEM=1G", "GPUS=0", "TRAIN_CPUS=1", "TRAIN_MEM=2G",
			"PARTITION=test",
			// Only the array's variables name a shard.
			"JOB_COMPLETION_INDEX=", "JOB_COMPLETIONS="}
	}

	t.Run("build-merge-train", func(t *testing.T) {
		data := filepath.Join(work, "a")
		s := c.submit(t, work, overrides(data))
		t.Logf("submitted: build array %s, merge %s, train %s", s.build, s.merge, s.train)
		states := c.wait(t, 4*time.Minute, s.build, s.merge, s.train)
		t.Logf("job states: %v", states)
		wantStates := map[string]string{s.build + "_0": "COMPLETED", s.build + "_1": "COMPLETED", s.build + "_2": "COMPLETED",
			s.merge: "COMPLETED", s.train: "COMPLETED"}
		if !maps.Equal(states, wantStates) {
			c.dumpJobLogs(t, work)
			t.Fatalf("job states %v, want %v", states, wantStates)
		}
		checkSameRows(t, data, want)
		checkTrainedOnCPU(t, work, s.train, filepath.Join(data, "ckpt"), filepath.Join(data, "corpus"))
	})

	t.Run("cancel-resubmit", func(t *testing.T) {
		data := filepath.Join(work, "b")
		s := c.submit(t, work, overrides(data))
		t.Logf("submitted: build array %s, merge %s, train %s", s.build, s.merge, s.train)
		// Cancel array task 2 once its first shard is listed in its
		// manifest, before the second.
		manifest := filepath.Join(data, "build", manifest.ManifestName(2, 3))
		waitFor(t, 3*time.Minute, "array task 2's first shard", func() bool { return listedShards(manifest) >= 1 })
		task := s.build + "_2"
		if _, err := c.client("scancel", task); err != nil {
			t.Fatal(err)
		}
		cancelled := time.Now()
		states := c.wait(t, 4*time.Minute, s.build, s.merge, s.train)
		t.Logf("every job ended %.1f s after the scancel", time.Since(cancelled).Seconds())
		t.Logf("scancel %s after %d of its 2 shards; job states: %v", task, listedShards(manifest), states)
		if states[task] != "CANCELLED" || listedShards(manifest) != 1 {
			c.dumpJobLogs(t, work)
			t.Fatalf("array task %s: state %s with %d of its 2 shards built; want it cancelled between them (the build got too fast to cancel?)",
				task, states[task], listedShards(manifest))
		}
		if states[s.merge] != "CANCELLED" || states[s.train] != "CANCELLED" {
			t.Errorf("merge %s, train %s after a cancelled array task: want both cancelled (their afterok can no longer be met)", states[s.merge], states[s.train])
		}
		if _, err := os.Stat(filepath.Join(data, "corpus")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a merged corpus exists after a cancelled array task: %v", err)
		}

		r := c.submit(t, work, overrides(data))
		t.Logf("resubmitted: build array %s, merge %s, train %s", r.build, r.merge, r.train)
		states = c.wait(t, 4*time.Minute, r.build, r.merge, r.train)
		t.Logf("job states: %v", states)
		for k, v := range states {
			if v != "COMPLETED" {
				c.dumpJobLogs(t, work)
				t.Fatalf("job %s %s after the resubmission: %v", k, v, states)
			}
		}
		// The resumed tasks built only what was missing: the first two
		// skipped their slices, the third built its second shard.
		for i, built := range []int{0, 0, 1} {
			log := readFile(t, filepath.Join(work, fmt.Sprintf("triage-build-%s_%d.log", r.build, i)))
			m := regexp.MustCompile(`(\d+) rows \((\d+) built now\)`).FindStringSubmatch(log)
			if m == nil {
				t.Errorf("array task %d: no summary line in its log:\n%s", i, log)
				continue
			}
			t.Logf("resubmitted array task %d: %s rows, %s built now", i, m[1], m[2])
			if n, _ := strconv.Atoi(m[2]); (n > 0) != (built > 0) {
				t.Errorf("array task %d built %d rows on resubmission; want rows only where a shard was missing (%d shards)", i, n, built)
			}
		}
		checkSameRows(t, data, want)
		checkTrainedOnCPU(t, work, r.train, filepath.Join(data, "ckpt"), filepath.Join(data, "corpus"))
	})
}

// listedShards counts the shards a slice's manifest lists (0 without one).
func listedShards(path string) int {
	m, err := manifest.ReadManifest(path)
	if err != nil {
		return 0
	}
	return len(m.Shards)
}

// checkSameRows compares a merged corpus's rows with a one-process build's
// (the same rows, each once) and checks that the array's slice manifests
// in build list every shard once.
func checkSameRows(t *testing.T, data string, want []string) {
	t.Helper()
	merged := filepath.Join(data, "corpus")
	got := rowHashes(t, merged)
	t.Logf("hashes: merged %s: %d rows; one-process build: %d rows; equal: %v", merged, len(got), len(want), slices.Equal(got, want))
	if !slices.Equal(got, want) {
		t.Errorf("merged corpus %s: %d rows, want the one-process build's %d (sorted row hashes differ)", merged, len(got), len(want))
	}
	var listed []int
	for i := range 3 {
		m, err := manifest.ReadManifest(filepath.Join(data, "build", manifest.ManifestName(i, 3)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Shards {
			listed = append(listed, e.Index)
		}
	}
	slices.Sort(listed)
	if wantShards := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(listed, wantShards) {
		t.Errorf("the array's manifests list shards %v, want %v each once", listed, wantShards)
	}
}

// checkTrainedOnCPU checks that the training job took its CPU path and that
// `triage eval` loads the checkpoint it left.
func checkTrainedOnCPU(t *testing.T, logDir, job, ckpt, corpusDir string) {
	t.Helper()
	log := readFile(t, filepath.Join(logDir, "triage-train-"+job+".log"))
	if !strings.Contains(log, "training the small model on CPU") {
		t.Errorf("train job %s did not take the CPU path:\n%s", job, log)
	}
	out, err := runCLIProcess(nil, "eval", "--corpus", corpusDir, "--checkpoint", ckpt, "--split", "val", "--policies", "learned",
		"--bootstrap", "10", "--json").Output()
	if err != nil {
		t.Fatalf("triage eval --checkpoint %s: %v\n%s", ckpt, err, out)
	}
	var summary map[string]any
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("triage eval --json: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"learned"`) {
		t.Errorf("triage eval printed no learned policy:\n%s", out)
	}
	t.Logf("triage eval loaded %s (train job %s)", ckpt, job)
}

// dumpJobLogs logs the jobs' own logs.
func (c *slurmCluster) dumpJobLogs(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "triage-*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		sc := bufio.NewScanner(bytes.NewReader(data))
		var tail []string
		for sc.Scan() {
			tail = append(tail, sc.Text())
			if len(tail) > 30 {
				tail = tail[1:]
			}
		}
		t.Logf("%s:\n%s", filepath.Base(f), strings.Join(tail, "\n"))
	}
	c.dumpLogs(t)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
