package build_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/limits"
	"triage/corpus/manifest"
)

// TestResumeRefusesChangedVerdictSettings: every setting that changes
// verdicts is recorded, and a resumed build with another value is refused
// with the setting named.
func TestResumeRefusesChangedVerdictSettings(t *testing.T) {
	tasks := corpustest.FakeTasks(4)
	dir := t.TempDir()
	o := buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.ExecutorSettings = map[string]string{"memory_mb": "1024", "python": "/usr/bin/python3"}
	if _, err := build.BuildCorpus(context.Background(), tasks, o); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(o *build.BuildOptions)
		want   string
	}{
		{"floor", func(o *build.BuildOptions) { o.Limits.Floor = time.Second }, `time_limits.floor: manifest "50ms", now "1s"`},
		{"factor", func(o *build.BuildOptions) { o.Limits.Factor = 3 }, "time_limits.factor: manifest 10, now 3"},
		{"cap", func(o *build.BuildOptions) { o.Limits.Cap = 5 * time.Second }, "time_limits.cap"},
		{"fixed limit", func(o *build.BuildOptions) { o.Limits = limits.TimeLimits{Fixed: time.Second} }, `time_limits.fixed: manifest (unset), now "1s"`},
		{"reference runs", func(o *build.BuildOptions) { o.ReferenceRuns = 5 }, "reference_runs: manifest 3, now 5"},
		{"executor memory", func(o *build.BuildOptions) {
			o.ExecutorSettings = map[string]string{"memory_mb": "2048", "python": "/usr/bin/python3"}
		},
			`executor.memory_mb: manifest "1024", now "2048"`},
		{"executor setting dropped", func(o *build.BuildOptions) { o.ExecutorSettings = map[string]string{"memory_mb": "1024"} },
			`executor.python: manifest "/usr/bin/python3", now (unset)`},
		{"depth", func(o *build.BuildOptions) { o.Config.D = 2 }, "depth: manifest 3, now 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
			o.ExecutorSettings = map[string]string{"memory_mb": "1024", "python": "/usr/bin/python3"}
			o.Resume, o.Limits = true, limits.DefaultTimeLimits()
			tc.change(&o)
			_, err := build.BuildCorpus(context.Background(), tasks, o)
			if !errors.Is(err, manifest.ErrSettingsMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrSettingsMismatch naming %q", err, tc.want)
			}
		})
	}
	// The same settings, another name for the task file: accepted.
	o = buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.ExecutorSettings = map[string]string{"memory_mb": "1024", "python": "/usr/bin/python3"}
	o.Resume, o.TasksSource = true, "another/path.jsonl"
	if _, err := build.BuildCorpus(context.Background(), tasks, o); err != nil {
		t.Errorf("resume with the same settings: %v", err)
	}
}
