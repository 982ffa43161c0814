package report

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"triage/corpus"
	"triage/policy"
	"triage/search/eval"
)

// WriteTuning writes the grid of a tuning of policy name as the Markdown
// table `triage tune` prints, the chosen point marked, and the file out
// the choice went to.
func WriteTuning(w io.Writer, name string, tu *eval.Tuning, out string) error {
	mb := strconv.Itoa(tu.Budget)
	var b strings.Builder
	b.WriteString("| " + name + " | E[T] | AUSC(" + mb + ") |\n|---|---|---|\n")
	for i, r := range tu.Points {
		mark := ""
		if i == tu.Best {
			mark = " (chosen)"
		}
		b.WriteString("| " + r.Params.String() + mark + " | " + strconv.FormatFloat(r.ET, 'f', 2, 64) + " | " + strconv.FormatFloat(r.AUSC, 'f', 3, 64) + " |\n")
	}
	b.WriteString("\nwrote " + out + "\n")
	_, err := w.Write([]byte(b.String()))
	return err
}

// TuneOptions are one `triage tune`: the policy and its grid, the corpus
// folders and split, the selection metric, the file the choice is merged
// into, and how to replay.
type TuneOptions struct {
	Corpus     []string // corpus folders
	CorpusName string   // the corpus as the user named it, for errors
	Split      string
	Policy     string
	Points     []policy.Params // the grid
	// Scorer is the learned model of a policy that needs one.
	Scorer policy.Scorer
	Metric eval.Metric
	Out    string
	Seeds  int
	// Workers replay at once (0: one per CPU, or 32 for a policy with a
	// scorer, to fill the scorer's batches).
	Workers int
	// JSON prints the JSON record instead of the table.
	JSON bool
}

// Validate checks o. A bad value is bad input naming its field
// (corpus.Invalid).
func (o *TuneOptions) Validate() error {
	if o.Split == corpus.SplitTest {
		return corpus.Invalid("{Split} test: hyperparameters are tuned on val (or train), never on test")
	}
	if o.Policy == "" || len(o.Points) == 0 || o.Out == "" {
		return corpus.Invalid("{Policy}, {Points} and {Out} are required")
	}
	if o.Metric != eval.MetricET && o.Metric != eval.MetricAUSC {
		return corpus.Invalid("{Metric} %q: want ET or AUSC", o.Metric)
	}
	if o.Seeds < 1 {
		return corpus.Invalid("{Seeds} must be >= 1")
	}
	if _, err := corpus.Workers(o.Workers); err != nil {
		return err
	}
	return CheckCorpus(o.Corpus, o.Split)
}

// Tune validates o, replays o.Policy at every grid point on the split,
// keeps the best point by o.Metric, merges it into o.Out, and writes the
// grid table (or the JSON record) to w. An unreadable or malformed o.Out is
// bad input, found before any replay.
func Tune(ctx context.Context, w io.Writer, o TuneOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	sc := eval.NewSharedScorer(o.Scorer)
	defer sc.Close()
	workers := o.Workers
	if policy.NeedsScorer(o.Policy) && workers == 0 {
		workers = 32 // episodes wait on the shared scorer: more in flight fill its batches
	}
	workers, _ = corpus.Workers(workers)
	pols, err := eval.GridPolicies(o.Policy, o.Points, sc)
	if err != nil {
		return err
	}
	set := policy.ParamSet{}
	if raw, err := os.ReadFile(o.Out); err == nil {
		if set, err = policy.ReadParamSet(strings.NewReader(string(raw))); err != nil {
			return corpus.Invalid("{Out} %s: %v", o.Out, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return corpus.Invalid("{Out} %s: %v", o.Out, err)
	}
	src, err := eval.OpenSplit(o.Corpus, o.Split, pols)
	if err != nil {
		return err
	}
	defer src.Close()
	tu, err := eval.Tune(ctx, src, pols, o.Metric, eval.Options{Seeds: o.Seeds, Resamples: 1, Workers: workers})
	if err != nil {
		return eval.NoTreesInput(err, o.CorpusName, o.Split)
	}
	results, best := tu.Points, tu.Best
	set[o.Policy] = results[best].Params
	if err := WriteJSONFile(o.Out, set); err != nil {
		return err
	}
	if o.JSON {
		return WriteJSON(w, map[string]any{"policy": o.Policy, "split": o.Split, "metric": string(o.Metric), "trees": tu.Trees,
			"tasks": tu.Tasks, "grid": results, "chosen": results[best].Params, "out": o.Out})
	}
	return WriteTuning(w, o.Policy, tu, o.Out)
}
