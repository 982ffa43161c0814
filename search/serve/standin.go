package serve

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"triage/model/priority"
)

// StandIn is a stand-in for a priority model on one device, for load tests
// and for tests of the server: one execution at a time (like one model on
// one GPU), each taking PerCall + PerEdge·n for n edges, answering a
// distribution that depends only on each edge's content (so it is
// deterministic and a replay with it repeats exactly). It is not a model:
// its numbers say what the server does around a model of that cost.
// Make one with NewStandIn or ParseStandIn.
type StandIn struct {
	PerCall, PerEdge time.Duration
	device           chan struct{} // one token: the device
}

// NewStandIn returns a StandIn of the given cost.
func NewStandIn(perCall, perEdge time.Duration) *StandIn {
	return &StandIn{PerCall: perCall, PerEdge: perEdge, device: make(chan struct{}, 1)}
}

// ParseStandIn parses a cost such as "10ms+3ms/edge", "10ms", "3ms/edge"
// or "0".
func ParseStandIn(spec string) (*StandIn, error) {
	var perCall, perEdge time.Duration
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("stand-in cost is empty (want e.g. 10ms+3ms/edge)")
	}
	for _, part := range strings.Split(spec, "+") {
		part = strings.TrimSpace(part)
		edge := strings.HasSuffix(part, "/edge")
		part = strings.TrimSuffix(part, "/edge")
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("stand-in cost %q: %q is not a duration (want e.g. 10ms+3ms/edge)", spec, part)
		}
		if edge {
			perEdge += d
		} else {
			perCall += d
		}
	}
	return NewStandIn(perCall, perEdge), nil
}

// String formats the cost as ParseStandIn reads it.
func (s *StandIn) String() string { return fmt.Sprintf("%v+%v/edge", s.PerCall, s.PerEdge) }

// Score implements policy.Scorer.
func (s *StandIn) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	out := make([]priority.Dist, len(edges))
	for i := range edges {
		if err := edges[i].Validate(); err != nil {
			return nil, fmt.Errorf("stand-in: edge %d: %w", i, err)
		}
		out[i] = standInDist(&edges[i])
	}
	if s.device != nil { // nil only in a StandIn not made by NewStandIn
		select {
		case s.device <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-s.device }()
	}
	if cost := s.PerCall + time.Duration(len(edges))*s.PerEdge; cost > 0 {
		t := time.NewTimer(cost)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// standInDist is a distribution over D+1 bins from a hash of the edge's
// text and features, leaning towards a fix for parents that pass more.
func standInDist(e *priority.Edge) priority.Dist {
	h := fnv.New64a()
	for _, s := range []string{e.Feedback, e.Diagnosis, e.Edit, e.Program} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	fmt.Fprint(h, e.PassRate, e.FailedFrac, e.Depth, e.MaxDepth, e.Bytes())
	x := h.Sum64()
	d := make(priority.Dist, e.MaxDepth+1)
	var sum float64
	for i := range d {
		u := float64((x>>(i%8*8))&0xff+1) / 256 // (0, 1]
		w := u * math.Exp(-float64(i)*(0.3+e.PassRate))
		if i == e.MaxDepth {
			w += 1 - e.PassRate
		}
		d[i] = w
		sum += w
		x = x*6364136223846793005 + 1442695040888963407
	}
	for i := range d {
		d[i] /= sum
	}
	return d
}
