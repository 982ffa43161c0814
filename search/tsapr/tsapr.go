// Package tsapr is TSAPR live (Hu, Shang, Sun, Zhang, ASE 2025; also
// APRMCTS and PSearch; docs/baselines.md "uct"): Monte Carlo tree
// search over patches, where an LLM writes each patch with a
// repair-specific chain of thought and then reviews it in a self-reflection
// turn, and a patch that fails some test is rewarded by its pass rate
// (Test-as-Judge) or by the same LLM's 0–100 score (LLM-as-Judge).
//
// One round:
//   - Selection: from the root, while the node has been expanded, move to
//     the child with the largest UCT_j = Q_j + C·sqrt(2·ln N_parent / N_j);
//     a child never itself expanded (N_j = 0) scores Q_j + 1 (APRMCTS's
//     mcts_inf); ties are broken by the seeded generator. Plausible patches
//     and patches with no program are leaves and are never selected, nor is
//     a subtree with nothing left to expand.
//   - Expansion: the selected node is expanded once, into up to
//     MaxExpansion children; each child is one chain-of-thought call and
//     one reflection call (n = 1). A patch identical to an earlier sibling
//     of the same expansion is dropped (APRMCTS) and costs no patch.
//   - Evaluation: each patch runs in the sandbox. Passing every test makes
//     it plausible (reward 1, a leaf; the search stops there unless
//     UntilBudget). Otherwise the reward is the pass rate (tests) or the
//     mean of clip(score/100, 0, 1) over Samples judge replies (llm); −1 for
//     a patch that does not load or holds no program; and a patch identical
//     to its parent has its (non-negative) reward halved. A new child starts
//     with Q = reward and N = 0.
//   - Update: from the expanded node to the root, N += 1 and, when some child
//     has N_j > 0, Q ← β·Σ_j Q_j·N_j / Σ_j N_j + (1 − β)·Q (APRMCTS's
//     back_propagate; its children still have N = 0 right after an
//     expansion, so a node's Q first moves when a child of it is expanded).
//
// The budget counts patches (children evaluated), 16 or 32 in the paper.
// Every call's input and output tokens are counted (server usage, else the
// client's tokenizer). The patch tree is a corpus.Tree, so it is written in
// the corpus schema and opens in the HTML tree viewer: a node is a patch,
// its edge text the chain of thought and reflection that produced it.
//
// The search is the engine's ask–tell loop (search.Session) over an
// environment (env.go: generate, reflect, run, judge) with the episode of
// policy.UCTExpansion, whose selection and update are policy/uct.go's. While
// it runs, every open node (neither plausible nor without a program) holds
// MaxExpansion slot edges; one round is one ask of n = MaxExpansion slots
// of the node UCT selects, a slot per try, asked again for a dropped
// duplicate; the result's tree keeps only the slots that made a patch.
//
// Imports: corpus, policy, search (the session) and search/proposer/openai
// (the LLM client TSAPR writes patches with).
package tsapr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"triage/corpus"
	"triage/policy"
	"triage/search"
	"triage/search/proposer/openai"
)

// Chat sends one chat completion request; *openai.Client implements it.
type Chat interface {
	Complete(ctx context.Context, req openai.Request) (openai.Reply, error)
}

// Options configure a search. Start from DefaultOptions.
type Options struct {
	// Budget is the most patches evaluated (16 or 32 in the paper).
	Budget int
	// C is the exploration constant of UCT (0.7).
	C float64
	// Beta weighs the children's visit-weighted Q in the update (0.8).
	Beta float64
	// MaxExpansion is the most children of one expansion (3).
	MaxExpansion int
	// Judge chooses the reward of failing patches (auto).
	Judge JudgeMode
	// MinTests is the test count from which auto uses the tests, not the
	// LLM, as judge (10).
	MinTests int
	// Samples is the number of judge replies averaged (5).
	Samples int
	// Temperature of generation, reflection and judge calls (0.9).
	Temperature float32
	// Model and JudgeModel name the generating and judging models; "" =
	// the client's model.
	Model, JudgeModel string
	// UntilBudget goes on after the first plausible patch, collecting more
	// until the budget is spent.
	UntilBudget bool
	// Seed seeds the tie-breaks of selection.
	Seed uint64
	// Prompts are the prompt templates (nil = DefaultPrompts).
	Prompts *Prompts
	// Diff, when set, gives the judge a unified diff of each patch.
	Diff func(a, b string) string
	// TreeID names the patch tree (default task id + "/tsapr").
	TreeID string
	// Proposer and ModelName are recorded in the tree ("tsapr", the model).
	Proposer, ModelName string
}

// DefaultOptions returns the settings of the paper.
func DefaultOptions() Options {
	return Options{Budget: 16, C: 0.7, Beta: 0.8, MaxExpansion: 3, Judge: JudgeAuto, MinTests: 10, Samples: 5, Temperature: 0.9}
}

func (o Options) validate() error {
	switch {
	case o.Budget < 1:
		return fmt.Errorf("tsapr: budget %d, want ≥ 1", o.Budget)
	case o.C < 0 || math.IsNaN(o.C) || math.IsInf(o.C, 0):
		return fmt.Errorf("tsapr: C = %v, want a finite value ≥ 0", o.C)
	case !(o.Beta >= 0 && o.Beta <= 1):
		return fmt.Errorf("tsapr: beta = %v, want in [0, 1]", o.Beta)
	case o.MaxExpansion < 1:
		return fmt.Errorf("tsapr: max expansion %d, want ≥ 1", o.MaxExpansion)
	case o.Samples < 1:
		return fmt.Errorf("tsapr: samples %d, want ≥ 1", o.Samples)
	case o.Temperature < 0:
		return fmt.Errorf("tsapr: temperature %v, want ≥ 0", o.Temperature)
	}
	if _, err := ParseJudgeMode(string(o.Judge)); err != nil {
		return fmt.Errorf("tsapr: %w", err)
	}
	return nil
}

// Call kinds, the keys of Result.Usage.
const (
	callGenerate = "generate"
	callReflect  = "reflect"
	callJudge    = "judge"
)

// NodeStats are TSAPR's statistics of one node of the patch tree.
type NodeStats struct {
	Q      float64 `json:"q"`
	N      int     `json:"n"`
	Reward float64 `json:"reward"`
	// Plausible: the patch passes every test.
	Plausible bool `json:"plausible,omitempty"`
	// Duplicate: the patch is identical to its parent's program.
	Duplicate bool `json:"duplicate,omitempty"`
	// NoProgram: the reply held no code; Loads is false for such a patch
	// and for one whose tests could not import it.
	NoProgram bool `json:"no_program,omitempty"`
	Loads     bool `json:"loads"`
	// Judge is how the reward was set: tests, llm, plausible, or no_load.
	Judge string `json:"judge"`
	// Scores are the LLM judge's scores; JudgeFailed counts samples without
	// one after a retry (all failed: reward 0).
	Scores      []float64 `json:"scores,omitempty"`
	JudgeFailed int       `json:"judge_failed,omitempty"`
	// ReflectKept: the reflection reply held no code, so the chain-of-thought
	// patch was kept.
	ReflectKept bool `json:"reflect_kept,omitempty"`
	// Patch is the 1-based index of the patch in evaluation order (0 = root).
	Patch int `json:"patch"`
	// Expanded: the node has been expanded.
	Expanded bool `json:"expanded,omitempty"`
}

// Step is one round of the search.
type Step struct {
	// Path is the selection from the root to the expanded node.
	Path []corpus.NodeID `json:"path"`
	// Children are the nodes the expansion added.
	Children []corpus.NodeID `json:"children"`
	// Q and N are every node's value and visits after the update.
	Q []float64 `json:"q"`
	N []int     `json:"n"`
}

// Plausible is one patch that passes every test.
type Plausible struct {
	Node corpus.NodeID `json:"node"`
	// Patch is the number of patches evaluated through this one.
	Patch int `json:"patch"`
	// OutputTokens are the output tokens spent through this patch.
	OutputTokens int    `json:"output_tokens"`
	Program      string `json:"program"`
}

// Result is the record of one search.
type Result struct {
	Tree  *corpus.Tree `json:"-"`
	Judge JudgeMode    `json:"judge"`
	// Solved reports a plausible patch; FirstAt is the number of patches
	// through the first (0 when the root passes or none was found).
	Solved    bool        `json:"solved"`
	FirstAt   int         `json:"first_at"`
	Plausible []Plausible `json:"plausible"`
	// Patches are the patches evaluated; Dropped the sibling duplicates.
	Patches int `json:"patches"`
	Dropped int `json:"dropped"`
	// OutputTokensToFirst are the output tokens through the first plausible
	// patch (all of them when there is none).
	OutputTokensToFirst int `json:"output_tokens_to_first"`
	// Usage is by call kind (generate, reflect, judge); Total sums it.
	Usage         map[string]openai.Usage `json:"usage"`
	Total         openai.Usage            `json:"total"`
	JudgeFailures int                     `json:"judge_failures"`
	Nodes         []NodeStats             `json:"nodes"`
	Steps         []Step                  `json:"steps"`
}

// Outcome converts r to the metric record of policy.Summarize: T is the
// number of patches through the first plausible one (all patches when
// unsolved), Tokens the output tokens through it.
func (r *Result) Outcome(seed uint64) policy.Outcome {
	t := r.Patches
	if r.Solved {
		t = r.FirstAt
	}
	return policy.Outcome{TaskID: r.Tree.TaskID, TreeID: r.Tree.ID, Seed: seed, Solved: r.Solved, T: t, Tokens: r.OutputTokensToFirst}
}

// ErrNoRoot is returned for a task or root program that is missing.
var ErrNoRoot = errors.New("tsapr: task and root program are required")

// rngStream is the stream of the episode's tie-breaking generator: TSAPR's
// own, so that a seed breaks ties as it did before TSAPR ran on
// policy.UCTExpansion.
const rngStream = 0x75a9

// Search runs TSAPR from root, the buggy program of task, calling chat for
// patches and judgements and exec for test runs. Malformed model output
// (no code, no score) is data in the result; errors are for cancellation,
// the executor, and server faults that outlast the client's retries. On
// error the result so far is returned with it.
func Search(ctx context.Context, chat Chat, exec corpus.Executor, task *corpus.Task, root string, opts Options) (*Result, error) {
	if task == nil || root == "" {
		return nil, ErrNoRoot
	}
	if chat == nil || exec == nil {
		return nil, errors.New("tsapr: chat client and executor are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Prompts == nil {
		p, err := DefaultPrompts()
		if err != nil {
			return nil, err
		}
		opts.Prompts = p
	}
	if opts.TreeID == "" {
		opts.TreeID = task.ID + "/tsapr"
	}
	if opts.Proposer == "" {
		opts.Proposer = "tsapr"
	}
	s := newEnv(chat, exec, task, opts)
	err := s.run(ctx, root)
	return s.finish(), err
}

// run tests the root, then runs rounds until the session ends: a fix
// (unless UntilBudget), the budget, or no open node left.
func (s *env) run(ctx context.Context, root string) error {
	if err := s.addRoot(ctx, root); err != nil {
		return err
	}
	if s.res.Solved {
		return nil
	}
	pol := policy.UCTExpansion{UCT: policy.UCT{C: s.opts.C, Beta: s.opts.Beta}, Reward: s.reward, Stream: rngStream}
	sess, err := search.NewSession(s.t, pol, search.SessionConfig{Budget: s.opts.Budget, Seed: s.opts.Seed, UntilBudget: s.opts.UntilBudget})
	if err != nil {
		return fmt.Errorf("tsapr %s: %w", s.t.ID, err)
	}
	ep, ok := sess.Episode().(policy.Expansions)
	if !ok {
		return fmt.Errorf("tsapr %s: the episode of %s does not take expansions", s.t.ID, pol.Name())
	}
	s.sess, s.ep = sess, ep
	for sess.State() == search.Running {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tsapr %s: %w", s.t.ID, err)
		}
		if err := s.round(ctx); err != nil {
			return err
		}
	}
	return nil
}

// round is one expansion: the session asks for MaxExpansion slots of the
// node UCT selects; their patches are generated, evaluated and told; the
// episode backs the expansion up, and the round is recorded. The node
// counts as expanded even when the budget or an error cuts it short.
func (s *env) round(ctx context.Context) error {
	slots, err := s.sess.Ask(ctx, s.opts.MaxExpansion)
	if err != nil {
		return fmt.Errorf("tsapr %s: %w", s.t.ID, err)
	}
	if len(slots) == 0 {
		return fmt.Errorf("tsapr %s: the session asked nothing while running", s.t.ID)
	}
	v := s.t.Edges[slots[0]].Parent
	s.stats[v].Expanded = true
	s.seen = map[string]bool{}
	children, err := s.expand(ctx, slots)
	s.ep.EndExpansion()
	s.res.Steps = append(s.res.Steps, s.step(v, children))
	return err
}

// expand expands the asked slots in order, one try each. A patch identical
// to an earlier one of the round is dropped (it costs no patch) and, while
// the round has tries left, the session is asked for the node's next slot
// in its place; the session's budget bounds every ask. Expansion stops once
// the session ends (a fix without UntilBudget, or the budget).
func (s *env) expand(ctx context.Context, slots []corpus.EdgeID) ([]corpus.NodeID, error) {
	var children []corpus.NodeID
	tries := 0
	for len(slots) > 0 {
		for _, e := range slots {
			tries++
			c, err := s.Expand(ctx, e)
			if errors.Is(err, errDuplicate) {
				s.res.Dropped++
				if err := s.sess.Drop(e); err != nil {
					return children, fmt.Errorf("tsapr %s: %w", s.t.ID, err)
				}
				continue
			}
			if err != nil {
				return children, err
			}
			if err := s.tell(e, c); err != nil {
				return children, err
			}
			children = append(children, c)
			if s.sess.State() != search.Running {
				return children, nil
			}
		}
		if tries >= s.opts.MaxExpansion {
			break
		}
		var err error
		if slots, err = s.sess.Ask(ctx, s.opts.MaxExpansion-tries); err != nil {
			return children, fmt.Errorf("tsapr %s: %w", s.t.ID, err)
		}
	}
	return children, nil
}

// tell tells the session of patch c, the child of slot e, and records it
// when it is plausible.
func (s *env) tell(e corpus.EdgeID, c corpus.NodeID) error {
	if err := s.sess.Tell(e, c); err != nil {
		return fmt.Errorf("tsapr %s: %w", s.t.ID, err)
	}
	st := &s.stats[c]
	if !st.Plausible {
		return nil
	}
	tokens := s.sess.Tokens()
	s.res.Plausible = append(s.res.Plausible, Plausible{Node: c, Patch: st.Patch, OutputTokens: tokens, Program: s.t.Nodes[c].Program})
	if !s.res.Solved {
		s.res.Solved, s.res.FirstAt, s.res.OutputTokensToFirst = true, st.Patch, tokens
	}
	return nil
}

// step records a round: the path from the root to the expanded node v, its
// new children, and every node's Q and N after the update.
func (s *env) step(v corpus.NodeID, children []corpus.NodeID) Step {
	var path []corpus.NodeID
	for u := v; u != corpus.NoNode; u = s.t.Nodes[u].Parent {
		path = append(path, u)
	}
	slices.Reverse(path)
	st := Step{Path: path, Children: children, Q: make([]float64, len(s.stats)), N: make([]int, len(s.stats))}
	for i := range s.stats {
		st.Q[i], st.N[i] = s.ep.Value(corpus.NodeID(i))
	}
	return st
}
