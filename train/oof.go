package train

import (
	"context"
	"fmt"
	"sort"

	"triage/corpus"
	"triage/model"
)

// oofFolds is how many folds of training tasks the out-of-fold n-grams are
// fitted over: each training example is encoded by an n-gram fitted on
// the fixes of the other folds' tasks, four fifths of the training fixes.
const oofFolds = 5

// oofSeed seeds the assignment of training tasks to those folds; it is
// fixed, not the training seed, so every seed's model sees the same
// encodings and a resumed run rebuilds them.
const oofSeed = 0x00f

// foldLMs are the n-grams the training examples are encoded with, out of
// fold by task: the n-gram of a task's fold was fitted on no fix of that
// task. The checkpoint's own n-gram, fitted on every training fix, is the
// one validation and inference use; the tasks they score were not in
// training, so for them it is out of fold too.
type foldLMs struct {
	fold map[string]int // task id → fold
	lms  []*model.NGram
}

// of returns the n-gram for an example of task: its fold's. A task with
// no fold (not seen while fitting) gets the n-gram of fold 0, which holds
// no fix of it either.
func (f *foldLMs) of(task string) *model.NGram {
	return f.lms[f.fold[task]]
}

// fitFoldLMs reads the fixes of src's trees (the programs that pass every
// test, once per program and task) and fits one n-gram of order and bits
// per fold on the fixes of the tasks outside it. It also returns the
// training tasks in order, for tests.
func fitFoldLMs(ctx context.Context, src Source, order, bits int) (*foldLMs, error) {
	fixes := map[string][]string{} // task → its fix programs
	seen := map[[2]string]bool{}
	err := src.Trees(ctx, func(t *corpus.Tree) error {
		if _, ok := fixes[t.TaskID]; !ok {
			fixes[t.TaskID] = nil
		}
		for i := range t.Nodes {
			n := &t.Nodes[i]
			k := [2]string{t.TaskID, n.ProgramSHA}
			if n.Solved() && n.Program != "" && !seen[k] {
				seen[k] = true
				fixes[t.TaskID] = append(fixes[t.TaskID], n.Program)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("out-of-fold n-grams: %w", err)
	}
	tasks := make([]string, 0, len(fixes))
	for id := range fixes {
		tasks = append(tasks, id)
	}
	sort.Strings(tasks)
	f := &foldLMs{fold: Folds(tasks, oofFolds, oofSeed)}
	for k := range oofFolds {
		lm, err := model.NewNGram(order, bits)
		if err != nil {
			return nil, err
		}
		vocab := map[string]bool{}
		for _, id := range tasks {
			if f.fold[id] == k {
				continue
			}
			for _, p := range fixes[id] {
				lm.Fit(p, vocab)
			}
		}
		f.lms = append(f.lms, lm)
	}
	return f, nil
}
