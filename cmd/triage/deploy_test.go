package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/corpus/taskset"
	"triage/search/sandbox"
)

// seccompProfileFile and appArmorProfileFile are the profiles the build
// pods run under (Localhost profiles, installed on every node).
var (
	seccompProfileFile  = filepath.Join(deployDir, "seccomp", "triage-build.json")
	appArmorProfileFile = filepath.Join(deployDir, "apparmor", "triage-build")
)

// deployDir holds the image, the Kubernetes manifests and the Slurm
// scripts (docs/deploy.md).
const deployDir = "../../scripts/deploy"

// parseOnly puts a triage command line through the CLI's parser (the
// command, its flags and its argument check) without running it.
func parseOnly(args []string) error {
	root := newCLI()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if c == root || !c.Runnable() || len(c.Commands()) > 0 {
		return fmt.Errorf("%q names no command", strings.Join(args, " "))
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	return c.ValidateArgs(c.Flags().Args())
}

// triageArgs returns the triage command lines a container runs: its args
// when the image's entry point (triage) runs them, or each line of a
// /bin/sh -c script that runs triage, with the script's variables set
// from vars.
func triageArgs(c corev1.Container, vars map[string]string) ([][]string, error) {
	if len(c.Command) == 0 {
		return [][]string{c.Args}, nil
	}
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		return nil, fmt.Errorf("command %q: want the entry point or /bin/sh -c SCRIPT", c.Command)
	}
	return scriptTriageLines(c.Args[0], "triage", vars)
}

// scriptTriageLines finds the lines of a shell script that run triage
// (the word named prog, e.g. triage or "$TRIAGE"), joins continued lines,
// and splits each from prog on into words after setting vars. Quoting is
// limited to whole words in double quotes, and every variable must be in
// vars, so the split is the shell's.
func scriptTriageLines(script, prog string, vars map[string]string) ([][]string, error) {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out [][]string
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		i := strings.Index(line, prog+" ")
		if i < 0 {
			continue
		}
		var bad error
		words := strings.Fields(os.Expand(strings.ReplaceAll(line[i:], `"`, ""), func(v string) string {
			val, ok := vars[v]
			if !ok {
				bad = fmt.Errorf("line %q: variable $%s unknown to the test", line, v)
			}
			return val
		}))
		if bad != nil {
			return nil, bad
		}
		if strings.ContainsAny(line[i:], "'`\\") {
			return nil, fmt.Errorf("line %q: quoting the test cannot follow", line)
		}
		out = append(out, words[1:])
	}
	return out, nil
}

// k8sManifest is one object of a manifest file, decoded strictly into its
// Kubernetes API type.
type k8sManifest struct {
	file string
	kind string
	name string
	obj  any // *batchv1.Job, *appsv1.Deployment, ...
}

// k8sKinds are the kinds the manifests may hold: each with its apiVersion
// and a new value of its API type.
var k8sKinds = map[string]struct {
	apiVersion string
	new        func() any
}{
	"Job":                   {"batch/v1", func() any { return &batchv1.Job{} }},
	"Deployment":            {"apps/v1", func() any { return &appsv1.Deployment{} }},
	"Service":               {"v1", func() any { return &corev1.Service{} }},
	"PodDisruptionBudget":   {"policy/v1", func() any { return &policyv1.PodDisruptionBudget{} }},
	"PersistentVolumeClaim": {"v1", func() any { return &corev1.PersistentVolumeClaim{} }},
}

// decodeManifest decodes one YAML document strictly into the API type of
// its kind: a field the type does not have (misspelt or misplaced), a
// field given twice, a value of the wrong type, or an apiVersion other
// than the kind's is an error, as a real API server's strict field
// validation would make it.
func decodeManifest(doc []byte) (kind, name string, obj any, err error) {
	var meta struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
	}
	if err := sigsyaml.Unmarshal(doc, &meta); err != nil {
		return "", "", nil, err
	}
	k, ok := k8sKinds[meta.Kind]
	if !ok {
		return "", "", nil, fmt.Errorf("kind %q: not one the test knows", meta.Kind)
	}
	if meta.APIVersion != k.apiVersion {
		return "", "", nil, fmt.Errorf("%s: apiVersion %q, want %q", meta.Kind, meta.APIVersion, k.apiVersion)
	}
	if meta.Metadata.Name == "" {
		return "", "", nil, fmt.Errorf("%s without metadata.name", meta.Kind)
	}
	obj = k.new()
	if err := sigsyaml.UnmarshalStrict(doc, obj); err != nil {
		return "", "", nil, fmt.Errorf("%s %s: %w", meta.Kind, meta.Metadata.Name, err)
	}
	return meta.Kind, meta.Metadata.Name, obj, nil
}

// readManifests decodes every object of every manifest in deployDir/k8s.
func readManifests(t *testing.T) []k8sManifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(deployDir, "k8s", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var out []k8sManifest
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			kind, name, obj, err := decodeManifest(doc)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, k8sManifest{file: filepath.Base(f), kind: kind, name: name, obj: obj})
		}
	}
	return out
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// podTemplate returns the pod template of a workload object (nil for
// objects that run no pods).
func podTemplate(obj any) *corev1.PodTemplateSpec {
	switch o := obj.(type) {
	case *batchv1.Job:
		return &o.Spec.Template
	case *appsv1.Deployment:
		return &o.Spec.Template
	}
	return nil
}

// TestDeployManifests: every manifest decodes strictly into Kubernetes' own
// API types (k8s.io/api); every triage command line in them goes through
// the CLI's parser; the build is an Indexed Job that sets JOB_COMPLETIONS
// to its completions and reads --shard auto; there is a merge Job, a GPU
// Job training --arch 0.6b, and serve as a Deployment with readiness on
// /healthz behind a Service and a PodDisruptionBudget that select its pods.
func TestDeployManifests(t *testing.T) {
	objs := readManifests(t)
	var commands [][]string
	for _, o := range objs {
		pt := podTemplate(o.obj)
		if pt == nil {
			continue
		}
		checkNotPrivileged(t, o, &pt.Spec)
		for _, c := range pt.Spec.Containers {
			lines, err := triageArgs(c, map[string]string{"resume": "--resume"})
			if err != nil {
				t.Fatalf("%s %s: %v", o.file, o.name, err)
			}
			for _, args := range lines {
				if err := parseOnly(args); err != nil {
					t.Errorf("%s %s: triage %s: %v", o.file, o.name, strings.Join(args, " "), err)
				}
				commands = append(commands, args)
			}
		}
	}
	var build, merge, gpu, serve bool
	var podLabels map[string]string
	var services []*corev1.Service
	var pdbs []*policyv1.PodDisruptionBudget
	for _, o := range objs {
		switch v := o.obj.(type) {
		case *batchv1.Job:
			c := v.Spec.Template.Spec.Containers[0]
			lines, _ := triageArgs(c, map[string]string{"resume": ""})
			args := strings.Join(lines[0], " ")
			switch {
			case strings.HasPrefix(args, "corpus build"):
				build = true
				checkBuildJob(t, v, c, args)
			case strings.HasPrefix(args, "corpus merge"):
				merge = true
			case strings.HasPrefix(args, "train") && strings.Contains(args, "--arch=0.6b"):
				_, gpu = c.Resources.Limits["nvidia.com/gpu"]
			}
		case *appsv1.Deployment:
			c := v.Spec.Template.Spec.Containers[0]
			if len(c.Args) > 0 && c.Args[0] == "serve" {
				serve = c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet.Path == "/healthz"
				checkServeSecurity(t, v)
				podLabels = v.Spec.Template.Labels
				if v.Spec.Selector == nil || !selects(v.Spec.Selector.MatchLabels, podLabels) {
					t.Errorf("Deployment %s: selector %v does not select its own pods %v", v.Name, v.Spec.Selector, podLabels)
				}
			}
		case *corev1.Service:
			services = append(services, v)
		case *policyv1.PodDisruptionBudget:
			pdbs = append(pdbs, v)
		}
	}
	if len(services) != 1 || !selects(services[0].Spec.Selector, podLabels) {
		t.Errorf("want one Service selecting the serve pods %v", podLabels)
	}
	if len(pdbs) != 1 || pdbs[0].Spec.Selector == nil || !selects(pdbs[0].Spec.Selector.MatchLabels, podLabels) ||
		pdbs[0].Spec.MinAvailable == nil || pdbs[0].Spec.MinAvailable.IntValue() < 1 {
		t.Errorf("want one PodDisruptionBudget with minAvailable >= 1 selecting the serve pods %v", podLabels)
	}
	if !build || !merge || !gpu || !serve {
		t.Errorf("build Job %v, merge Job %v, GPU train Job %v, serve Deployment with /healthz readiness %v: want all", build, merge, gpu, serve)
	}
	t.Logf("%d objects decoded strictly into k8s.io/api types, %d triage command lines parsed", len(objs), len(commands))
}

// checkBuildJob checks the corpus build Job: Indexed, JOB_COMPLETIONS equal
// to its completions, --shard=auto.
func checkBuildJob(t *testing.T, j *batchv1.Job, c corev1.Container, args string) {
	t.Helper()
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	mode := ""
	if j.Spec.CompletionMode != nil {
		mode = string(*j.Spec.CompletionMode)
	}
	completions := 0
	if j.Spec.Completions != nil {
		completions = int(*j.Spec.Completions)
	}
	if mode != string(batchv1.IndexedCompletion) || completions == 0 || env[envK8sCount] != strconv.Itoa(completions) {
		t.Errorf("build Job %s: completionMode %q, completions %d, %s=%q; want Indexed with %s equal to completions",
			j.Name, mode, completions, envK8sCount, env[envK8sCount], envK8sCount)
	}
	if !strings.Contains(args, "--shard=auto") {
		t.Errorf("build Job %s: no --shard=auto in %q", j.Name, args)
	}
	checkBuildPodSecurity(t, j.Name, &j.Spec.Template.Spec, c, args)
}

// checkBuildPodSecurity checks a build pod's confinement (docs/deploy.md,
// "Security context"): a user namespace of its own, not privileged, no
// privilege escalation, every capability dropped but the sandbox's
// (sandbox.PodCapabilities), the project's seccomp (Localhost) and AppArmor
// profiles, a read-only root with an emptyDir for the sandbox's folders, no
// host path (no writable host cgroup), and the default --sandbox-limits
// (require), which accepts the limits the sandbox sets without cgroups.
func checkBuildPodSecurity(t *testing.T, name string, pod *corev1.PodSpec, c corev1.Container, args string) {
	t.Helper()
	if pod.HostUsers == nil || *pod.HostUsers {
		t.Errorf("build Job %s: hostUsers %v, want false (a user namespace of the pod's own)", name, pod.HostUsers)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost ||
		psc.SeccompProfile.LocalhostProfile == nil || *psc.SeccompProfile.LocalhostProfile != filepath.Base(seccompProfileFile) {
		t.Errorf("build Job %s: want the seccomp profile Localhost %s", name, filepath.Base(seccompProfileFile))
	}
	if psc == nil || psc.AppArmorProfile == nil || psc.AppArmorProfile.Type != corev1.AppArmorProfileTypeLocalhost ||
		psc.AppArmorProfile.LocalhostProfile == nil || *psc.AppArmorProfile.LocalhostProfile != filepath.Base(appArmorProfileFile) {
		t.Errorf("build Job %s: want the AppArmor profile Localhost %s", name, filepath.Base(appArmorProfileFile))
	}
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || (sc.Privileged != nil && *sc.Privileged) ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Fatalf("build Job %s: want privileged false, allowPrivilegeEscalation false, readOnlyRootFilesystem true", name)
	}
	var add []string
	if sc.Capabilities != nil {
		for _, c := range sc.Capabilities.Add {
			add = append(add, string(c))
		}
	}
	if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(add, sandbox.PodCapabilities) {
		t.Errorf("build Job %s: capabilities %v, want drop [ALL] and add %v (sandbox.PodCapabilities)", name, sc.Capabilities, sandbox.PodCapabilities)
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			t.Errorf("build Job %s: host path volume %s", name, v.Name)
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == mounts["/tmp"] && v.EmptyDir != nil }) {
		t.Errorf("build Job %s: want an emptyDir at /tmp for the sandbox's folders (the root file system is read-only)", name)
	}
	if strings.Contains(args, "--sandbox-limits") {
		t.Errorf("build Job %s: %q sets --sandbox-limits; the default, require, holds in such a pod", name, args)
	}
}

// checkServeSecurity checks the serve pods: an account other than root, no
// privilege escalation, every capability dropped, a read-only root, and an
// emptyDir where the embedded checkpoint is unpacked (XDG_CACHE_HOME).
func checkServeSecurity(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("serve Deployment %s: want runAsNonRoot and a runAsUser other than 0", d.Name)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil ||
		!*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
		t.Errorf("serve Deployment %s: want allowPrivilegeEscalation false, readOnlyRootFilesystem true and every capability dropped", d.Name)
	}
	cache := ""
	for _, e := range c.Env {
		if e.Name == "XDG_CACHE_HOME" {
			cache = e.Value
		}
	}
	ok := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == cache && !m.ReadOnly {
			ok = slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name && v.EmptyDir != nil })
		}
	}
	if cache == "" || !ok {
		t.Errorf("serve Deployment %s: want XDG_CACHE_HOME (the checkpoint cache) on a writable emptyDir, have %q", d.Name, cache)
	}
}

// checkNotPrivileged checks that no container of a pod is privileged and
// that capabilities are spelled as the runtime and the API's checks expect
// (SYS_ADMIN, not CAP_SYS_ADMIN).
func checkNotPrivileged(t *testing.T, o k8sManifest, pod *corev1.PodSpec) {
	t.Helper()
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			continue
		}
		if sc.Privileged != nil && *sc.Privileged {
			t.Errorf("%s %s: container %s is privileged", o.file, o.name, c.Name)
		}
		if sc.Capabilities != nil {
			for _, cp := range append(slices.Clone(sc.Capabilities.Add), sc.Capabilities.Drop...) {
				if strings.HasPrefix(string(cp), "CAP_") {
					t.Errorf("%s %s: capability %s: spell it without CAP_", o.file, o.name, cp)
				}
			}
		}
	}
}

// selects reports whether the label selector sel (non-empty) matches labels.
func selects(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

// TestDeployManifestDecoderStrict: the decoder refuses what a real API
// server would (a misspelt field, a field in the wrong place, a value of
// the wrong type, a duplicate field, a wrong apiVersion), so that
// TestDeployManifests cannot pass a manifest an API server would refuse.
func TestDeployManifestDecoderStrict(t *testing.T) {
	const job = `apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  %s
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: triage:dev
          %s
`
	for _, tc := range []struct {
		name, spec, container string
		ok                    bool
	}{
		{"valid", "completions: 2", "args: [corpus, merge]", true},
		{"misspelt field", "completionMod: Indexed", "args: [corpus, merge]", false},
		{"misplaced field", "privileged: true", "args: [corpus, merge]", false},
		{"wrong type", "completions: two", "args: [corpus, merge]", false},
		{"duplicate field", "completions: 2\n  completions: 3", "args: [corpus, merge]", false},
		{"container field misspelt", "completions: 2", "securityContext: {privilegd: false}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := decodeManifest([]byte(fmt.Sprintf(job, tc.spec, tc.container)))
			if (err == nil) != tc.ok {
				t.Errorf("decode: %v, want ok=%v", err, tc.ok)
			}
		})
	}
	if _, _, _, err := decodeManifest([]byte("apiVersion: apps/v1\nkind: Job\nmetadata: {name: j}\n")); err == nil {
		t.Error("a Job of apiVersion apps/v1 decoded")
	}
}

// TestDeploySlurmScripts: every triage command line of the Slurm scripts
// goes through the CLI's parser; the build is an array job reading
// --shard auto, the training asks for a GPU and has a CPU path, and
// submit.sh chains build, merge and training with afterok dependencies.
// TestDeploySlurmCluster runs them on a real cluster.
func TestDeploySlurmScripts(t *testing.T) {
	vars := map[string]string{"TRIAGE": "triage", "DATA": "/scratch/triage", "TASKS": "bundled", "WORKERS": "4",
		"K": "3", "DEPTH": "4", "ROOTS": "5", "BUILD_FLAGS": "--tasks-per-shard 1 --test-timeout 2s",
		"SANDBOX_LIMITS": "warn", "BASE": "/scratch/models/Qwen3-0.6B-Base", "PJRT_PLUGIN": "/opt/pjrt/xla_cuda_plugin.so", "RESUME": "--resume"}
	files, err := filepath.Glob(filepath.Join(deployDir, "slurm", "*.sbatch"))
	if err != nil || len(files) != 3 {
		t.Fatalf("want 3 sbatch scripts, got %v (%v)", files, err)
	}
	got := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := scriptTriageLines(string(data), `"$TRIAGE"`, vars)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(lines) == 0 {
			t.Fatalf("%s runs no triage command", f)
		}
		for _, args := range lines {
			if err := parseOnly(args); err != nil {
				t.Errorf("%s: triage %s: %v", f, strings.Join(args, " "), err)
			}
		}
		var joined []string
		for _, args := range lines {
			joined = append(joined, strings.Join(args, " "))
		}
		got[filepath.Base(f)] = string(data) + "\n" + strings.Join(joined, "\n")
	}
	for name, want := range map[string][]string{
		"corpus-build.sbatch": {"#SBATCH --array=", "corpus build", "--shard auto"},
		"corpus-merge.sbatch": {"corpus merge --out"},
		"train.sbatch":        {"#SBATCH --gres=gpu:1", "train --corpus /scratch/triage/corpus --arch 0.6b", "train --corpus /scratch/triage/corpus --arch small --backend go"},
	} {
		for _, w := range want {
			if !strings.Contains(got[name], w) {
				t.Errorf("%s: no %q", name, w)
			}
		}
	}
	submit, err := os.ReadFile(filepath.Join(deployDir, "slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(submit), "--dependency=\"afterok:"); n != 2 {
		t.Errorf("submit.sh: %d afterok dependencies, want 2 (merge after the build, training after the merge)", n)
	}
}

// cliChildEnv makes TestDeployCLIChild run the CLI (a separate process,
// as on a cluster) instead of a test.
const cliChildEnv = "TRIAGE_TEST_CLI_CHILD"

// TestDeployCLIChild is not a test: run by runCLIProcess with cliChildEnv
// set, it runs the CLI on the arguments after "--" and exits with its code.
func TestDeployCLIChild(t *testing.T) {
	if os.Getenv(cliChildEnv) != "1" {
		t.Skip("helper process of TestDeployShardedBuild")
	}
	i := slices.Index(os.Args, "--")
	cli := newCLI()
	cli.SetArgs(os.Args[i+1:])
	os.Exit(exitCode(cli.Execute()))
}

// runCLIProcess starts the CLI in a new process with env added.
func runCLIProcess(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestDeployCLIChild$", "--"}, args...)...)
	cmd.Env = append(append(os.Environ(), cliChildEnv+"=1"), env...)
	return cmd
}

// rowHashes hashes every row of the corpus in dirs (run times aside: they
// are measured, not built), sorted.
func rowHashes(t *testing.T, dirs ...string) []string {
	t.Helper()
	shards, err := shard.ListShards(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range shards {
		err := shard.ScanRows(s, func(rows []shard.NodeRow) error {
			for _, r := range rows {
				r.ExecMS = 0
				for i := range r.Tests {
					r.Tests[i].DurationMS = 0
				}
				b, err := json.Marshal(r)
				if err != nil {
					return err
				}
				out = append(out, fmt.Sprintf("%x", sha256.Sum256(b)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// TestDeployShardedBuild: a tiny build (mutate proposer, real sandbox) made
// by N processes that see a Kubernetes Indexed Job's variables, and by N
// that see a Slurm array's (ids 1, 3, 5: a step of 2), each into one
// shared folder with --shard auto, then merged, has the rows of the same
// build made by one process.
func TestDeployShardedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python sandbox in 7 processes: skipped under -short")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	dir := t.TempDir()
	all, err := taskset.Load("bundled", false)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := corpus.WriteTasks(&buf, all[:6]); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tasks, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(out string, extra ...string) []string {
		return append([]string{"corpus", "build", "--tasks", tasks, "--proposer", "mutate", "--k", "2", "--depth", "2",
			"--roots", "1", "--tasks-per-shard", "1", "--test-timeout", "5s", "--reference-runs", "1", "--workers", "1",
			"--no-progress", "--resume", "--out", out}, extra...)
	}
	one := filepath.Join(dir, "one")
	if out, err := runCLIProcess(nil, build(one)...).CombinedOutput(); err != nil {
		t.Fatalf("one-process build: %v\n%s", err, out)
	}
	want := rowHashes(t, one)
	if len(want) == 0 {
		t.Fatal("the one-process build has no rows")
	}
	t.Logf("one-process build: %d rows", len(want))
	for _, engine := range []struct {
		name string
		envs [][]string
	}{
		{"kubernetes", [][]string{{"JOB_COMPLETION_INDEX=0", "JOB_COMPLETIONS=3"}, {"JOB_COMPLETION_INDEX=1", "JOB_COMPLETIONS=3"}, {"JOB_COMPLETION_INDEX=2", "JOB_COMPLETIONS=3"}}},
		{"slurm", [][]string{
			{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=5", "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=3"},
			{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=5", "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=3"},
			{"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=5", "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=3"}}},
	} {
		t.Run(engine.name, func(t *testing.T) {
			shared := filepath.Join(dir, engine.name, "build")
			cmds := make([]*exec.Cmd, len(engine.envs))
			outs := make([]bytes.Buffer, len(engine.envs))
			for i, env := range engine.envs {
				// Only this engine's variables: the test's own environment
				// may not name a shard.
				env = append([]string{"JOB_COMPLETION_INDEX=", "SLURM_ARRAY_TASK_ID="}, env...)
				cmds[i] = runCLIProcess(env, build(shared, "--shard", "auto")...)
				cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
				if err := cmds[i].Start(); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("process %d (%v): %v\n%s", i, engine.envs[i], err, outs[i].String())
				}
				if log := outs[i].String(); !strings.Contains(log, "from="+engine.name) || !strings.Contains(log, "index="+strconv.Itoa(i)) {
					t.Errorf("process %d: no log line of the shard it took from %s:\n%s", i, engine.name, log)
				}
			}
			merged := filepath.Join(dir, engine.name, "corpus")
			if out, err := runCLIProcess(nil, "corpus", "merge", "--out", merged, shared).CombinedOutput(); err != nil {
				t.Fatalf("merge: %v\n%s", err, out)
			}
			if got := rowHashes(t, merged); !slices.Equal(got, want) {
				t.Errorf("%s: %d merged rows differ from the one-process build's %d", engine.name, len(got), len(want))
			}
		})
	}
}

// seccompProfile is the part of an OCI seccomp profile (the format of
// Kubernetes' Localhost profiles) that the project's profile uses.
type seccompProfile struct {
	DefaultAction   string   `json:"defaultAction"`
	DefaultErrnoRet *int     `json:"defaultErrnoRet"`
	Architectures   []string `json:"architectures"`
	Syscalls        []struct {
		Names  []string `json:"names"`
		Action string   `json:"action"`
		Args   []struct {
			Index    uint   `json:"index"`
			Value    uint64 `json:"value"`
			ValueTwo uint64 `json:"valueTwo"`
			Op       string `json:"op"`
		} `json:"args"`
	} `json:"syscalls"`
}

// TestDeploySeccompProfile: the build pods' seccomp profile decodes
// strictly, refuses by default, allows what the sandbox does beyond a
// runtime's default profile (namespaces, mounts, pivot_root: clone and
// clone3 with namespace flags, unshare, mount, umount2, pivot_root) and
// none of the calls no build needs (ptrace, bpf, keys, modules, kexec,
// io_uring, ...). TestUnprivilegedSandbox (search/sandbox) runs the
// hostile-program suites under it.
func TestDeploySeccompProfile(t *testing.T) {
	data, err := os.ReadFile(seccompProfileFile)
	if err != nil {
		t.Fatal(err)
	}
	var p seccompProfile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("%s: %v", seccompProfileFile, err)
	}
	if p.DefaultAction != "SCMP_ACT_ERRNO" || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != 1 {
		t.Errorf("default action %s (errno %v), want SCMP_ACT_ERRNO with EPERM", p.DefaultAction, p.DefaultErrnoRet)
	}
	allowed := map[string]bool{}
	for _, r := range p.Syscalls {
		if r.Action != "SCMP_ACT_ALLOW" {
			t.Errorf("rule %v: action %s; the profile only allows", r.Names, r.Action)
		}
		for _, n := range r.Names {
			if len(r.Args) == 0 {
				allowed[n] = true
			}
		}
	}
	for _, need := range []string{"clone", "clone3", "unshare", "mount", "umount2", "pivot_root", "seccomp", "prctl", "setuid", "setgid", "setgroups", "kill", "execve", "wait4"} {
		if !allowed[need] {
			t.Errorf("%s is not allowed; the sandbox needs it", need)
		}
	}
	for _, never := range []string{"ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "userfaultfd", "io_uring_setup", "io_uring_enter",
		"open_by_handle_at", "name_to_handle_at", "reboot", "swapon", "swapoff", "acct", "syslog", "setns", "chroot", "iopl", "ioperm",
		"quotactl", "settimeofday", "clock_settime", "sethostname", "setdomainname", "fanotify_init", "lookup_dcookie", "kcmp", "pidfd_getfd"} {
		for _, r := range p.Syscalls {
			if slices.Contains(r.Names, never) {
				t.Errorf("%s is allowed; no build needs it", never)
			}
		}
	}
}

// TestDeployAppArmorProfile: the build pods' AppArmor profile compiles
// (apparmor_parser, without loading it), where AppArmor's parser is
// installed; it names itself as the manifest does and allows the mounts,
// umount and pivot_root the sandbox makes.
func TestDeployAppArmorProfile(t *testing.T) {
	data, err := os.ReadFile(appArmorProfileFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"profile " + filepath.Base(appArmorProfileFile) + " ", "mount fstype=tmpfs,", "umount,", "pivot_root,", "ptrace (read"} {
		if !strings.Contains(text, want) {
			t.Errorf("%s: no %q", appArmorProfileFile, want)
		}
	}
	parser, err := exec.LookPath("apparmor_parser")
	if err != nil {
		t.Skip("apparmor_parser not found (Debian's apparmor package): the profile is not compiled here")
	}
	out, err := exec.Command(parser, "--skip-kernel-load", "--skip-cache", appArmorProfileFile).CombinedOutput()
	if err != nil {
		t.Errorf("apparmor_parser %s: %v\n%s", appArmorProfileFile, err, out)
	}
}
