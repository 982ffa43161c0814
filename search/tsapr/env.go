package tsapr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"triage/corpus"
	"triage/policy"
	"triage/search"
	"triage/search/proposer/openai"
)

// env is TSAPR's environment, a search.Env over the patch tree: expanding
// a slot edge of node v generates a patch of v's program (a chain-of-thought
// call, then a self-reflection call in the same conversation), runs it
// against the tests and rewards it (plausible, the tests, or the LLM
// judge); the patch becomes v's child, with MaxExpansion slots of its own
// when it is open. The round's driver (tsapr.go) holds the session.
type env struct {
	chat    Chat
	exec    corpus.Executor
	task    *corpus.Task
	opts    Options
	prompts *Prompts
	t       *corpus.Tree
	stats   []NodeStats // by NodeID
	seen    map[string]bool
	usage   map[string]openai.Usage
	res     Result
	sess    *search.Session
	ep      policy.Expansions
}

var _ search.Env = (*env)(nil)

// errDuplicate is Expand's answer for a patch identical to an earlier one
// of the same round: it is dropped and costs no patch (APRMCTS).
var errDuplicate = errors.New("tsapr: patch identical to a sibling's")

func newEnv(chat Chat, exec corpus.Executor, task *corpus.Task, opts Options) *env {
	s := &env{chat: chat, exec: exec, task: task, opts: opts, prompts: opts.Prompts, usage: map[string]openai.Usage{}}
	split := task.Split
	if split == "" {
		split = corpus.SplitFor(task.ID)
	}
	s.t = &corpus.Tree{ID: opts.TreeID, TaskID: task.ID, Split: split, Source: corpus.SourceOf(task), K: opts.MaxExpansion, D: opts.Budget,
		Proposer: opts.Proposer, Model: opts.ModelName}
	return s
}

func addUsage(a, b openai.Usage) openai.Usage { a.Add(b); return a }

// addRoot runs the root program, chooses the judge (auto: the tests from
// MinTests tests on) and adds the root with its slots unless it passes.
func (s *env) addRoot(ctx context.Context, root string) error {
	ex, err := s.exec.Run(ctx, root, s.task.Test)
	if err != nil {
		return fmt.Errorf("tsapr %s: run root: %w", s.t.ID, err)
	}
	s.t.Nodes = append(s.t.Nodes, corpus.Node{ID: 0, Parent: corpus.NoNode, ViaEdge: -1, Program: root, ProgramSHA: corpus.SHA256(root), Exec: ex})
	s.stats = append(s.stats, NodeStats{Loads: ex.Status != corpus.StatusLoadError, Judge: "root"})
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
	s.addSlots(0)
	return nil
}

// addSlots gives node v MaxExpansion unexpanded edges: the tries of the
// round that will expand it.
func (s *env) addSlots(v corpus.NodeID) {
	for i := range s.opts.MaxExpansion {
		e := corpus.EdgeID(len(s.t.Edges))
		s.t.Edges = append(s.t.Edges, corpus.Edge{ID: e, Parent: v, Index: i, Child: corpus.NoNode})
		s.t.Nodes[v].Edges = append(s.t.Nodes[v].Edges, e)
	}
}

// reward is a node's TSAPR reward, the episode's Reward; the root's is 0.
func (s *env) reward(n *corpus.Node) float64 { return s.stats[n.ID].Reward }

// Tree implements search.Env: the patch tree with its slots.
func (s *env) Tree() *corpus.Tree { return s.t }

// Expandable implements search.Env: a slot not yet expanded.
func (s *env) Expandable(e corpus.EdgeID) bool {
	return e >= 0 && int(e) < len(s.t.Edges) && s.t.Edges[e].Child == corpus.NoNode
}

// Expand implements search.Env: it generates a patch of the slot's node and
// evaluates it. A duplicate of the round's earlier patches is errDuplicate.
func (s *env) Expand(ctx context.Context, e corpus.EdgeID) (corpus.NodeID, error) {
	if !s.Expandable(e) {
		return corpus.NoNode, fmt.Errorf("tsapr %s: edge %d is not expandable", s.t.ID, e)
	}
	cand, err := s.generate(ctx, s.t.Edges[e].Parent)
	if err != nil {
		return corpus.NoNode, err
	}
	if cand.ok {
		key := normalize(cand.program)
		if s.seen[key] {
			return corpus.NoNode, errDuplicate
		}
		s.seen[key] = true
	}
	return s.evaluate(ctx, e, cand)
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
func (s *env) generate(ctx context.Context, v corpus.NodeID) (candidate, error) {
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

func (s *env) call(ctx context.Context, kind string, msgs []openai.Message) (openai.Reply, error) {
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
func (s *env) data(v corpus.NodeID) PromptData {
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

// evaluate runs cand, the patch of slot e, rewards it and adds it to the
// tree as the slot's child.
func (s *env) evaluate(ctx context.Context, e corpus.EdgeID, cand candidate) (corpus.NodeID, error) {
	v := s.t.Edges[e].Parent
	par := s.t.Node(v)
	patch := s.res.Patches + 1
	id := corpus.NodeID(len(s.t.Nodes))
	n := corpus.Node{ID: id, Parent: v, ViaEdge: e, Depth: par.Depth + 1, ReviseTokens: cand.output, TokensEstimated: cand.estimated}
	st := NodeStats{Patch: patch, ReflectKept: cand.ok && !cand.reflectOK}
	if !cand.ok {
		n.ReviseFailed, n.Raw, n.ProgramSHA = true, cand.raw, corpus.SHA256("")
		n.Exec = corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "the reply held no program"}
		st.NoProgram = true
	} else {
		n.Program, n.ProgramSHA = cand.program, corpus.SHA256(cand.program)
		ex, err := s.exec.Run(ctx, cand.program, s.task.Test)
		if err != nil {
			return corpus.NoNode, fmt.Errorf("tsapr %s: run patch %d: %w", s.t.ID, patch, err)
		}
		n.Exec = ex
		st.Loads = ex.Status != corpus.StatusLoadError
		st.Duplicate = normalize(cand.program) == normalize(par.Program)
	}
	if err := s.rewardPatch(ctx, v, cand, &n, &st); err != nil {
		return corpus.NoNode, err
	}
	text := "Reasoning:\n" + cand.reasoning
	if cand.reflection != "" {
		text += "\n\nReflection:\n" + cand.reflection
	}
	s.t.Edges[e].Edit = corpus.ProposedEdit{Text: text}
	s.t.Edges[e].Child = id
	s.t.Nodes = append(s.t.Nodes, n)
	s.stats = append(s.stats, st)
	s.res.Patches++
	if !st.Plausible && !st.NoProgram {
		s.addSlots(id)
	}
	return id, nil
}

// rewardPatch sets the reward of patch n, a child of v: −1 when it does not
// load, 1 when it passes, else its pass rate or the LLM judge's score; a
// non-negative reward of a patch identical to its parent is halved.
func (s *env) rewardPatch(ctx context.Context, v corpus.NodeID, cand candidate, n *corpus.Node, st *NodeStats) error {
	switch {
	case !st.Loads:
		st.Reward, st.Judge = -1, "no_load"
	case n.Exec.Solved():
		st.Reward, st.Judge, st.Plausible = 1, "plausible", true
	case s.res.Judge == JudgeTests:
		st.Reward, st.Judge = n.Exec.PassRate, string(JudgeTests)
	default:
		par := s.t.Node(v)
		d := s.data(v)
		d.Reasoning, d.Reflection, d.Patch = cand.reasoning, cand.reflection, cand.program
		d.PatchStatus, d.PatchPassed, d.PatchFeedback = string(n.Exec.Status), passed(n.Exec), strings.TrimSpace(n.Exec.Feedback)
		d.Total = len(n.Exec.Tests)
		if s.opts.Diff != nil {
			d.Diff = s.opts.Diff(par.Program, cand.program)
		}
		j, err := s.judge(ctx, d)
		if err != nil {
			return fmt.Errorf("tsapr %s: patch %d: %w", s.t.ID, st.Patch, err)
		}
		st.Reward, st.Judge, st.Scores, st.JudgeFailed = j.Reward, string(JudgeLLM), j.Scores, j.Failed
		n.ProposeTokens = j.Usage.OutputTokens
		n.TokensEstimated = n.TokensEstimated || j.Usage.Estimated
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
	return nil
}

// finish fills the result: every node's Q and N (the episode's), the
// patch tree with its per-node records and labels, and the totals.
func (s *env) finish() *Result {
	r := &s.res
	tokens := 0
	if s.sess != nil {
		tokens = s.sess.Tokens()
		for i := range s.stats {
			s.stats[i].Q, s.stats[i].N = s.ep.Value(corpus.NodeID(i))
		}
	}
	r.Tree, r.Nodes, r.Usage = s.patchTree(), s.stats, s.usage
	for _, u := range s.usage {
		r.Total.Add(u)
	}
	if !r.Solved {
		r.OutputTokensToFirst = tokens
	}
	for i := range r.Tree.Nodes {
		st := s.stats[i]
		r.Tree.Nodes[i].Diagnosis = describe(st)
		if e := r.Tree.Nodes[i].ViaEdge; e >= 0 {
			b, _ := json.Marshal(st)
			r.Tree.Edges[e].Edit.Payload = string(b)
		}
	}
	corpus.ComputeLabels(r.Tree)
	return r
}

// patchTree is the tree of patches without the slots that made none (not
// expanded, dropped, or cut short): its edges are renumbered in patch
// order, edge i leading to node i+1, each edge's index its place among its
// parent's patches.
func (s *env) patchTree() *corpus.Tree {
	t := *s.t
	t.Nodes = append([]corpus.Node(nil), s.t.Nodes...)
	t.Edges = nil
	for i := range t.Nodes {
		t.Nodes[i].Edges = nil
	}
	for i := 1; i < len(t.Nodes); i++ {
		n := &t.Nodes[i]
		par := &t.Nodes[n.Parent]
		e := corpus.EdgeID(len(t.Edges))
		t.Edges = append(t.Edges, corpus.Edge{ID: e, Parent: n.Parent, Index: len(par.Edges), Edit: s.t.Edges[n.ViaEdge].Edit, Child: n.ID})
		par.Edges = append(par.Edges, e)
		n.ViaEdge = e
	}
	return &t
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
