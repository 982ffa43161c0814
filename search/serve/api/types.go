package api

import (
	"triage/corpus"
	"triage/model/priority"
	"triage/policy"
)

// This file holds every request and response body of the server: the one
// place that defines the wire format, documented with examples in
// docs/serve.md. Every body is JSON; unknown fields are rejected (400).

// Error is the body of every answer that is not 2xx.
type Error struct {
	Error string `json:"error"`
}

// PrioritiesRequest is the body of POST /v1/priorities: frontier edges as
// the priority model sees them (see priority.Edge for the fields).
type PrioritiesRequest struct {
	Edges []priority.Edge `json:"edges"`
}

// PrioritiesResponse answers PrioritiesRequest: one Priority per edge, in
// the request's order.
type PrioritiesResponse struct {
	Priorities []Priority `json:"priorities"`
}

// Priority is the model's answer for one edge: Dist[j-1] = P(t = j) for
// j = 1..D and Dist[D] = P(t > D), and S = s(e) at the edge's remaining
// depth (priority.Dist.S), the value the learned policy ranks by.
type Priority struct {
	Dist priority.Dist `json:"dist"`
	S    float64       `json:"s"`
}

// Test is the verdict of one test.
type Test struct {
	Name       string  `json:"name"`
	Passed     bool    `json:"passed"`
	DurationMS float64 `json:"duration_ms,omitempty"`
	Message    string  `json:"message,omitempty"`
}

// Edit is one edit proposed for a program: Text is what a model reads;
// Payload is the client's own data, kept and exported with the tree.
type Edit struct {
	Text    string `json:"text"`
	Payload string `json:"payload,omitempty"`
}

// Program is one program version as the client ran it: the root when a
// session starts, an expanded child in a tell.
//
// A program is a fix when Status is "ok", it has at least one test and
// its pass rate is 1 (corpus.Execution.Solved). PassRate and FailedFrac
// default to the fractions of Tests passed and failed (1 failed when
// nothing ran). A fix, and a program at the session's max_depth, take no
// edits.
type Program struct {
	Program    string        `json:"program"`
	Status     corpus.Status `json:"status,omitempty"` // default "ok"
	Tests      []Test        `json:"tests,omitempty"`
	PassRate   *float64      `json:"pass_rate,omitempty"`
	FailedFrac *float64      `json:"failed_frac,omitempty"`
	// Feedback is the test output the proposer read (pytest-style text).
	Feedback   string  `json:"feedback,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`
	Diagnosis  string  `json:"diagnosis,omitempty"`
	Edits      []Edit  `json:"edits,omitempty"`
	// ReviseTokens are the output tokens spent writing this program (0
	// for a root); ProposeTokens those spent on its diagnosis and edits.
	ReviseTokens  int  `json:"revise_tokens,omitempty"`
	ProposeTokens int  `json:"propose_tokens,omitempty"`
	ReviseFailed  bool `json:"revise_failed,omitempty"`
	ProposeFailed bool `json:"propose_failed,omitempty"`
}

// CreateSessionRequest is the body of POST /v1/sessions.
type CreateSessionRequest struct {
	// Policy is "learned", "hybrid" or a baseline (policy.Baselines);
	// Params its hyperparameters (e.g. {"C": 20} for rex).
	Policy string        `json:"policy"`
	Params policy.Params `json:"params,omitempty"`
	// Budget is the most expansions (0: the server's maximum).
	Budget int    `json:"budget,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// MaxDepth is D (default 4); K the most edits per program (default 3).
	MaxDepth int `json:"max_depth,omitempty"`
	K        int `json:"k,omitempty"`
	// TaskID, TreeID, Split, RootIndex, Proposer and Model label the tree
	// when it is exported (defaults: "serve", "serve/<session id>", the
	// task's hash split, 0, "", "").
	TaskID    string `json:"task_id,omitempty"`
	TreeID    string `json:"tree_id,omitempty"`
	Split     string `json:"split,omitempty"`
	RootIndex int    `json:"root_index,omitempty"`
	Proposer  string `json:"proposer,omitempty"`
	Model     string `json:"model,omitempty"`
	// Root is the starting program with its test results, diagnosis and
	// proposed edits.
	Root Program `json:"root"`
}

// Session states.
const (
	StateRunning         = "running"          // ask may return edges
	StateSolved          = "solved"           // a fix was told (or the root passes)
	StateBudgetExhausted = "budget_exhausted" // budget expansions told, no fix
	StateFrontierEmpty   = "frontier_empty"   // nothing left to expand, no fix
)

// Session describes a session: the answer of POST /v1/sessions, GET and
// DELETE /v1/sessions/{id}.
type Session struct {
	ID       string        `json:"id"`
	Policy   string        `json:"policy"`
	Params   policy.Params `json:"params,omitempty"`
	Seed     uint64        `json:"seed"`
	Budget   int           `json:"budget"`
	MaxDepth int           `json:"max_depth"`
	K        int           `json:"k"`
	TaskID   string        `json:"task_id"`
	TreeID   string        `json:"tree_id"`
	State    string        `json:"state"`
	// Expansions are the tells so far; Tokens the output tokens spent (the
	// root's proposal plus each expansion's revision and proposal).
	Expansions int `json:"expansions"`
	Tokens     int `json:"tokens"`
	// Frontier counts the edges not asked yet; Outstanding lists the
	// edges asked and not told.
	Frontier    int             `json:"frontier"`
	Outstanding []corpus.EdgeID `json:"outstanding"`
	// RootEdges are the ids of the root's edits, in order.
	RootEdges []corpus.EdgeID `json:"root_edges"`
	// Best is the first fix, or else the program of highest pass rate
	// (the earliest on ties).
	Best Best `json:"best"`
	// IdleExpiresInS is how long the session lives without a request.
	IdleExpiresInS float64 `json:"idle_expires_in_s"`
}

// Best is a session's best program so far.
type Best struct {
	Node     corpus.NodeID `json:"node"`
	Edge     corpus.EdgeID `json:"edge"` // the edge that produced it; -1 for the root
	Depth    int           `json:"depth"`
	PassRate float64       `json:"pass_rate"`
	Solved   bool          `json:"solved"`
	Program  string        `json:"program"`
	// Expansion is the number of expansions through this program (0 for
	// the root); Tokens the output tokens spent through it. For a fix they
	// are the search's cost, as `triage eval` counts it.
	Expansion int `json:"expansion"`
	Tokens    int `json:"tokens"`
}

// AskRequest is the body of POST /v1/sessions/{id}/ask: the number of
// edges wanted (default 1).
type AskRequest struct {
	N int `json:"n,omitempty"`
	// RequestID (at most 128 bytes), when set, makes the ask safe to
	// resend on a server with --store: the id of the session's last ask,
	// sent again before anything else changed the session, answers that
	// ask's edges again instead of choosing more. A client whose ask got
	// no answer (a restart, a lost connection) resends it as it was.
	RequestID string `json:"request_id,omitempty"`
}

// AskResponse lists the edges to expand next, best first. It holds fewer
// than n edges (possibly none) when the frontier, the budget or the state
// allow fewer; with none and state "running", tell the outstanding edges
// first.
type AskResponse struct {
	Edges       []AskedEdge `json:"edges"`
	State       string      `json:"state"`
	Frontier    int         `json:"frontier"`
	Outstanding int         `json:"outstanding"`
}

// AskedEdge is one edge to expand: apply Edit to the program of node
// Parent, run its tests and tell the result with the edge's id.
type AskedEdge struct {
	Edge   corpus.EdgeID `json:"edge"`
	Parent corpus.NodeID `json:"parent"`
	Index  int           `json:"index"` // position among the parent's edits
	Depth  int           `json:"depth"` // the parent's depth
	Edit   Edit          `json:"edit"`
}

// TellRequest is the body of POST /v1/sessions/{id}/tell: edge Edge (from
// an ask) was expanded into Child.
type TellRequest struct {
	Edge  corpus.EdgeID `json:"edge"`
	Child Program       `json:"child"`
}

// TellResponse answers a tell. A repeated tell of the same edge changes
// nothing and answers as the first did, with Repeated set.
type TellResponse struct {
	Node corpus.NodeID `json:"node"`
	// Edges are the ids of the child's edits, in the order told.
	Edges      []corpus.EdgeID `json:"edges"`
	Solved     bool            `json:"solved"`
	Repeated   bool            `json:"repeated,omitempty"`
	State      string          `json:"state"`
	Expansions int             `json:"expansions"`
	Tokens     int             `json:"tokens"`
}

// Health is the answer of GET /healthz.
type Health struct {
	Status   string `json:"status"`
	Learned  bool   `json:"learned"`
	Sessions int    `json:"sessions"`
	// LearnedError says why the learned scorer is missing.
	LearnedError string `json:"learned_error,omitempty"`
	// Store is the session store, when sessions are durable (--store).
	Store *StoreHealth `json:"store,omitempty"`
}

// StoreHealth is the session store's part of GET /healthz. When OK is
// false, /healthz answers 503 (the server cannot acknowledge anything).
type StoreHealth struct {
	Store  string  `json:"store"`  // e.g. "bbolt /var/lib/triage/sessions.db"
	Shared bool    `json:"shared"` // other replicas may use it
	OK     bool    `json:"ok"`
	PingMS float64 `json:"ping_ms"`
	Error  string  `json:"error,omitempty"`
}
