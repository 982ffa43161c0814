package build_test

import (
	"context"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/shard"
	"triage/corpus/stats"
)

func TestSourceColumn(t *testing.T) {
	tasks := corpustest.FakeTasks(6)
	for i := range 3 {
		tasks[i].Source = "mbpp"
	}
	dir := t.TempDir()
	if _, err := build.BuildCorpus(context.Background(), tasks, buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	trees, err := shard.LoadTrees(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range tasks {
		want[tasks[i].ID] = corpus.SourceOf(&tasks[i])
	}
	for _, tr := range trees {
		if tr.Source != want[tr.TaskID] {
			t.Errorf("tree %s: source %q, want %q", tr.ID, tr.Source, want[tr.TaskID])
		}
	}
	s, err := stats.ComputeStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sources["mbpp"] == nil || s.Sources["mbpp"].Tasks != 3 || s.Sources[corpus.SourceUnknown] == nil || s.Sources[corpus.SourceUnknown].Tasks != 3 {
		t.Errorf("sources = %+v, want 3 mbpp and 3 unknown tasks", s.Sources)
	}
	if s.Sources["mbpp"].Trees+s.Sources[corpus.SourceUnknown].Trees != s.Trees {
		t.Errorf("source trees do not add up to %d", s.Trees)
	}
	// The source is a label: the task digest (resume check) ignores it.
	plain := corpustest.FakeTasks(6)
	if build.TasksDigest(plain) != build.TasksDigest(tasks) {
		t.Error("task digest depends on the source")
	}
}
