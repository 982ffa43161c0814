package serve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"triage/search/serve/api"

	"triage/corpus"
	"triage/policy"
	"triage/search"
)

// statusError is an error with the HTTP status it answers.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

func errorf(code int, format string, args ...any) error {
	return &statusError{code, fmt.Sprintf(format, args...)}
}

// Limits of a session.
const (
	defaultMaxDepth = 4
	defaultK        = 3
	maxK            = 64
)

// session is one client's ask–tell search: a search.Session over a tree
// that grows with what the client tells, and what the server reports of
// it. Its methods lock mu; the search session is used under it only.
type session struct {
	mu       sync.Mutex
	id       string
	req      api.CreateSessionRequest // as normalized by newSession
	pol      policy.Policy
	tree     *corpus.Tree
	core     *search.Session
	tokensAt []int // by NodeID: tokens spent through the node
	expAt    []int // by NodeID: expansions through the node
	best     corpus.NodeID
	ended    bool

	// seq is the sequence number of the last log record applied, and
	// script the recorded choices of a session rebuilt only for export
	// (durable sessions only; see durable.go).
	seq    int64
	script *scripted
	// lastAsk is the session's last recorded ask: its request id, record
	// and edges, answered again to a resent ask.
	lastAskID    string
	lastAskSeq   int64
	lastAskEdges []api.AskedEdge

	lastUsed atomic.Int64 // unix nanoseconds
}

// newSession validates req and starts the search over its root. scored
// builds the policies that need the server's scorer (learned, hybrid).
func newSession(id string, req api.CreateSessionRequest, maxBudget int, scored func(string, policy.Params) (policy.Policy, error)) (*session, error) {
	if req.Budget < 0 {
		return nil, errorf(http.StatusBadRequest, "budget %d is negative", req.Budget)
	}
	if req.Budget == 0 {
		req.Budget = maxBudget
	}
	if req.Budget > maxBudget {
		return nil, errorf(http.StatusBadRequest, "budget %d is above this server's maximum %d", req.Budget, maxBudget)
	}
	if req.MaxDepth == 0 {
		req.MaxDepth = defaultMaxDepth
	}
	if req.MaxDepth < 1 || req.MaxDepth > 64 {
		return nil, errorf(http.StatusBadRequest, "max_depth %d outside [1, 64]", req.MaxDepth)
	}
	if req.K == 0 {
		req.K = defaultK
	}
	if req.K < 1 || req.K > maxK {
		return nil, errorf(http.StatusBadRequest, "k %d outside [1, %d]", req.K, maxK)
	}
	if req.RootIndex < 0 || req.RootIndex > math.MaxInt32 {
		return nil, errorf(http.StatusBadRequest, "root_index %d outside [0, 2^31)", req.RootIndex)
	}
	switch req.Split {
	case "", corpus.SplitTrain, corpus.SplitVal, corpus.SplitTest:
	default:
		return nil, errorf(http.StatusBadRequest, "split %q: want train, val or test", req.Split)
	}
	if req.TaskID == "" {
		req.TaskID = "serve"
	}
	if req.TreeID == "" {
		req.TreeID = "serve/" + id
	}
	if req.Split == "" {
		req.Split = corpus.SplitFor(req.TaskID)
	}
	pol, err := buildPolicy(req.Policy, req.Params, req.Budget, scored)
	if err != nil {
		return nil, err
	}
	if req.Root.ReviseTokens != 0 || req.Root.ReviseFailed {
		return nil, errorf(http.StatusBadRequest, "root: a root is not a revision (revise_tokens and revise_failed must be unset)")
	}
	root, edits, err := toNode(&req.Root, "root", 0, req.MaxDepth, req.K)
	if err != nil {
		return nil, err
	}
	root.ID, root.Parent, root.ViaEdge = 0, corpus.NoNode, -1
	s := &session{id: id, req: req, pol: pol}
	s.req.Root = api.Program{} // the tree holds it
	s.tree = &corpus.Tree{ID: req.TreeID, TaskID: req.TaskID, Split: req.Split, K: req.K, D: req.MaxDepth,
		Proposer: req.Proposer, Model: req.Model, Nodes: []corpus.Node{root}}
	s.addEdges(0, edits)
	if s.core, err = search.NewSession(s.tree, pol, search.SessionConfig{Budget: req.Budget, Seed: req.Seed}); err != nil {
		return nil, err
	}
	s.tokensAt = []int{s.core.Tokens()}
	s.expAt = []int{0}
	return s, nil
}

// buildPolicy makes the named policy; a budget-aware policy (bgmcts) whose
// params do not fix its budget gets the session's, as `triage eval` gives
// it the largest reported budget.
func buildPolicy(name string, params policy.Params, budget int, scored func(string, policy.Params) (policy.Policy, error)) (policy.Policy, error) {
	if name == "learned" && len(params) > 0 {
		return nil, errorf(http.StatusBadRequest, "policy learned takes no params")
	}
	if policy.NeedsScorer(name) {
		return scored(name, params)
	}
	if name == "" {
		return nil, errorf(http.StatusBadRequest, "policy is required (learned, hybrid or one of %v)", policy.Baselines)
	}
	p, err := policy.New(name, params)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	if b, ok := p.(interface{ WithBudget(int) policy.Policy }); ok {
		if _, fixed := params["budget"]; !fixed {
			p = b.WithBudget(budget)
		}
	}
	return p, nil
}

// toNode validates a wire program at depth and converts it.
func toNode(p *api.Program, where string, depth, maxDepth, k int) (corpus.Node, []api.Edit, error) {
	bad := func(format string, args ...any) error {
		return errorf(http.StatusBadRequest, where+": "+format, args...)
	}
	n := corpus.Node{Depth: depth, Program: p.Program, ProgramSHA: corpus.SHA256(p.Program), Diagnosis: p.Diagnosis,
		ReviseTokens: p.ReviseTokens, ProposeTokens: p.ProposeTokens,
		ReviseFailed: p.ReviseFailed, ProposeFailed: p.ProposeFailed}
	ex := corpus.Execution{Status: p.Status, Feedback: p.Feedback, DurationMS: p.DurationMS}
	switch ex.Status {
	case "":
		ex.Status = corpus.StatusOK
	case corpus.StatusOK, corpus.StatusLoadError, corpus.StatusTimeout, corpus.StatusCrash, corpus.StatusOutput:
	default:
		return n, nil, bad("status %q: want ok, load_error, timeout, crash or output_limit", p.Status)
	}
	passed := 0
	for i, t := range p.Tests {
		if t.Name == "" {
			return n, nil, bad("tests[%d]: name is empty", i)
		}
		if !finiteNonNeg(t.DurationMS) {
			return n, nil, bad("tests[%d]: duration_ms %v", i, t.DurationMS)
		}
		if t.Passed {
			passed++
		}
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: t.Name, Passed: t.Passed, DurationMS: t.DurationMS, Message: t.Message})
	}
	if total := len(p.Tests); total > 0 {
		ex.PassRate = float64(passed) / float64(total)
		ex.FailedFrac = float64(total-passed) / float64(total)
	} else {
		ex.FailedFrac = 1
	}
	if p.PassRate != nil {
		ex.PassRate = *p.PassRate
	}
	if p.FailedFrac != nil {
		ex.FailedFrac = *p.FailedFrac
	}
	if !unit(ex.PassRate) {
		return n, nil, bad("pass_rate %v outside [0, 1]", ex.PassRate)
	}
	if !unit(ex.FailedFrac) {
		return n, nil, bad("failed_frac %v outside [0, 1]", ex.FailedFrac)
	}
	if !finiteNonNeg(ex.DurationMS) {
		return n, nil, bad("duration_ms %v", ex.DurationMS)
	}
	if p.ReviseTokens < 0 || p.ProposeTokens < 0 || p.ReviseTokens > math.MaxInt32 || p.ProposeTokens > math.MaxInt32 {
		return n, nil, bad("token counts must lie in [0, 2^31)")
	}
	n.Exec = ex
	if len(p.Edits) > k {
		return n, nil, bad("%d edits, at most k = %d", len(p.Edits), k)
	}
	if len(p.Edits) > 0 && n.Solved() {
		return n, nil, bad("a fix takes no edits (it ends its branch)")
	}
	if len(p.Edits) > 0 && depth >= maxDepth {
		return n, nil, bad("a program at max_depth %d takes no edits", maxDepth)
	}
	return n, p.Edits, nil
}

func unit(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }

func finiteNonNeg(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// addEdges appends the edits of node v to the tree.
func (s *session) addEdges(v corpus.NodeID, edits []api.Edit) []corpus.EdgeID {
	ids := make([]corpus.EdgeID, 0, len(edits))
	for i, ed := range edits {
		e := corpus.EdgeID(len(s.tree.Edges))
		s.tree.Edges = append(s.tree.Edges, corpus.Edge{ID: e, Parent: v, Index: i,
			Edit: corpus.ProposedEdit{Text: ed.Text, Payload: ed.Payload}, Child: corpus.NoNode})
		s.tree.Nodes[v].Edges = append(s.tree.Nodes[v].Edges, e)
		ids = append(ids, e)
	}
	return ids
}

// stateLocked names the session's state.
func (s *session) stateLocked() string { return string(s.core.State()) }

var errEnded = errorf(http.StatusNotFound, "session ended")

// ask chooses up to n edges of the frontier with the policy.
func (s *session) ask(ctx context.Context, n int) (api.AskResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.askLocked(ctx, n)
}

func (s *session) askLocked(ctx context.Context, n int) (api.AskResponse, error) {
	if s.ended {
		return api.AskResponse{}, errEnded
	}
	resp := api.AskResponse{Edges: []api.AskedEdge{}}
	chosen, err := s.core.Ask(ctx, n)
	if err != nil {
		if ctx.Err() != nil {
			return api.AskResponse{}, ctx.Err()
		}
		return api.AskResponse{}, err
	}
	for _, e := range chosen {
		edge := &s.tree.Edges[e]
		resp.Edges = append(resp.Edges, api.AskedEdge{Edge: e, Parent: edge.Parent, Index: edge.Index,
			Depth: s.tree.Nodes[edge.Parent].Depth, Edit: api.Edit{Text: edge.Edit.Text, Payload: edge.Edit.Payload}})
	}
	resp.State, resp.Frontier, resp.Outstanding = s.stateLocked(), len(s.core.Frontier()), s.core.Outstanding()
	return resp, nil
}

// tell records that edge e was expanded into child.
func (s *session) tell(e corpus.EdgeID, child *api.Program) (api.TellResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tellLocked(e, child)
}

func (s *session) tellLocked(e corpus.EdgeID, child *api.Program) (api.TellResponse, error) {
	if s.ended {
		return api.TellResponse{}, errEnded
	}
	switch s.core.Edge(e) {
	case search.EdgeWaiting:
		return api.TellResponse{}, errorf(http.StatusConflict, "edge %d was never asked in this session", e)
	case search.EdgeTold:
		c := &s.tree.Nodes[s.tree.Edges[e].Child]
		return api.TellResponse{Node: c.ID, Edges: append([]corpus.EdgeID{}, c.Edges...), Solved: c.Solved(), Repeated: true,
			State: s.stateLocked(), Expansions: s.core.Expansions(), Tokens: s.core.Tokens()}, nil
	}
	par := s.tree.Edges[e].Parent
	node, edits, err := toNode(child, "child", s.tree.Nodes[par].Depth+1, s.req.MaxDepth, s.req.K)
	if err != nil {
		return api.TellResponse{}, err
	}
	id := corpus.NodeID(len(s.tree.Nodes))
	node.ID, node.Parent, node.ViaEdge = id, par, e
	nEdges := len(s.tree.Edges)
	// The child and its edits exist before the session hears of it, as in
	// search.Run, where the environment expands before the Tell.
	s.tree.Nodes = append(s.tree.Nodes, node)
	s.tree.Edges[e].Child = id
	ids := s.addEdges(id, edits)
	if err := s.core.Tell(e, id); err != nil {
		// Validation above rules this out; undo so the tree stays whole.
		s.tree.Edges = s.tree.Edges[:nEdges]
		s.tree.Nodes = s.tree.Nodes[:id]
		s.tree.Edges[e].Child = corpus.NoNode
		return api.TellResponse{}, err
	}
	s.tokensAt = append(s.tokensAt, s.core.Tokens())
	s.expAt = append(s.expAt, s.core.Expansions())
	c := &s.tree.Nodes[id]
	if s.core.Fix() == corpus.NoNode && c.Exec.PassRate > s.tree.Nodes[s.best].Exec.PassRate {
		s.best = id
	}
	return api.TellResponse{Node: id, Edges: ids, Solved: c.Solved(), State: s.stateLocked(), Expansions: s.core.Expansions(), Tokens: s.core.Tokens()}, nil
}

// describe returns the session's public state.
func (s *session) describe(idle time.Duration, now time.Time) api.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.describeLocked(idle, now)
}

func (s *session) describeLocked(idle time.Duration, now time.Time) api.Session {
	out := api.Session{ID: s.id, Policy: s.pol.Name(), Params: s.req.Params, Seed: s.req.Seed, Budget: s.req.Budget,
		MaxDepth: s.req.MaxDepth, K: s.req.K, TaskID: s.req.TaskID, TreeID: s.req.TreeID, State: s.stateLocked(),
		Expansions: s.core.Expansions(), Tokens: s.core.Tokens(), Frontier: len(s.core.Frontier()), Outstanding: []corpus.EdgeID{},
		RootEdges: append([]corpus.EdgeID{}, s.tree.Nodes[0].Edges...)}
	for e := range s.tree.Edges {
		if s.core.Edge(corpus.EdgeID(e)) == search.EdgeAsked {
			out.Outstanding = append(out.Outstanding, corpus.EdgeID(e))
		}
	}
	b := s.best
	if fix := s.core.Fix(); fix != corpus.NoNode {
		b = fix
	}
	n := &s.tree.Nodes[b]
	out.Best = api.Best{Node: b, Edge: n.ViaEdge, Depth: n.Depth, PassRate: n.Exec.PassRate, Solved: n.Solved(),
		Program: n.Program, Expansion: s.expAt[b], Tokens: s.tokensAt[b]}
	left := idle - now.Sub(time.Unix(0, s.lastUsed.Load()))
	out.IdleExpiresInS = max(left, 0).Round(time.Millisecond).Seconds()
	return out
}

// snapshot returns a deep copy of the tree with labels computed over what
// was expanded (an edge whose subtree holds no told fix is censored).
func (s *session) snapshot() *corpus.Tree {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

func (s *session) snapshotLocked() *corpus.Tree {
	t := *s.tree
	t.Nodes = make([]corpus.Node, len(s.tree.Nodes))
	for i, n := range s.tree.Nodes {
		n.Edges = append([]corpus.EdgeID(nil), n.Edges...)
		n.Exec.Tests = append([]corpus.TestResult(nil), n.Exec.Tests...)
		t.Nodes[i] = n
	}
	t.Edges = append([]corpus.Edge(nil), s.tree.Edges...)
	corpus.ComputeLabels(&t)
	return &t
}

// end marks the session ended; it reports false if it already was.
func (s *session) end() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.ended = true
	return true
}

// isCtxErr reports a request's own deadline or cancellation.
func isCtxErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
