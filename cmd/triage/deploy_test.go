package main

import (
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

	"go.yaml.in/yaml/v3"

	"triage/corpus"
	"triage/corpus/taskset"
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

// k8sObject is the part of a manifest the test reads.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string      `yaml:"completionMode"`
		Completions    *int        `yaml:"completions"`
		Selector       k8sSelector `yaml:"selector"`
		MinAvailable   *int        `yaml:"minAvailable"`
		Template       k8sTemplate `yaml:"template"`
	} `yaml:"spec"`
}

type k8sSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
	// A Service's selector is the labels themselves.
	Inline map[string]string `yaml:",inline"`
}

type k8sTemplate struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Containers []k8sContainer `yaml:"containers"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	Readiness *struct {
		HTTPGet struct {
			Path string `yaml:"path"`
		} `yaml:"httpGet"`
	} `yaml:"readinessProbe"`
	Resources struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	Security struct {
		Privileged bool `yaml:"privileged"`
	} `yaml:"securityContext"`
}

// triageArgs returns the triage command lines a container runs: its args
// when the image's entry point (triage) runs them, or each line of a
// /bin/sh -c script that runs triage, with the script's variables set
// from vars.
func (c k8sContainer) triageArgs(vars map[string]string) ([][]string, error) {
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

// TestDeployManifests: every manifest parses; every triage command line in
// them goes through the CLI's parser; the build is an Indexed Job that sets
// JOB_COMPLETIONS to its completions and reads --shard auto; there is a
// merge Job, a GPU Job training --arch 0.6b, and serve as a Deployment
// with readiness on /healthz behind a Service and a PodDisruptionBudget
// that select its pods.
func TestDeployManifests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(deployDir, "k8s", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	byKind := map[string][]k8sObject{}
	var commands [][]string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var o k8sObject
			err := dec.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: an object without kind or name", f)
			}
			byKind[o.Kind] = append(byKind[o.Kind], o)
			for _, c := range o.Spec.Template.Spec.Containers {
				lines, err := c.triageArgs(map[string]string{"resume": "--resume"})
				if err != nil {
					t.Fatalf("%s %s: %v", f, o.Metadata.Name, err)
				}
				for _, args := range lines {
					if err := parseOnly(args); err != nil {
						t.Errorf("%s %s: triage %s: %v", f, o.Metadata.Name, strings.Join(args, " "), err)
					}
					commands = append(commands, args)
				}
			}
		}
	}
	var build, merge, gpu, serve bool
	for _, j := range byKind["Job"] {
		c := j.Spec.Template.Spec.Containers[0]
		lines, _ := c.triageArgs(map[string]string{"resume": ""})
		args := strings.Join(lines[0], " ")
		switch {
		case strings.HasPrefix(args, "corpus build"):
			build = true
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			if j.Spec.CompletionMode != "Indexed" || j.Spec.Completions == nil || env[corpus.EnvK8sCount] != strconv.Itoa(*j.Spec.Completions) {
				t.Errorf("build Job %s: completionMode %q, completions %d, %s=%q; want Indexed with %s equal to completions",
					j.Metadata.Name, j.Spec.CompletionMode, deref(j.Spec.Completions), corpus.EnvK8sCount, env[corpus.EnvK8sCount], corpus.EnvK8sCount)
			}
			if !strings.Contains(args, "--shard=auto") {
				t.Errorf("build Job %s: no --shard=auto in %q", j.Metadata.Name, args)
			}
			if !c.Security.Privileged {
				t.Errorf("build Job %s: the sandbox's namespaces and cgroups need a privileged container", j.Metadata.Name)
			}
		case strings.HasPrefix(args, "corpus merge"):
			merge = true
		case strings.HasPrefix(args, "train") && strings.Contains(args, "--arch=0.6b"):
			gpu = c.Resources.Limits["nvidia.com/gpu"] != ""
		}
	}
	var podLabels map[string]string
	for _, d := range byKind["Deployment"] {
		c := d.Spec.Template.Spec.Containers[0]
		if len(c.Args) > 0 && c.Args[0] == "serve" {
			serve = c.Readiness != nil && c.Readiness.HTTPGet.Path == "/healthz"
			podLabels = d.Spec.Template.Metadata.Labels
		}
	}
	selects := func(sel map[string]string) bool {
		for k, v := range sel {
			if podLabels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	if len(byKind["Service"]) != 1 || !selects(byKind["Service"][0].Spec.Selector.Inline) {
		t.Errorf("want one Service selecting the serve pods %v", podLabels)
	}
	if pdb := byKind["PodDisruptionBudget"]; len(pdb) != 1 || !selects(pdb[0].Spec.Selector.MatchLabels) || deref(pdb[0].Spec.MinAvailable) < 1 {
		t.Errorf("want one PodDisruptionBudget selecting the serve pods %v", podLabels)
	}
	if !build || !merge || !gpu || !serve {
		t.Errorf("build Job %v, merge Job %v, GPU train Job %v, serve Deployment with /healthz readiness %v: want all", build, merge, gpu, serve)
	}
	t.Logf("%d manifests, %d triage command lines parsed", len(files), len(commands))
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
	shards, err := corpus.ListShards(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range shards {
		err := corpus.ScanRows(s, func(rows []corpus.NodeRow) error {
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

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
