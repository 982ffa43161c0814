package policy

import (
	"context"
	"errors"
	"fmt"

	"triage/model/priority"
)

// Ensemble is a Scorer that asks every one of its members and averages
// their distributions bin by bin: s(e) of the mean distribution. Models
// trained with different seeds disagree most where the data taught them
// least, which is where a single model's confident mistakes cost a search
// the most; the mean keeps what they agree on and flattens the rest.
type Ensemble []Scorer

// Score implements Scorer. Every member must give each edge a distribution
// of the same length.
func (e Ensemble) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	if len(e) == 0 {
		return nil, errors.New("ensemble of no scorers")
	}
	var out []priority.Dist
	for m, s := range e {
		got, err := s.Score(ctx, edges)
		if err != nil {
			return nil, fmt.Errorf("ensemble member %d: %w", m, err)
		}
		if len(got) != len(edges) {
			return nil, fmt.Errorf("ensemble member %d: %d distributions for %d edges", m, len(got), len(edges))
		}
		if m == 0 {
			out = make([]priority.Dist, len(edges))
			for i, d := range got {
				out[i] = append(priority.Dist(nil), d...)
			}
			continue
		}
		for i, d := range got {
			if len(d) != len(out[i]) {
				return nil, fmt.Errorf("ensemble member %d: edge %d has %d bins, member 0 gave %d", m, i, len(d), len(out[i]))
			}
			for b, p := range d {
				out[i][b] += p
			}
		}
	}
	n := float64(len(e))
	for _, d := range out {
		for b := range d {
			d[b] /= n
		}
	}
	return out, nil
}
