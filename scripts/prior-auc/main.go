// Command prior-auc measures how well the change in log-probability that
// an edit makes separates edges to a fix from the others on repair trees,
// for the code prior (model/codeprior) and for the bag model's in-corpus
// n-gram (model.NGram) fitted on reference programs or on fixes:
//
//	go run ./scripts/prior-auc [-prior FILE] [-trees corpus/mbpp/test-trees] [-own mbpp] [-other bundled] [-folds 5] [-child program|text]
//
// For every expanded edge (parent program → child program) the score is
// the log-probability of the child's edited lines minus that of the
// parent's (the lines left once the common prefix and suffix are removed;
// codeprior.EditedLines), or of the whole programs. Labels: the child
// passes every test (t = 1), and the child leads to a fix (t > 0, not
// censored). AUC is the Mann–Whitney probability that a positive edge
// scores above a negative one (ties count half); "siblings" restricts the
// pairs to edges of the same parent, what a ranking of a parent's edits
// sees. With -child text every row scores the child the edit text
// describes instead (what a scorer has before the edge is expanded).
//
// The n-gram rows: fitted on the references of -own's tasks including the
// trees' own tasks (leaky: how the training split's edges are scored
// today), without them, on -other's references, and on the fixes of the
// trees' other tasks (-folds folds by task, each fold scored by a model
// fitted on the others).
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/corpus/taskset"
	"triage/model"
	"triage/model/codeprior"
)

// edge is one expanded edge with its labels.
type edge struct {
	task, parentKey string
	// child is the expanded child's program, or with -child text the one
	// the edit text describes (model.ParseEditText and codeprior.ApplyEdit:
	// what a scorer has before expanding the edge; the parent where the
	// text does not parse or apply, so every score is 0).
	parent, child string
	// program is the expanded child's program (the fixes the n-gram of
	// fixes is fitted on).
	program         string
	solved, reaches bool
}

func main() {
	priorPath := flag.String("prior", "", "code prior artifact (default: the embedded default)")
	trees := flag.String("trees", "corpus/mbpp/test-trees", "corpus folders, comma-separated")
	own := flag.String("own", "mbpp", "the trees' task set (its references: the leaky and out-of-fold rows)")
	other := flag.String("other", "bundled", "another task set (the other-source row)")
	folds := flag.Int("folds", 5, "folds by task for the n-gram fitted on fixes")
	order := flag.Int("order", 4, "order of the in-corpus n-gram")
	bits := flag.Int("bits", 18, "hash bits of the in-corpus n-gram (the bag model's default)")
	baselines := flag.Bool("baselines", true, "also the in-corpus n-gram rows (they need the trees' own task set, -own)")
	childFrom := flag.String("child", "program", "the child every row scores: program (the expanded child's) or text (what the edit text describes)")
	flag.Parse()
	if *childFrom != "program" && *childFrom != "text" {
		log.Fatalf("-child %q: want program or text", *childFrom)
	}

	prior, err := loadPrior(*priorPath)
	if err != nil {
		log.Fatal(err)
	}
	edges, taskIDs := loadEdges(strings.Split(*trees, ","), *childFrom == "text")
	inTrees := map[string]bool{}
	for _, id := range taskIDs {
		inTrees[id] = true
	}
	var rows []row
	if *baselines {
		rows = ngramRows(edges, inTrees, *own, *other, *folds, *order, *bits)
	}
	h := prior.Header()
	rows = append(rows, priorRows(prior, edges, fmt.Sprintf("code prior (order %d, %d training files)", h.Order, h.TrainFiles))...)

	solved, reaches := 0, 0
	for _, e := range edges {
		if e.solved {
			solved++
		}
		if e.reaches {
			reaches++
		}
	}
	fmt.Printf("%d expanded edges of %d tasks (%s); %d to a passing child, %d to a fix at any depth\n\n",
		len(edges), len(taskIDs), *trees, solved, reaches)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Δ log-probability of\tAUC child passes\tAUC leads to a fix\tsiblings: child passes\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t\n", r.name, auc(r.scores, edges, false), auc(r.scores, edges, true),
			siblingAUC(r.scores, edges))
	}
	if err := tw.Flush(); err != nil {
		log.Fatal(err)
	}
}

func loadPrior(path string) (*codeprior.Model, error) {
	if path == "" {
		return codeprior.Default()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return codeprior.Load(data)
}

// priorRows are the prior's four features of every edge.
func priorRows(prior *codeprior.Model, edges []edge, name string) []row {
	lines, linesMean, prog, progMean := make([]float64, len(edges)), make([]float64, len(edges)), make([]float64, len(edges)), make([]float64, len(edges))
	for i, e := range edges {
		f := prior.EditFeatures(e.parent, e.child)
		lines[i], linesMean[i], prog[i], progMean[i] = f.Lines, f.LinesMean, f.Program, f.ProgramMean
	}
	return []row{{name + ": edited lines", lines}, {name + ": edited lines, per symbol", linesMean},
		{name + ": program", prog}, {name + ": program, per symbol", progMean}}
}

// row is one line of the table: a name and a score of every edge.
type row struct {
	name   string
	scores []float64
}

// ngramRows are the in-corpus n-gram's rows: fitted on own's references
// with and without the trees' tasks, on other's, and on the fixes of the
// trees' other tasks, out of fold.
func ngramRows(edges []edge, inTrees map[string]bool, own, other string, folds, order, bits int) []row {
	ownTasks, err := taskset.Load(own, false)
	if err != nil {
		log.Fatal(err)
	}
	otherTasks, err := taskset.Load(other, false)
	if err != nil {
		log.Fatal(err)
	}
	refs := func(tasks []corpus.Task, keep func(id string) bool) []string {
		var out []string
		for _, t := range tasks {
			if keep(t.ID) {
				out = append(out, t.Solution)
			}
		}
		return out
	}
	all := func(string) bool { return true }
	var rows []row
	ngramRow := func(name string, progs []string) {
		lm := fitNGram(order, bits, progs)
		s := make([]float64, len(edges))
		for i, e := range edges {
			s[i] = ngramDelta(lm, e.parent, e.child)
		}
		rows = append(rows, row{fmt.Sprintf("%s (%d programs)", name, len(progs)), s})
	}
	ngramRow(own+" references, the trees' tasks included (leaky)", refs(ownTasks, all))
	ngramRow(own+" references, the trees' tasks left out", refs(ownTasks, func(id string) bool { return !inTrees[id] }))
	ngramRow(other+" references", refs(otherTasks, all))
	return append(rows, row{fmt.Sprintf("fixes of the trees' other tasks (%d folds)", folds), fixesOutOfFold(edges, folds, order, bits)})
}

// loadEdges reads every expanded edge whose child holds a program.
func loadEdges(dirs []string, fromText bool) ([]edge, []string) {
	trees, err := shard.LoadTrees(dirs...)
	if err != nil {
		log.Fatal(err)
	}
	var edges []edge
	var tasks []string
	for _, t := range trees {
		tasks = append(tasks, t.TaskID)
		for _, e := range t.Edges {
			if e.Child == corpus.NoNode {
				continue
			}
			p, c := t.Node(e.Parent), t.Node(e.Child)
			if c.ReviseFailed || c.Program == "" {
				continue
			}
			ed := edge{task: t.TaskID, parentKey: fmt.Sprintf("%s/%d", t.ID, e.Parent),
				parent: p.Program, child: c.Program, program: c.Program, solved: c.Solved(), reaches: !e.Label.Censored && e.Label.T > 0}
			if fromText {
				ed.child = p.Program
				if ch, ok := model.ParseEditText(e.Edit.Text); ok {
					ed.child, _ = codeprior.ApplyEdit(p.Program, ch.Line, ch.Before, ch.After)
				}
			}
			edges = append(edges, ed)
		}
	}
	slices.Sort(tasks)
	return edges, slices.Compact(tasks)
}

func fitNGram(order, bits int, progs []string) *model.NGram {
	lm, err := model.NewNGram(order, bits)
	if err != nil {
		log.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range progs {
		lm.Fit(p, seen)
	}
	return lm
}

// ngramDelta is the n-gram's log-probability of the child's edited lines
// minus the parent's.
func ngramDelta(lm *model.NGram, parent, child string) float64 {
	pr, cr := codeprior.EditedLines(parent, child)
	sum := func(src string, r [2]int) float64 {
		lines := strings.Split(src, "\n")
		var s float64
		for i := r[0]; i <= r[1] && i <= len(lines); i++ {
			s += lm.LogProb(lines[i-1])
		}
		return s
	}
	return sum(child, cr) - sum(parent, pr)
}

// fixesOutOfFold scores each edge with an n-gram fitted on the passing
// programs of the trees of the other folds' tasks.
func fixesOutOfFold(edges []edge, folds, order, bits int) []float64 {
	fold := func(task string) int {
		h := fnv.New32a()
		h.Write([]byte(task))
		return int(h.Sum32() % uint32(folds))
	}
	out := make([]float64, len(edges))
	for k := range folds {
		seen := map[string]bool{}
		var fixes []string
		for _, e := range edges {
			if e.solved && fold(e.task) != k && !seen[e.program] {
				seen[e.program] = true
				fixes = append(fixes, e.program)
			}
		}
		lm := fitNGram(order, bits, fixes)
		for i, e := range edges {
			if fold(e.task) == k {
				out[i] = ngramDelta(lm, e.parent, e.child)
			}
		}
	}
	return out
}

// auc is the Mann–Whitney AUC of scores for the label (reaches or solved),
// ties counted half.
func auc(scores []float64, edges []edge, reaches bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case scores[a] < scores[b]:
			return -1
		case scores[a] > scores[b]:
			return 1
		}
		return 0
	})
	var rankSum, pos float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // average 1-based rank of the tie group
		for _, k := range idx[i:j] {
			if label(edges[k], reaches) {
				rankSum += mid
				pos++
			}
		}
		i = j
	}
	neg := float64(len(idx)) - pos
	if pos == 0 || neg == 0 {
		return 0.5
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

func label(e edge, reaches bool) bool {
	if reaches {
		return e.reaches
	}
	return e.solved
}

// siblingAUC is the share of (passing, failing) pairs of edges of one
// parent that the scores order correctly, ties counted half.
func siblingAUC(scores []float64, edges []edge) float64 {
	byParent := map[string][]int{}
	for i, e := range edges {
		byParent[e.parentKey] = append(byParent[e.parentKey], i)
	}
	var good, pairs float64
	for _, ids := range byParent {
		for _, a := range ids {
			for _, b := range ids {
				if edges[a].solved && !edges[b].solved {
					pairs++
					switch {
					case scores[a] > scores[b]:
						good++
					case scores[a] == scores[b]:
						good += 0.5
					}
				}
			}
		}
	}
	if pairs == 0 {
		return 0.5
	}
	return good / pairs
}
