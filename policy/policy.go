// Package policy holds the search policies of triage: the learned priority
// policy (CodeTriage) and the baselines random, bfs, dfs, passrate, rex,
// abmcts, bgmcts and uct, all mapped onto the frontier-of-proposed-edits
// setting of docs/design.md, plus the replay metrics E[T], S(B), C(B) and AUSC(B)
// with a task-clustered bootstrap.
//
// A Policy is configuration; Start begins one search over one tree and
// returns an Episode that holds all per-search state in slices indexed by
// the tree's dense NodeID/EdgeID. The search loop (package search) calls
// Ask to choose edges from the frontier and Tell to report each expansion.
// Episodes work on a growing tree: a live search appends nodes and edges to
// the same *corpus.Tree, and the episode extends its slices on demand.
//
// Imports: corpus and model/priority only.
package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"triage/corpus"
)

// Policy is a search policy's configuration. One Policy value may start
// many concurrent episodes; it is not mutated by them.
type Policy interface {
	// Name is the policy's short name (e.g. "rex").
	Name() string
	// Start begins a search over t. All randomness of the episode comes
	// from seed, so the same tree, seed and calls give the same choices.
	Start(t *corpus.Tree, seed uint64) Episode
}

// Episode is the state of one search.
//
// Ask returns up to n distinct edges of frontier, best first (fewer when the
// frontier is smaller; none and no error for an empty frontier). It returns
// an error for an edge that is out of range or was already told, and never
// returns an edge outside frontier. The order of frontier does not matter.
//
// Tell reports that edge e was expanded into child. It is idempotent (a
// repeated Tell is a no-op) and order-free (tells of one batch may come in
// any order). It returns an error for an unknown edge, a child that does not
// belong to e, or a child whose pass rate is outside [0, 1].
type Episode interface {
	Ask(ctx context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error)
	Tell(e corpus.EdgeID, child *corpus.Node) error
}

// Ranker is implemented by episodes that order the frontier by a per-edge
// priority (bfs, dfs, passrate, learned). Priorities returns one value per
// frontier edge, same order, larger first, for display in reports; ties are
// broken by parent depth ascending, then the edge's place in the tree, then
// EdgeID ascending (compareScored).
type Ranker interface {
	Priorities(ctx context.Context, frontier []corpus.EdgeID) ([]float64, error)
}

// ErrUnknownPolicy is returned by New for a name it does not know.
var ErrUnknownPolicy = errors.New("unknown policy")

// Params are named hyperparameters of a policy (e.g. {"C": 20} for rex).
type Params map[string]float64

// get returns p[key] or def; ok reports whether key was set.
func (p Params) get(key string, def float64) float64 {
	if v, ok := p[key]; ok {
		return v
	}
	return def
}

// check rejects any key of p that is not in allowed, and non-finite values.
func (p Params) check(policy string, allowed ...string) error {
	for k, v := range p {
		if !containsString(allowed, k) {
			return fmt.Errorf("policy %s: unknown hyperparameter %q (allowed: %s)", policy, k, strings.Join(allowed, ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("policy %s: hyperparameter %s=%v is not finite", policy, k, v)
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Baselines lists the names of the baseline policies in the order reports
// show them.
var Baselines = []string{"random", "bfs", "dfs", "passrate", "rex", "abmcts", "bgmcts", "uct"}

// New returns the baseline policy called name with hyperparameters params
// (nil for the defaults). The learned policy needs a Scorer: use NewLearned.
func New(name string, params Params) (Policy, error) {
	switch name {
	case "random":
		return NewRandom(params)
	case "bfs":
		return NewBFS(params)
	case "dfs":
		return NewDFS(params)
	case "passrate":
		return NewPassRate(params)
	case "rex":
		return NewREx(params)
	case "abmcts":
		return NewABMCTS(params)
	case "bgmcts":
		return NewBGMCTS(params)
	case "uct":
		return NewUCT(params)
	}
	names := append([]string(nil), Baselines...)
	sort.Strings(names)
	return nil, fmt.Errorf("%w %q (known: %s, learned, hybrid)", ErrUnknownPolicy, name, strings.Join(names, ", "))
}

// Stochastic reports whether the named policy's choices depend on its seed,
// so that evaluations average it over several seeds.
func Stochastic(name string) bool {
	switch name {
	case "bfs", "dfs", "passrate", "bgmcts", "learned", "hybrid":
		return false
	}
	return true
}

// reward is the pass rate of n, validated to lie in [0, 1].
func passRate(n *corpus.Node) (float64, error) {
	r := n.Exec.PassRate
	if math.IsNaN(r) || r < 0 || r > 1 {
		return 0, fmt.Errorf("node %d: pass rate %v outside [0, 1]", n.ID, r)
	}
	return r, nil
}

// loads reports whether n's program loaded: it has a program and its test
// run was not a load error.
func loads(n *corpus.Node) bool {
	return !n.ReviseFailed && n.Exec.Status != corpus.StatusLoadError
}
