package train

import (
	"context"
	"fmt"
	"math"

	"triage/corpus"
	"triage/model"
)

// Stats are what one pass over the training split tells before training:
// the example count and the statistics that standardize the model's
// numeric inputs.
type Stats struct {
	Trees, TreesWithFix int
	Groups, Edges       int64
	Observed            int64 // edges with an observed solve distance (not censored)
	FeatureMean         [model.NumFeatures]float32
	FeatureStd          [model.NumFeatures]float32
	// DenseMean and DenseStd standardize the bag model's relational
	// features (nil for other architectures).
	DenseMean, DenseStd []float32
	// FixPrograms is how many fixed programs the n-gram model was fitted on.
	FixPrograms int
}

// moments accumulates a running mean and variance (Welford).
type moments struct {
	n    float64
	mean []float64
	m2   []float64
}

func newMoments(dim int) *moments {
	return &moments{mean: make([]float64, dim), m2: make([]float64, dim)}
}

func (m *moments) add(x []float32) {
	m.n++
	for i, v := range x {
		d := float64(v) - m.mean[i]
		m.mean[i] += d / m.n
		m.m2[i] += d * (float64(v) - m.mean[i])
	}
}

// result returns mean and std, with a std floor so constant inputs
// standardize to 0 instead of dividing by 0.
func (m *moments) result() (mean, std []float32) {
	mean = make([]float32, len(m.mean))
	std = make([]float32, len(m.mean))
	for i := range m.mean {
		mean[i] = float32(m.mean[i])
		v := 0.0
		if m.n > 1 {
			v = m.m2[i] / (m.n - 1)
		}
		std[i] = float32(math.Max(math.Sqrt(v), 0.05))
	}
	return mean, std
}

// prepare makes one pass over the training split: it counts examples,
// fits the bag model's n-gram model on every program that passes its tests
// (CodeTriage's corpora hold the fixes), and accumulates the feature
// statistics; a second pass over a bounded sample encodes edges to fit the
// bag model's relational-feature statistics.
//
// The relational features are encoded as training encodes them: with the
// n-gram of the example's task's fold (oof), never one fitted on its own
// task's fixes.
func prepare(ctx context.Context, src Source, lm *model.NGram, bag *model.BagNet, oof *foldLMs, sample int) (Stats, error) {
	var st Stats
	feat := newMoments(model.NumFeatures)
	seen := map[string]bool{}
	fixes := map[string]bool{}
	err := src.Trees(ctx, func(t *corpus.Tree) error {
		st.Trees++
		if lm != nil {
			for i := range t.Nodes {
				n := &t.Nodes[i]
				if n.Solved() && n.Program != "" && !fixes[n.ProgramSHA] {
					fixes[n.ProgramSHA] = true
					lm.Fit(n.Program, seen)
				}
			}
		}
		gs := GroupsOfTree(t)
		if len(gs) > 0 {
			st.TreesWithFix++
		}
		for _, g := range gs {
			st.Groups++
			for i := range g.Edges {
				st.Edges++
				if g.T[i] > 0 {
					st.Observed++
				}
				f := g.Edges[i].Features()
				feat.add(f[:])
			}
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("prepare: %w", err)
	}
	st.FixPrograms = len(fixes)
	if st.Groups == 0 {
		return st, fmt.Errorf("prepare: the training split holds no tree with a fix (%d trees read)", st.Trees)
	}
	mean, std := feat.result()
	copy(st.FeatureMean[:], mean)
	copy(st.FeatureStd[:], std)
	if bag == nil {
		return st, nil
	}
	dense := newMoments(len(bag.Config.Dense()))
	n := 0
	err = src.Trees(ctx, func(t *corpus.Tree) error {
		if n >= sample {
			return errStop
		}
		for _, g := range GroupsOfTree(t) {
			enc, err := encoder(bag, oof)(g)
			if err != nil {
				return fmt.Errorf("tree %s node %d: %w", t.ID, g.Node, err)
			}
			for _, d := range enc.Dense {
				dense.add(d)
			}
			n++
		}
		return nil
	})
	if err != nil && err != errStop {
		return st, fmt.Errorf("prepare: %w", err)
	}
	st.DenseMean, st.DenseStd = dense.result()
	return st, nil
}
