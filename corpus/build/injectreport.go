package build

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"triage/corpus"
)

// InjectReport is what `triage tasks inject` reports (its JSON output):
// the roots FillRoots gave each task.
type InjectReport struct {
	Tasks       int            `json:"tasks"`
	Roots       int            `json:"roots"`
	PerTask     map[string]int `json:"roots_per_task"`
	WithoutRoot []string       `json:"without_root,omitempty"`
	Out         string         `json:"out"`
	Seed        uint64         `json:"seed"`
	Seconds     float64        `json:"seconds"`
}

// NewInjectReport counts the roots of tasks, written to out with seed.
func NewInjectReport(tasks []corpus.Task, out string, seed uint64) InjectReport {
	rep := InjectReport{Tasks: len(tasks), PerTask: map[string]int{}, Out: out, Seed: seed}
	for _, t := range tasks {
		rep.PerTask[t.ID] = len(t.Roots)
		rep.Roots += len(t.Roots)
		if len(t.Roots) == 0 {
			rep.WithoutRoot = append(rep.WithoutRoot, t.ID)
		}
	}
	return rep
}

// WriteText writes the report as the table `triage tasks inject` prints.
func (rep InjectReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "tasks\t%d\n", rep.Tasks)
	fmt.Fprintf(tw, "roots\t%d\n", rep.Roots)
	fmt.Fprintf(tw, "tasks without a root\t%d\n", len(rep.WithoutRoot))
	fmt.Fprintf(tw, "seconds\t%.1f\n", rep.Seconds)
	fmt.Fprintf(tw, "written\t%s\n", rep.Out)
	return tw.Flush()
}

// WriteTasksFile writes tasks as JSONL to path through a temporary file
// renamed into place, so a failed run leaves no partial file.
func WriteTasksFile(path string, tasks []corpus.Task) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := corpus.WriteTasks(bw, tasks); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
