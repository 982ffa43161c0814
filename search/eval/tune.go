package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"triage/policy"
)

// Metric is what Tune optimizes.
type Metric string

// Tuning metrics.
const (
	// MetricET: the lowest E[T].
	MetricET Metric = "ET"
	// MetricAUSC: the highest AUSC at the largest budget.
	MetricAUSC Metric = "AUSC"
)

// TunePoint is one grid point's result.
type TunePoint struct {
	Params policy.Params `json:"params"`
	ET     float64       `json:"ET"`
	AUSC   float64       `json:"AUSC"`
}

// Tuning is the outcome of Tune.
type Tuning struct {
	Trees int `json:"trees"`
	Tasks int `json:"tasks"`
	// Budget is the budget of the AUSC column.
	Budget int         `json:"budget"`
	Points []TunePoint `json:"grid"`
	// Best indexes Points: the chosen point (the first of equals).
	Best int `json:"best"`
}

// Tune replays every grid point of one policy (pols, each built with its
// point's Params) over src in one pass and picks the best by metric; AUSC
// is taken at the largest of opts.Budgets. Tune on a validation split,
// never on the test split.
func Tune(ctx context.Context, src Source, pols []Policy, metric Metric, opts Options) (*Tuning, error) {
	if metric != MetricET && metric != MetricAUSC {
		return nil, fmt.Errorf("tune: unknown metric %q", metric)
	}
	res, err := Evaluate(ctx, src, pols, opts)
	if err != nil {
		return nil, err
	}
	tu := &Tuning{Trees: res.Trees, Tasks: res.Tasks, Budget: slices.Max(res.Budgets), Best: -1}
	mb := strconv.Itoa(tu.Budget)
	best := math.Inf(1)
	for i, pr := range res.Policies {
		tp := TunePoint{Params: pr.Params, ET: pr.Summary.ET, AUSC: pr.Summary.AUSC[mb]}
		tu.Points = append(tu.Points, tp)
		v := tp.ET
		if metric == MetricAUSC {
			v = -tp.AUSC
		}
		if v < best {
			tu.Best, best = i, v
		}
	}
	if tu.Best < 0 {
		return nil, fmt.Errorf("tune: no grid point has a finite %s", metric)
	}
	return tu, nil
}
