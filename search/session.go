package search

import (
	"context"
	"errors"
	"fmt"

	"triage/corpus"
	"triage/policy"
)

// State is where a search stands.
type State string

// States of a search. A search that ends without a fix ends in
// BudgetExhausted or FrontierEmpty: a normal result, not an error.
const (
	Running         State = "running"          // Ask may return edges
	Solved          State = "solved"           // a fix was told (or the root passes)
	BudgetExhausted State = "budget_exhausted" // the budget of expansions was told, no fix
	FrontierEmpty   State = "frontier_empty"   // nothing left to expand or outstanding, no fix
)

// EdgeState is where one edge stands in a session.
type EdgeState uint8

// Edge states, by EdgeID.
const (
	EdgeWaiting EdgeState = iota // not asked (in the frontier, or not expandable)
	EdgeAsked                    // asked, not told
	EdgeTold                     // expanded and told
	EdgeDropped                  // asked, then dropped unexpanded (Session.Drop)
)

// SessionConfig bounds a session.
type SessionConfig struct {
	// Budget is the most expansions; 0 means no limit.
	Budget int
	// Seed seeds the policy's episode.
	Seed uint64
	// Expandable reports whether edge e may join the frontier; nil admits
	// every edge (a live tree, or a served one).
	Expandable func(e corpus.EdgeID) bool
	// UntilBudget goes on after a fix (TSAPR collecting plausible patches):
	// the search runs until the budget or the frontier ends it, and is
	// Solved then when a fix was told.
	UntilBudget bool
}

// Session is one ask–tell search over a tree: the policy's episode, the
// frontier of unexpanded edges across every program, the edges asked and
// told, and the cost so far. Run drives one over an Env; the server drives
// one per client. The tree may grow: whoever expands an edge appends the
// child (and its edges) to the tree before telling the session. A
// session's state is a function of its tree's root, policy, config and the
// ordered sequence of its asks, tells and drops, so replaying that log
// rebuilds it. A Session is not safe for concurrent use.
type Session struct {
	tree       *corpus.Tree
	pol        policy.Policy
	ep         policy.Episode
	cfg        SessionConfig
	frontier   Frontier
	state      []EdgeState // by EdgeID; missing entries are EdgeWaiting
	asked      int         // edges asked and not told
	expansions int
	tokens     int
	fix        corpus.NodeID
}

// NewSession starts p's episode over t, whose root must exist. The root's
// proposal counts towards the tokens, and a root that passes solves the
// search at once.
func NewSession(t *corpus.Tree, p policy.Policy, cfg SessionConfig) (*Session, error) {
	if t == nil || len(t.Nodes) == 0 {
		return nil, errors.New("search: tree has no root")
	}
	if cfg.Budget < 0 {
		return nil, fmt.Errorf("search: budget %d < 0", cfg.Budget)
	}
	s := &Session{tree: t, pol: p, cfg: cfg, fix: corpus.NoNode}
	root := t.Root()
	s.tokens = root.ProposeTokens
	if root.Solved() {
		s.fix = root.ID
		return s, nil
	}
	s.ep = p.Start(t, cfg.Seed)
	s.addEdges(root)
	return s, nil
}

// Policy returns the session's policy.
func (s *Session) Policy() policy.Policy { return s.pol }

// Episode returns the policy's episode (nil when the root passes).
func (s *Session) Episode() policy.Episode { return s.ep }

// Frontier returns the edges that may be asked; the slice is the
// session's own, valid until the next Ask or Tell.
func (s *Session) Frontier() []corpus.EdgeID { return s.frontier.Edges() }

// Outstanding returns the number of edges asked and not told.
func (s *Session) Outstanding() int { return s.asked }

// Expansions returns the number of edges told.
func (s *Session) Expansions() int { return s.expansions }

// Tokens returns the output tokens spent: the root's proposal plus each
// told expansion's revision and proposal (corpus.Tree.EdgeTokens).
func (s *Session) Tokens() int { return s.tokens }

// Fix returns the first fix told (corpus.NoNode before one).
func (s *Session) Fix() corpus.NodeID { return s.fix }

// Edge returns the state of edge e.
func (s *Session) Edge(e corpus.EdgeID) EdgeState {
	if e < 0 || int(e) >= len(s.state) {
		return EdgeWaiting
	}
	return s.state[e]
}

// State returns where the search stands.
func (s *Session) State() State {
	var end State
	switch {
	case s.fix != corpus.NoNode && !s.cfg.UntilBudget:
		return Solved
	case s.cfg.Budget > 0 && s.expansions >= s.cfg.Budget:
		end = BudgetExhausted
	case len(s.frontier.Edges()) == 0 && s.asked == 0:
		end = FrontierEmpty
	default:
		return Running
	}
	if s.fix != corpus.NoNode {
		return Solved
	}
	return end
}

// Ask chooses up to n edges of the frontier with the policy; outstanding
// asks count against the budget. It returns no edges, and no error, when
// the search has ended or nothing is left to ask while edges are
// outstanding.
func (s *Session) Ask(ctx context.Context, n int) ([]corpus.EdgeID, error) {
	if s.cfg.Budget > 0 {
		n = min(n, s.cfg.Budget-s.expansions-s.asked)
	}
	if s.State() != Running || n <= 0 || len(s.frontier.Edges()) == 0 {
		return nil, nil
	}
	chosen, err := s.ep.Ask(ctx, s.frontier.Edges(), n)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", s.pol.Name(), err)
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("policy %s chose nothing from a frontier of %d", s.pol.Name(), len(s.frontier.Edges()))
	}
	for i, e := range chosen {
		if !s.frontier.Remove(e) {
			// Put back what this call took, so the session stays whole.
			for _, back := range chosen[:i] {
				s.frontier.Add(back)
				s.state[back] = EdgeWaiting
				s.asked--
			}
			return nil, fmt.Errorf("policy %s chose edge %d outside the frontier", s.pol.Name(), e)
		}
		s.setState(e, EdgeAsked)
		s.asked++
	}
	return chosen, nil
}

// Tell records that the asked edge e was expanded into child, which the
// tree holds (with its edges) already. The policy hears of it first: when
// its Tell fails, the session is unchanged.
func (s *Session) Tell(e corpus.EdgeID, child corpus.NodeID) error {
	if s.Edge(e) != EdgeAsked {
		return fmt.Errorf("edge %d was not asked, or was told already", e)
	}
	if child < 0 || int(child) >= len(s.tree.Nodes) || s.tree.Edges[e].Child != child {
		return fmt.Errorf("edge %d: node %d is not its child in the tree", e, child)
	}
	n := s.tree.Node(child)
	if err := s.ep.Tell(e, n); err != nil {
		return fmt.Errorf("policy %s: %w", s.pol.Name(), err)
	}
	s.state[e] = EdgeTold
	s.asked--
	s.expansions++
	s.tokens += s.tree.EdgeTokens(e)
	if n.Solved() {
		if s.fix == corpus.NoNode {
			s.fix = child
		}
		return nil
	}
	s.addEdges(n)
	return nil
}

// Drop records that the asked edge e will not be expanded: its expansion
// made nothing to tell (TSAPR drops a patch identical to a sibling's). The
// edge leaves the outstanding asks without costing budget and does not
// return to the frontier; the policy is not told (no frontier it is asked
// from holds e again).
func (s *Session) Drop(e corpus.EdgeID) error {
	if s.Edge(e) != EdgeAsked {
		return fmt.Errorf("edge %d was not asked, or was told or dropped already", e)
	}
	s.state[e] = EdgeDropped
	s.asked--
	return nil
}

// addEdges adds n's expandable edges to the frontier.
func (s *Session) addEdges(n *corpus.Node) {
	for _, e := range n.Edges {
		if s.cfg.Expandable == nil || s.cfg.Expandable(e) {
			s.frontier.Add(e)
		}
	}
}

func (s *Session) setState(e corpus.EdgeID, st EdgeState) {
	for len(s.state) <= int(e) {
		s.state = append(s.state, EdgeWaiting)
	}
	s.state[e] = st
}
