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
// Imports: corpus, policy and search/proposer/openai (the LLM client TSAPR
// writes patches with).
package tsapr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"

	"triage/corpus"
	"triage/policy"
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
	s := &searcher{chat: chat, exec: exec, task: task, opts: opts, prompts: opts.Prompts,
		rng: rand.New(rand.NewPCG(opts.Seed, 0x75a9)), usage: map[string]openai.Usage{}}
	split := task.Split
	if split == "" {
		split = corpus.SplitFor(task.ID)
	}
	s.t = &corpus.Tree{ID: opts.TreeID, TaskID: task.ID, Split: split, Source: corpus.SourceOf(task), K: opts.MaxExpansion, D: opts.Budget,
		Proposer: opts.Proposer, Model: opts.ModelName}
	err := s.run(ctx, root)
	return s.finish(), err
}

type searcher struct {
	chat    Chat
	exec    corpus.Executor
	task    *corpus.Task
	opts    Options
	prompts *Prompts
	rng     *rand.Rand
	t       *corpus.Tree
	stats   []NodeStats
	kids    [][]corpus.NodeID
	usage   map[string]openai.Usage
	res     Result
	output  int // output tokens so far
}

func addUsage(a, b openai.Usage) openai.Usage { a.Add(b); return a }

func (s *searcher) run(ctx context.Context, root string) error {
	ex, err := s.exec.Run(ctx, root, s.task.Test)
	if err != nil {
		return fmt.Errorf("tsapr %s: run root: %w", s.t.ID, err)
	}
	s.t.Nodes = append(s.t.Nodes, corpus.Node{ID: 0, Parent: corpus.NoNode, ViaEdge: -1, Program: root, ProgramSHA: corpus.SHA256(root), Exec: ex})
	s.stats = append(s.stats, NodeStats{Loads: ex.Status != corpus.StatusLoadError, Judge: "root"})
	s.kids = append(s.kids, nil)
	s.res.Judge = s.opts.Judge
	if s.res.Judge == JudgeAuto {
		s.res.Judge = JudgeTests
		if len(ex.Tests) < s.opts.MinTests {
			s.res.Judge = JudgeLLM
		}
	}
	if ex.Solved() {
		s.res.Solved = true
		s.stats[0].Plausible = true
		return nil
	}
	for s.res.Patches < s.opts.Budget {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tsapr %s: %w", s.t.ID, err)
		}
		path, ok := s.selectPath()
		if !ok {
			return nil // every node is expanded or a leaf
		}
		v := path[len(path)-1]
		children, err := s.expand(ctx, v)
		s.backpropagate(v)
		s.res.Steps = append(s.res.Steps, s.step(path, children))
		if err != nil {
			return err
		}
		if s.res.Solved && !s.opts.UntilBudget {
			return nil
		}
	}
	return nil
}

// open reports whether v or a node below it can still be expanded.
func (s *searcher) open(v corpus.NodeID) bool {
	st := &s.stats[v]
	if st.Plausible || st.NoProgram {
		return false
	}
	if !st.Expanded {
		return true
	}
	for _, c := range s.kids[v] {
		if s.open(c) {
			return true
		}
	}
	return false
}

// selectPath descends by UCT from the root to the node to expand.
func (s *searcher) selectPath() ([]corpus.NodeID, bool) {
	v := corpus.NodeID(0)
	if !s.open(v) {
		return nil, false
	}
	path := []corpus.NodeID{v}
	for s.stats[v].Expanded {
		lnN := math.Log(float64(max(s.stats[v].N, 1)))
		best, bestVal, ties := corpus.NoNode, math.Inf(-1), 0
		for _, c := range s.kids[v] {
			if !s.open(c) {
				continue
			}
			val := s.uct(c, lnN)
			switch {
			case val > bestVal:
				best, bestVal, ties = c, val, 1
			case val == bestVal:
				ties++
				if s.rng.IntN(ties) == 0 {
					best = c
				}
			}
		}
		v = best // open(v) guarantees an open child
		path = append(path, v)
	}
	return path, true
}

// uct is UCT_j = Q_j + C·sqrt(2·ln N_parent / N_j), or Q_j + 1 for N_j = 0.
func (s *searcher) uct(c corpus.NodeID, lnNParent float64) float64 {
	st := &s.stats[c]
	if st.N == 0 {
		return st.Q + 1
	}
	return st.Q + s.opts.C*math.Sqrt(2*lnNParent/float64(st.N))
}

// backpropagate updates N and Q from v to the root.
func (s *searcher) backpropagate(v corpus.NodeID) {
	for u := v; u != corpus.NoNode; u = s.t.Nodes[u].Parent {
		st := &s.stats[u]
		st.N++
		if !st.Expanded {
			continue
		}
		var sum, cnt float64
		for _, c := range s.kids[u] {
			sum += s.stats[c].Q * float64(s.stats[c].N)
			cnt += float64(s.stats[c].N)
		}
		if cnt > 0 {
			st.Q = s.opts.Beta*sum/cnt + (1-s.opts.Beta)*st.Q
		}
	}
}

func (s *searcher) step(path, children []corpus.NodeID) Step {
	st := Step{Path: path, Children: children, Q: make([]float64, len(s.stats)), N: make([]int, len(s.stats))}
	for i := range s.stats {
		st.Q[i], st.N[i] = s.stats[i].Q, s.stats[i].N
	}
	return st
}

// expand generates up to MaxExpansion children of v, within the budget. The
// node counts as expanded even when the budget or an error cuts it short.
func (s *searcher) expand(ctx context.Context, v corpus.NodeID) ([]corpus.NodeID, error) {
	s.stats[v].Expanded = true
	var children []corpus.NodeID
	seen := map[string]bool{}
	for try := 0; try < s.opts.MaxExpansion && s.res.Patches < s.opts.Budget; try++ {
		cand, err := s.generate(ctx, v)
		if err != nil {
			return children, err
		}
		if cand.ok {
			key := normalize(cand.program)
			if seen[key] {
				s.res.Dropped++
				continue
			}
			seen[key] = true
		}
		c, err := s.evaluate(ctx, v, cand)
		if err != nil {
			return children, err
		}
		children = append(children, c)
		if s.stats[c].Plausible && !s.opts.UntilBudget {
			break
		}
	}
	return children, nil
}

// candidate is one generated patch before evaluation.
type candidate struct {
	program    string
	ok         bool // the replies held a program
	reflectOK  bool // the reflection held one (and revised or kept the patch)
	reasoning  string
	reflection string
	raw        string // the reply, when it held no program
	output     int    // output tokens of generation and reflection
	estimated  bool
}

// generate writes one patch of v's program: the chain-of-thought call,
// then, in the same conversation, the self-reflection call.
func (s *searcher) generate(ctx context.Context, v corpus.NodeID) (candidate, error) {
	var c candidate
	d := s.data(v)
	prompt, err := render(s.prompts.generate, d)
	if err != nil {
		return c, err
	}
	msgs := []openai.Message{{Role: openai.RoleSystem, Content: s.prompts.System}, {Role: openai.RoleUser, Content: prompt}}
	rep, err := s.call(ctx, callGenerate, msgs)
	if err != nil {
		return c, err
	}
	c.output, c.estimated = rep.Usage.OutputTokens, rep.Usage.Estimated
	first := firstContent(rep)
	c.reasoning = prose(first)
	c.program, c.ok = openai.ExtractProgram(first)
	if !c.ok {
		c.raw = first
		return c, nil
	}
	d.Reasoning = c.reasoning
	refl, err := render(s.prompts.reflect, d)
	if err != nil {
		return c, err
	}
	msgs = append(msgs, openai.Message{Role: openai.RoleAssistant, Content: first}, openai.Message{Role: openai.RoleUser, Content: refl})
	rep, err = s.call(ctx, callReflect, msgs)
	if err != nil {
		return c, err
	}
	c.output += rep.Usage.OutputTokens
	c.estimated = c.estimated || rep.Usage.Estimated
	second := firstContent(rep)
	c.reflection = prose(second)
	if prog, ok := openai.ExtractProgram(second); ok {
		c.program, c.reflectOK = prog, true
	}
	return c, nil
}

func (s *searcher) call(ctx context.Context, kind string, msgs []openai.Message) (openai.Reply, error) {
	rep, err := s.chat.Complete(ctx, openai.Request{Model: s.opts.Model, Messages: msgs, N: 1, Temperature: &s.opts.Temperature})
	if err != nil {
		return rep, fmt.Errorf("tsapr %s: %s: %w", s.t.ID, kind, err)
	}
	s.usage[kind] = addUsage(s.usage[kind], rep.Usage)
	return rep, nil
}

func firstContent(r openai.Reply) string {
	if len(r.Contents) == 0 {
		return ""
	}
	return r.Contents[0]
}

// data is the prompt data of node v's program.
func (s *searcher) data(v corpus.NodeID) PromptData {
	n := s.t.Node(v)
	return PromptData{Question: strings.TrimSpace(s.task.Question), Program: n.Program, Tests: clipText(s.task.Test, maxTestChars),
		Status: string(n.Exec.Status), Passed: passed(n.Exec), Total: len(n.Exec.Tests), Feedback: strings.TrimSpace(n.Exec.Feedback)}
}

// maxTestChars bounds the test file shown in prompts.
const maxTestChars = 8000

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n# … (truncated)\n"
}

func passed(e corpus.Execution) int {
	k := 0
	for _, t := range e.Tests {
		if t.Passed {
			k++
		}
	}
	return k
}

var fenceRE = regexp.MustCompile("(?s)```[^\n]*\n.*?```")

// maxProseChars bounds the reasoning and reflection kept per patch.
const maxProseChars = 6000

// prose is a reply without its code blocks: the reasoning around them.
func prose(reply string) string {
	return clipText(strings.TrimSpace(fenceRE.ReplaceAllString(reply, "[code]")), maxProseChars)
}

// normalize makes two programs that differ only in trailing whitespace
// equal, for the duplicate checks.
func normalize(program string) string {
	lines := strings.Split(strings.TrimRight(program, " \t\r\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// evaluate runs cand as a child of v, rewards it and adds it to the tree.
func (s *searcher) evaluate(ctx context.Context, v corpus.NodeID, cand candidate) (corpus.NodeID, error) {
	par := s.t.Node(v)
	s.res.Patches++
	s.output += cand.output
	id := corpus.NodeID(len(s.t.Nodes))
	eid := corpus.EdgeID(len(s.t.Edges))
	n := corpus.Node{ID: id, Parent: v, ViaEdge: eid, Depth: par.Depth + 1, ReviseTokens: cand.output, TokensEstimated: cand.estimated}
	st := NodeStats{Patch: s.res.Patches, ReflectKept: cand.ok && !cand.reflectOK}
	if !cand.ok {
		n.ReviseFailed, n.Raw, n.ProgramSHA = true, cand.raw, corpus.SHA256("")
		n.Exec = corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "the reply held no program"}
		st.NoProgram = true
	} else {
		n.Program, n.ProgramSHA = cand.program, corpus.SHA256(cand.program)
		ex, err := s.exec.Run(ctx, cand.program, s.task.Test)
		if err != nil {
			s.res.Patches--
			s.output -= cand.output
			return corpus.NoNode, fmt.Errorf("tsapr %s: run patch %d: %w", s.t.ID, s.res.Patches+1, err)
		}
		n.Exec = ex
		st.Loads = ex.Status != corpus.StatusLoadError
		st.Duplicate = normalize(cand.program) == normalize(par.Program)
	}
	switch {
	case !st.Loads:
		st.Reward, st.Judge = -1, "no_load"
	case n.Exec.Solved():
		st.Reward, st.Judge, st.Plausible = 1, "plausible", true
	case s.res.Judge == JudgeTests:
		st.Reward, st.Judge = n.Exec.PassRate, string(JudgeTests)
	default:
		d := s.data(v)
		d.Reasoning, d.Reflection, d.Patch = cand.reasoning, cand.reflection, cand.program
		d.PatchStatus, d.PatchPassed, d.PatchFeedback = string(n.Exec.Status), passed(n.Exec), strings.TrimSpace(n.Exec.Feedback)
		d.Total = len(n.Exec.Tests)
		if s.opts.Diff != nil {
			d.Diff = s.opts.Diff(par.Program, cand.program)
		}
		j, err := s.judge(ctx, d)
		if err != nil {
			s.res.Patches--
			s.output -= cand.output
			return corpus.NoNode, fmt.Errorf("tsapr %s: patch %d: %w", s.t.ID, s.res.Patches+1, err)
		}
		st.Reward, st.Judge, st.Scores, st.JudgeFailed = j.Reward, string(JudgeLLM), j.Scores, j.Failed
		n.ProposeTokens = j.Usage.OutputTokens
		n.TokensEstimated = n.TokensEstimated || j.Usage.Estimated
		s.output += j.Usage.OutputTokens
		if len(j.Scores) == 0 {
			s.res.JudgeFailures++
			if n.Raw == "" {
				n.Raw = j.Raw
			}
		}
	}
	if st.Duplicate && st.Reward > 0 {
		st.Reward *= 0.5
	}
	st.Q = st.Reward
	text := "Reasoning:\n" + cand.reasoning
	if cand.reflection != "" {
		text += "\n\nReflection:\n" + cand.reflection
	}
	s.t.Edges = append(s.t.Edges, corpus.Edge{ID: eid, Parent: v, Index: len(par.Edges), Edit: corpus.ProposedEdit{Text: text}, Child: id})
	s.t.Nodes[v].Edges = append(s.t.Nodes[v].Edges, eid)
	s.t.Nodes = append(s.t.Nodes, n)
	s.stats = append(s.stats, st)
	s.kids = append(s.kids, nil)
	s.kids[v] = append(s.kids[v], id)
	if st.Plausible {
		s.res.Plausible = append(s.res.Plausible, Plausible{Node: id, Patch: st.Patch, OutputTokens: s.output, Program: cand.program})
		if !s.res.Solved {
			s.res.Solved, s.res.FirstAt, s.res.OutputTokensToFirst = true, st.Patch, s.output
		}
	}
	return id, nil
}

// finish fills the tree's per-node records and labels and the totals.
func (s *searcher) finish() *Result {
	r := &s.res
	r.Tree, r.Nodes, r.Usage = s.t, s.stats, s.usage
	for _, u := range s.usage {
		r.Total.Add(u)
	}
	if !r.Solved {
		r.OutputTokensToFirst = s.output
	}
	for i := range s.t.Nodes {
		st := s.stats[i]
		s.t.Nodes[i].Diagnosis = describe(st)
		if e := s.t.Nodes[i].ViaEdge; e >= 0 {
			b, _ := json.Marshal(st)
			s.t.Edges[e].Edit.Payload = string(b)
		}
	}
	corpus.ComputeLabels(s.t)
	return r
}

// describe is a node's TSAPR record as the tree viewer shows it.
func describe(st NodeStats) string {
	var b strings.Builder
	if st.Patch == 0 {
		b.WriteString("TSAPR root")
	} else {
		fmt.Fprintf(&b, "TSAPR patch %d: reward %.3f (%s", st.Patch, st.Reward, st.Judge)
		if len(st.Scores) > 0 {
			fmt.Fprintf(&b, ", scores %v", st.Scores)
		}
		if st.JudgeFailed > 0 {
			fmt.Fprintf(&b, ", %d judge replies without a score", st.JudgeFailed)
		}
		if st.Duplicate {
			b.WriteString(", identical to its parent: halved")
		}
		if st.ReflectKept {
			b.WriteString(", reflection kept the patch")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "; Q %.4f, N %d", st.Q, st.N)
	return b.String()
}
