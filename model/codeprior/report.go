package codeprior

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
)

// ErrSources reports a sources file that cannot be used.
var ErrSources = errors.New("code prior sources")

// ReadSources reads a JSON list of source folders with their provenance
// ({"dir", "label", "kind", "package", "version", "repo", "commit",
// "license"}); a relative dir is taken from the file's folder.
func ReadSources(path string) ([]SourceDir, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSources, err)
	}
	var srcs []SourceDir
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&srcs); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSources, path, err)
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("%w: %s lists no source", ErrSources, path)
	}
	for i := range srcs {
		if srcs[i].Dir == "" || srcs[i].Label == "" {
			return nil, fmt.Errorf("%w: %s: source %d needs a dir and a label", ErrSources, path, i)
		}
		if !filepath.IsAbs(srcs[i].Dir) {
			srcs[i].Dir = filepath.Join(filepath.Dir(path), srcs[i].Dir)
		}
	}
	return srcs, nil
}

// WriteReport prints what the artifact was built from: the sources with
// what became of their files, the overlap with every task set, and the
// perplexities.
func (h *Header) WriteReport(w io.Writer, size int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "source\tversion\tfiles\ttrain\theld out\toverlap\tduplicate\tdata\tlarge\ttokens\t")
	for _, t := range h.TaskSets {
		fmt.Fprintf(tw, "%s files/windows\t", t.Name)
	}
	fmt.Fprintln(tw)
	for _, s := range h.Sources {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t", s.Label, s.Version+s.Commit, s.Files, s.Train,
			s.HeldOut, s.DroppedOverlap, s.DroppedDuplicate, s.DroppedData, s.DroppedLarge, s.TrainTokens)
		for _, o := range s.Overlap {
			fmt.Fprintf(tw, "%d/%d\t", o.Files, o.Windows)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task set\treferences\twindows\ttoo short\tfiles dropped\twindows matched\treferences matched\t")
	for _, t := range h.TaskSets {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Name, t.Tasks, t.Windows, t.NoWindow, t.FilesDropped,
			t.WindowsMatched, t.TasksMatched)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "perplexity on\tfiles\tsymbols\tppl\tunigram ppl\t")
	for _, e := range h.Eval {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t\n", e.Set, e.Files, e.Tokens, e.PPL, e.UnigramPPL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\norder %d, min counts %v, entries %v, %d symbols; %d training files, %d symbols; %d bytes\n",
		h.Order, h.MinCount, h.Entries, len(h.Vocab), h.TrainFiles, h.TrainTokens, size)
	return err
}
