package main

import (
	"fmt"
	"strconv"
	"strings"
)

// buildSlice is the slice of a build one process makes (--shard): the shards s
// with s mod Count = Index.
type buildSlice struct {
	Index, Count int
	// Source says where Index and Count came from: "flag", "kubernetes"
	// (JOB_COMPLETION_INDEX) or "slurm" (SLURM_ARRAY_TASK_ID).
	Source string
	// Detail names the variables read, for the log line.
	Detail string
}

// Environment variables that --shard auto reads.
const (
	envK8sIndex   = "JOB_COMPLETION_INDEX" // set by Kubernetes in the pods of an Indexed Job
	envK8sCount   = "JOB_COMPLETIONS"      // not set by Kubernetes: the manifest sets it to spec.completions
	envSlurmID    = "SLURM_ARRAY_TASK_ID"
	envSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmMax   = "SLURM_ARRAY_TASK_MAX"
	envSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	envSlurmCount = "SLURM_ARRAY_TASK_COUNT"
)

// parseShard reads a --shard value: "i/n", or "auto" or "auto/n", which
// take the index from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a
// Slurm job array (SLURM_ARRAY_TASK_ID, counted from SLURM_ARRAY_TASK_MIN in
// steps of SLURM_ARRAY_TASK_STEP) and the count from n, else from
// JOB_COMPLETIONS or SLURM_ARRAY_TASK_COUNT. getenv is os.Getenv outside
// tests. Every error says what was read and what to give instead; an index
// out of range is an error, never a silent empty slice.
func parseShard(spec string, getenv func(string) string) (buildSlice, error) {
	head, tail, hasCount := strings.Cut(spec, "/")
	if head != "auto" {
		i, err1 := strconv.Atoi(head)
		n, err2 := strconv.Atoi(tail)
		if !hasCount || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return buildSlice{}, fmt.Errorf("--shard %q: want i/n with 0 ≤ i < n, or auto", spec)
		}
		return buildSlice{Index: i, Count: n, Source: "flag", Detail: spec}, nil
	}
	flagCount := 0
	if hasCount {
		n, err := strconv.Atoi(tail)
		if err != nil || n < 1 {
			return buildSlice{}, fmt.Errorf("--shard %q: want auto or auto/n with n ≥ 1", spec)
		}
		flagCount = n
	}
	k8s, slurm := getenv(envK8sIndex), getenv(envSlurmID)
	switch {
	case k8s != "" && slurm != "":
		return buildSlice{}, fmt.Errorf("--shard auto: both %s=%s (Kubernetes) and %s=%s (Slurm) are set; give --shard i/n", envK8sIndex, k8s, envSlurmID, slurm)
	case k8s != "":
		return k8sShard(k8s, flagCount, getenv)
	case slurm != "":
		return slurmShard(slurm, flagCount, getenv)
	}
	return buildSlice{}, fmt.Errorf("--shard auto: neither %s (Kubernetes Indexed Job) nor %s (Slurm job array) is set; give --shard i/n", envK8sIndex, envSlurmID)
}

func k8sShard(idx string, flagCount int, getenv func(string) string) (buildSlice, error) {
	i, err := envInt(envK8sIndex, idx)
	if err != nil {
		return buildSlice{}, err
	}
	n, detail, err := shardCount(flagCount, envK8sCount, getenv, "set it to the Job's spec.completions")
	if err != nil {
		return buildSlice{}, err
	}
	s := buildSlice{Index: i, Count: n, Source: "kubernetes", Detail: fmt.Sprintf("%s=%s, %s", envK8sIndex, idx, detail)}
	return s, s.inRange()
}

func slurmShard(id string, flagCount int, getenv func(string) string) (buildSlice, error) {
	task, err := envInt(envSlurmID, id)
	if err != nil {
		return buildSlice{}, err
	}
	minS := getenv(envSlurmMin)
	if minS == "" {
		return buildSlice{}, fmt.Errorf("--shard auto: %s=%s but %s is not set", envSlurmID, id, envSlurmMin)
	}
	lo, err := envInt(envSlurmMin, minS)
	if err != nil {
		return buildSlice{}, err
	}
	step := 1 // Slurm sets the step for every array; 1 is its value for a plain range
	if s := getenv(envSlurmStep); s != "" {
		if step, err = envInt(envSlurmStep, s); err != nil {
			return buildSlice{}, err
		}
		if step < 1 {
			return buildSlice{}, fmt.Errorf("--shard auto: %s=%s, want ≥ 1", envSlurmStep, s)
		}
	}
	if task < lo || (task-lo)%step != 0 {
		return buildSlice{}, fmt.Errorf("--shard auto: %s=%d is not %s=%d plus a multiple of %s=%d", envSlurmID, task, envSlurmMin, lo, envSlurmStep, step)
	}
	n, detail, err := shardCount(flagCount, envSlurmCount, getenv, "submit with sbatch --array")
	if err != nil {
		return buildSlice{}, err
	}
	// An array given as a list (--array=1,4,9) has no single step: its
	// largest id then does not match min + (count-1)·step.
	if ms := getenv(envSlurmMax); ms != "" {
		hi, err := envInt(envSlurmMax, ms)
		if err != nil {
			return buildSlice{}, err
		}
		if want := lo + (n-1)*step; hi != want {
			return buildSlice{}, fmt.Errorf("--shard auto: the array %d-%d:%d (%s, %s) is not %d tasks of step %d; submit a range such as --array=0-%d", lo, hi, step, envSlurmMax, detail, n, step, n-1)
		}
	}
	s := buildSlice{Index: (task - lo) / step, Count: n, Source: "slurm",
		Detail: fmt.Sprintf("%s=%d, %s=%d, %s=%d, %s", envSlurmID, task, envSlurmMin, lo, envSlurmStep, step, detail)}
	return s, s.inRange()
}

// shardCount is the count from the flag, else from the variable named env;
// both given and different is an error (one of them is stale).
func shardCount(flagCount int, env string, getenv func(string) string, hint string) (int, string, error) {
	v := getenv(env)
	if v == "" {
		if flagCount == 0 {
			return 0, "", fmt.Errorf("--shard auto: the shard count is unknown: %s is not set (%s) and --shard is not auto/n", env, hint)
		}
		return flagCount, fmt.Sprintf("count %d from --shard", flagCount), nil
	}
	n, err := envInt(env, v)
	if err != nil {
		return 0, "", err
	}
	if n < 1 {
		return 0, "", fmt.Errorf("--shard auto: %s=%s, want ≥ 1", env, v)
	}
	if flagCount != 0 && flagCount != n {
		return 0, "", fmt.Errorf("--shard auto/%d: %s=%d says otherwise; give one count", flagCount, env, n)
	}
	return n, fmt.Sprintf("%s=%d", env, n), nil
}

func (s buildSlice) inRange() error {
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("--shard auto: index %d (%s) is out of range 0..%d", s.Index, s.Detail, s.Count-1)
	}
	return nil
}

func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
	}
	return n, nil
}
