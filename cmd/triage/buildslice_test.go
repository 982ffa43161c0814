package main

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	k8s := func(idx, n string) map[string]string {
		m := map[string]string{envK8sIndex: idx}
		if n != "" {
			m[envK8sCount] = n
		}
		return m
	}
	slurm := func(id, lo, hi, step, n string) map[string]string {
		m := map[string]string{}
		for k, v := range map[string]string{envSlurmID: id, envSlurmMin: lo, envSlurmMax: hi, envSlurmStep: step, envSlurmCount: n} {
			if v != "" {
				m[k] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		spec   string
		env    map[string]string
		i, n   int
		source string
		err    string // part of the error; "" = no error
	}{
		{"explicit", "2/8", nil, 2, 8, "flag", ""},
		{"explicit ignores env", "0/1", k8s("5", "8"), 0, 1, "flag", ""},
		{"explicit out of range", "8/8", nil, 0, 0, "", "want i/n"},
		{"explicit no count", "3", nil, 0, 0, "", "want i/n"},
		{"explicit negative", "-1/2", nil, 0, 0, "", "want i/n"},
		{"explicit zero count", "0/0", nil, 0, 0, "", "want i/n"},
		{"garbage", "x/y", nil, 0, 0, "", "want i/n"},
		{"auto bad count", "auto/0", k8s("0", ""), 0, 0, "", "auto/n with n ≥ 1"},
		{"auto no env", "auto", nil, 0, 0, "", "neither JOB_COMPLETION_INDEX"},
		{"k8s", "auto", k8s("3", "8"), 3, 8, "kubernetes", ""},
		{"k8s count from flag", "auto/8", k8s("7", ""), 7, 8, "kubernetes", ""},
		{"k8s flag agrees", "auto/8", k8s("7", "8"), 7, 8, "kubernetes", ""},
		{"k8s flag disagrees", "auto/4", k8s("1", "8"), 0, 0, "", "JOB_COMPLETIONS=8 says otherwise"},
		{"k8s no count", "auto", k8s("0", ""), 0, 0, "", "JOB_COMPLETIONS is not set"},
		{"k8s index out of range", "auto", k8s("8", "8"), 0, 0, "", "index 8 (JOB_COMPLETION_INDEX=8, JOB_COMPLETIONS=8) is out of range 0..7"},
		{"k8s negative index", "auto", k8s("-1", "8"), 0, 0, "", "out of range"},
		{"k8s not a number", "auto", k8s("one", "8"), 0, 0, "", `JOB_COMPLETION_INDEX="one" is not an integer`},
		{"k8s zero count", "auto", k8s("0", "0"), 0, 0, "", "JOB_COMPLETIONS=0, want ≥ 1"},
		{"both engines", "auto", map[string]string{envK8sIndex: "0", envK8sCount: "2", envSlurmID: "0"}, 0, 0, "", "both"},
		{"slurm from 0", "auto", slurm("0", "0", "3", "1", "4"), 0, 4, "slurm", ""},
		{"slurm from 1", "auto", slurm("4", "1", "4", "1", "4"), 3, 4, "slurm", ""},
		{"slurm step", "auto", slurm("7", "1", "9", "2", "5"), 3, 5, "slurm", ""},
		{"slurm no step var", "auto", slurm("5", "3", "", "", "4"), 2, 4, "slurm", ""},
		{"slurm count from flag", "auto/4", slurm("2", "0", "", "1", ""), 2, 4, "slurm", ""},
		{"slurm no min", "auto", slurm("2", "", "", "1", "4"), 0, 0, "", "SLURM_ARRAY_TASK_MIN is not set"},
		{"slurm off step", "auto", slurm("4", "1", "9", "2", "5"), 0, 0, "", "not SLURM_ARRAY_TASK_MIN=1 plus a multiple of SLURM_ARRAY_TASK_STEP=2"},
		{"slurm below min", "auto", slurm("0", "1", "4", "1", "4"), 0, 0, "", "plus a multiple"},
		{"slurm list array", "auto", slurm("4", "1", "9", "1", "3"), 0, 0, "", "is not 3 tasks of step 1"},
		{"slurm count too small", "auto/2", slurm("3", "0", "", "1", ""), 0, 0, "", "index 3"},
		{"slurm no count", "auto", slurm("0", "0", "3", "1", ""), 0, 0, "", "SLURM_ARRAY_TASK_COUNT is not set"},
		{"slurm bad step", "auto", slurm("0", "0", "3", "0", "4"), 0, 0, "", "SLURM_ARRAY_TASK_STEP=0, want ≥ 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseShard(tc.spec, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseShard(%q) = %+v, %v; want an error with %q", tc.spec, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseShard(%q): %v", tc.spec, err)
			}
			if got.Index != tc.i || got.Count != tc.n || got.Source != tc.source {
				t.Fatalf("parseShard(%q) = %+v; want %d/%d from %s", tc.spec, got, tc.i, tc.n, tc.source)
			}
		})
	}
}

// FuzzParseShard: no spec or environment panics, and every accepted shard
// is in range.
func FuzzParseShard(f *testing.F) {
	f.Add("auto", "3", "8", "", "", "")
	f.Add("auto/4", "", "", "7", "1", "2")
	f.Add("1/2", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, spec, idx, n, id, lo, step string) {
		env := map[string]string{envK8sIndex: idx, envK8sCount: n, envSlurmID: id, envSlurmMin: lo, envSlurmStep: step, envSlurmCount: n}
		s, err := parseShard(spec, func(k string) string { return env[k] })
		if err == nil && (s.Index < 0 || s.Index >= s.Count) {
			t.Fatalf("parseShard(%q) = %+v out of range", spec, s)
		}
	})
}
