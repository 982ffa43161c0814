package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy"
	"triage/search/eval"
)

// RunOptions say what `triage eval` evaluates and where it writes.
type RunOptions struct {
	Corpus     []string // corpus folders
	CorpusName string   // the corpus as the user named it, for titles and errors
	Split      string
	// Policies are the policies to evaluate (eval.BuildPolicies).
	Policies []eval.Policy
	// Eval says how to replay; Eval.Workers 0 runs one replay per CPU, or
	// 32 when a policy needs the scorer: its episodes wait on the shared
	// scorer, and more of them in flight fill its batches.
	Eval       eval.Options
	ReportPath string // the HTML report ("" for none)
	JSONFile   string // the JSON summary's file ("" for none)
	JSON       bool   // print the JSON summary instead of the Markdown table
	ViewTree   string // tree id in the report's viewer ("" for the first with a fix)
	ViewPolicy string // policy in the viewer ("" for learned if evaluated, else passrate)
}

// Validate checks o: the replay's counts, the corpus folders and split,
// and that the policies paired (Eval.Paired) are among Policies (once they
// are built). A bad value is bad input naming its field (corpus.Invalid).
func (o *RunOptions) Validate() error {
	e := &o.Eval
	if e.Seeds < 1 || e.Resamples < 1 {
		return corpus.Invalid("{Eval.Seeds} and {Eval.Resamples} must be >= 1")
	}
	if e.MaxExpansions < 0 || e.MaxExpansions > eval.MaxBudget {
		return corpus.Invalid("{Eval.MaxExpansions} %d: want 0 (no cap) up to %d", e.MaxExpansions, eval.MaxBudget)
	}
	if _, err := corpus.Workers(e.Workers); err != nil {
		return err
	}
	if o.Policies != nil {
		var names []string
		for _, p := range o.Policies {
			names = append(names, p.Policy.Name())
		}
		for _, n := range e.Paired {
			if !slices.Contains(names, n) {
				return corpus.Invalid("{Eval.Paired} %s: not among {Policies} %s", n, strings.Join(names, ","))
			}
		}
	}
	return CheckCorpus(o.Corpus, o.Split)
}

// CheckCorpus checks the corpus folders (field Corpus) and the split.
func CheckCorpus(dirs []string, split string) error {
	if len(dirs) == 0 {
		return corpus.Invalid("{Corpus} is required")
	}
	if err := corpus.CheckSplit(split); err != nil {
		return err
	}
	return shard.CheckDirs(dirs)
}

// Run validates o, evaluates the policies on the split and writes the
// Markdown table (or the JSON summary) to w, and the files RunOptions
// names.
func Run(ctx context.Context, w io.Writer, o RunOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Eval.Workers == 0 && slices.ContainsFunc(o.Policies, func(p eval.Policy) bool { return policy.NeedsScorer(p.Policy.Name()) }) {
		o.Eval.Workers = 32
	}
	o.Eval.Workers, _ = corpus.Workers(o.Eval.Workers)
	pols := o.Policies
	src, err := eval.OpenSplit(o.Corpus, o.Split, pols)
	if err != nil {
		return err
	}
	defer src.Close()
	first := &firstTree{Source: src}
	res, err := eval.Evaluate(ctx, first, pols, o.Eval)
	if err != nil {
		return eval.NoTreesInput(err, o.CorpusName, o.Split)
	}
	rep := New("triage eval: "+o.Split+" split of "+o.CorpusName, o.CorpusName, o.Split, res)
	if o.ReportPath != "" {
		view := first.view()
		if o.ViewTree != "" {
			view = o.ViewTree
		}
		if err := writeEvalHTML(ctx, rep, view, pols, o); err != nil {
			return err
		}
	}
	if o.JSONFile != "" {
		if err := WriteJSONFile(o.JSONFile, JSON(rep)); err != nil {
			return err
		}
	}
	if o.JSON {
		return WriteJSON(w, JSON(rep))
	}
	return WriteMarkdown(w, rep)
}

// firstTree passes a source through, remembering the smallest tree id: the
// tree the report's viewer shows by default.
type firstTree struct {
	eval.Source
	id    string // the smallest tree id
	fixID string // the smallest id of a tree that contains a fix
}

func (s *firstTree) Next() (*corpus.Tree, error) {
	t, err := s.Source.Next()
	if err != nil {
		return t, err
	}
	if s.id == "" || t.ID < s.id {
		s.id = t.ID
	}
	if s.fixID == "" || t.ID < s.fixID {
		for i := range t.Nodes {
			if t.Nodes[i].Exec.Solved() {
				s.fixID = t.ID
				break
			}
		}
	}
	return t, err
}

// view is the tree the report's viewer shows by default: the first tree
// with a fix (a search that ends in one shows the most), else the first.
func (s *firstTree) view() string {
	if s.fixID != "" {
		return s.fixID
	}
	return s.id
}

// writeEvalHTML writes the HTML report, its viewer showing the tree with
// id viewTree (read again, whole) searched by o.ViewPolicy.
func writeEvalHTML(ctx context.Context, rep *Report, viewTree string, pols []eval.Policy, o RunOptions) error {
	tree, err := readTree(o.Corpus, o.Split, viewTree)
	if err != nil {
		return err
	}
	want := o.ViewPolicy
	if want == "" {
		want = "passrate"
		for _, p := range pols {
			if p.Policy.Name() == "learned" {
				want = "learned"
			}
		}
	}
	var vp policy.Policy
	for _, p := range pols {
		if p.Policy.Name() == want {
			vp = p.Policy
		}
	}
	if vp == nil {
		var err error
		if vp, err = policy.New(want, nil); err != nil {
			return corpus.Invalid("{ViewPolicy}: %v", err)
		}
	}
	res, err := eval.Trace(ctx, tree, vp)
	if err != nil {
		return err
	}
	if rep.Viewer, err = NewViewer(tree, res); err != nil {
		return err
	}
	return WriteFile(o.ReportPath, func(fh *os.File) error { return WriteHTML(fh, rep) })
}

// readTree reads the tree with id from the split, every column.
func readTree(dirs []string, split, id string) (*corpus.Tree, error) {
	r, err := shard.OpenTrees(dirs, shard.ReadOptions{Split: split, TreeID: id, Columns: shard.AllColumns})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t, err := r.Next()
	if errors.Is(err, io.EOF) {
		return nil, corpus.Invalid("{ViewTree} %s: no such tree in split %s", id, split)
	}
	return t, err
}

// WriteJSON writes v as indented JSON to w.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSONFile writes v as indented JSON to path (see WriteFile).
func WriteJSONFile(path string, v any) error {
	return WriteFile(path, func(fh *os.File) error { return WriteJSON(fh, v) })
}

// WriteFile writes path through a temporary file renamed when done, so a
// reader never sees half a file. write gets the *os.File so it may Sync.
func WriteFile(path string, write func(*os.File) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	fh, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(fh.Name())
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(fh.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
