// Package mutate is the offline proposer: no LLM, but the same two steps.
// Propose localizes the fault from the test results (Ochiai over per-test
// line coverage when the executor gives it), writes a diagnosis (failing
// tests, expected vs actual values, exceptions and lines, suspicious lines)
// and samples k program mutations as edits, biased toward suspicious lines
// but not an oracle. Revise applies the chosen edit as an exact splice.
// Inject plants 1–3 mutations in a reference solution to make buggy roots.
//
// Everything is seeded: the same options, key and program give the same
// diagnosis, edits and revisions.
//
// Imports: corpus, search/proposer and its own pylex.
package mutate

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"triage/corpus"
	"triage/search/proposer"
)

// Options configures a Proposer. Zero fields take the defaults.
type Options struct {
	// Seed is mixed into every random choice.
	Seed uint64
	// Tokens counts output tokens; nil means proposer.EstimateTokens, and the
	// counts are then marked as estimated.
	Tokens proposer.TokenCounter
	// Floor is added to every line's suspiciousness (in [0, 1]) before
	// weighting, so edits on lines no failing test blames still occur
	// (default DefaultFloor).
	Floor float64
	// Sharpness raises suspiciousness to this power (default
	// DefaultSharpness); higher concentrates edits on the top lines.
	Sharpness float64
	// Priors weights the families (default DefaultPriors); a family absent
	// from a non-nil map is never proposed.
	Priors map[Family]float64
}

// Default tuning, chosen so that exhaustive k=3, D=4 trees grown from the
// bundled injected roots contain a fix for roughly 40–80% of roots (see the
// package README).
const (
	DefaultFloor     = 0.001
	DefaultSharpness = 20.0
)

// DefaultPriors are the family weights of the proposer: boundary and
// operator slips first, as in the bugs an LLM repairs most often.
var DefaultPriors = map[Family]float64{
	CmpOp: 3, ArithOp: 2, BoolOp: 1.5, Const: 2, OffByOne: 3, SwapOperands: 1,
	SwapArgs: 0.7, WrongVar: 1.5, NegateCond: 1.5, DeleteStmt: 0.2, ReturnValue: 0.3,
}

// cleanup reports whether m removes something that reads like a slip (a
// stray ±1, a `not`): such edits make code more idiomatic, and a programmer
// tries them first.
func cleanup(m Mutation) bool {
	switch m.Family {
	case OffByOne, BoolOp:
		return m.Repl == ""
	case NegateCond:
		return !strings.HasPrefix(m.Repl, "not ")
	}
	return false
}

// Proposer is the mutate proposer. It is safe for concurrent use.
type Proposer struct {
	opts      Options
	tokens    proposer.TokenCounter
	estimated bool
}

var _ corpus.Proposer = (*Proposer)(nil)

// New returns a Proposer.
func New(opts Options) *Proposer {
	if opts.Floor <= 0 {
		opts.Floor = DefaultFloor
	}
	if opts.Sharpness <= 0 {
		opts.Sharpness = DefaultSharpness
	}
	if opts.Priors == nil {
		opts.Priors = DefaultPriors
	}
	tc, est := proposer.Counter(opts.Tokens)
	return &Proposer{opts: opts, tokens: tc, estimated: est}
}

// UsesCoverage implements corpus.CoverageUser: fault localization reads
// per-test line coverage (Ochiai), so programs that get proposals are run
// with it.
func (pr *Proposer) UsesCoverage() bool { return true }

// rng returns the generator for one request: seeded by hash(seed, key, program).
func rng(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New128a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, p := range parts {
		binary.LittleEndian.PutUint64(b[:], uint64(len(p)))
		h.Write(b[:])
		h.Write([]byte(p))
	}
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:])))
}

// Propose diagnoses req.Program from req.Exec and proposes up to req.K
// edits. A program with no mutable code gets a diagnosis and no edits.
func (pr *Proposer) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	if err := ctx.Err(); err != nil {
		return corpus.Proposal{}, fmt.Errorf("mutate propose: %w", err)
	}
	p := parse(req.Program)
	d := diagnose(p, req.Task, req.Exec)
	r := rng(pr.opts.Seed, "propose", req.Key, req.Program)
	chosen, shares := pr.choose(p, d, r, req.K)
	prop := corpus.Proposal{Diagnosis: d.text, TokensEstimated: pr.estimated}
	tokens := pr.tokens.CountTokens(d.text)
	for i, m := range chosen {
		text := editText(p, d, m, r)
		score := math.Log(shares[i])
		prop.Edits = append(prop.Edits, corpus.ProposedEdit{Text: text, Payload: m.Marshal(), Score: &score})
		tokens += pr.tokens.CountTokens(text)
	}
	prop.OutputTokens = tokens
	return prop, nil
}

// choose samples up to k mutations with weights (see weights) without
// replacement and with distinct resulting programs. shares[i] is chosen[i]'s
// weight over the total weight of every candidate (in (0, 1]): the
// proposer's own confidence in it, recorded as the edit's score.
func (pr *Proposer) choose(p *program, d diagnosis, r *rand.Rand, k int) (chosen []Mutation, shares []float64) {
	cands := p.enumerate()
	w := pr.weights(cands, d)
	total := 0.0
	for _, x := range w {
		total += x
	}
	idx := sampleIndices(p.src, cands, w, r, k)
	chosen, shares = make([]Mutation, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		chosen[i], shares[i] = cands[j], w[j]/total
	}
	return chosen, shares
}

// weights gives each candidate prior(family) × boost(family) ×
// (3 for a cleanup) × (suspiciousness(line)^sharpness + floor), shared among the sites of that
// family on that line and among the alternatives of a site by preference.
// So every (line, family) pair gets its prior's share of the line's weight
// however many operators or names the line holds.
func (pr *Proposer) weights(cands []Mutation, d diagnosis) []float64 {
	boost := familyBoosts(d)
	return spread(cands, func(m Mutation) float64 {
		b := 1.0
		if x, ok := boost[m.Family]; ok {
			b = x
		}
		if cleanup(m) {
			b *= 3
		}
		return pr.opts.Priors[m.Family] * b * (math.Pow(d.susp[m.Line], pr.opts.Sharpness) + pr.opts.Floor)
	}, true)
}

// spread divides base(m) among the sites of m's family on m's line, and
// within a site by pref (or evenly when usePref is false).
func spread(cands []Mutation, base func(Mutation) float64, usePref bool) []float64 {
	type lineFam struct {
		line int
		f    Family
	}
	sites := map[lineFam]map[int]bool{}
	prefs := map[int]float64{}
	count := map[int]int{}
	for _, m := range cands {
		k := lineFam{m.Line, m.Family}
		if sites[k] == nil {
			sites[k] = map[int]bool{}
		}
		sites[k][m.site] = true
		prefs[m.site] += m.pref
		count[m.site]++
	}
	w := make([]float64, len(cands))
	for i, m := range cands {
		share := 1 / float64(count[m.site])
		if usePref && prefs[m.site] > 0 {
			share = m.pref / prefs[m.site]
		}
		w[i] = base(m) * share / float64(len(sites[lineFam{m.Line, m.Family}]))
		if !(w[i] > 0) || math.IsInf(w[i], 0) {
			w[i] = 0
		}
	}
	return w
}

// familyBoosts reads the failures the way a programmer would: an
// IndexError points at bounds, a value off by one at constants and
// comparisons, None at a missing return, a TypeError at a wrong variable.
// Each family gets the largest boost any failure suggests.
func familyBoosts(d diagnosis) map[Family]float64 {
	b := map[Family]float64{}
	up := func(f Family, x float64) {
		if x > b[f] {
			b[f] = x
		}
	}
	if d.timeout {
		up(CmpOp, 2)
		up(ArithOp, 1.5)
		up(OffByOne, 1.5)
	}
	for _, f := range d.fails {
		exc, _, _ := strings.Cut(f.Exception, ":")
		switch exc {
		case "IndexError":
			up(OffByOne, 2)
			up(CmpOp, 1.5)
		case "KeyError":
			up(OffByOne, 1.5)
			up(WrongVar, 1.5)
		case "ZeroDivisionError":
			up(Const, 2)
			up(ArithOp, 1.5)
		case "TypeError", "NameError", "UnboundLocalError", "AttributeError":
			up(WrongVar, 2)
			up(ReturnValue, 1.5)
		case "RecursionError":
			up(CmpOp, 2)
			up(Const, 1.5)
			up(ArithOp, 1.5)
		}
		if f.Expected == "" {
			continue
		}
		a, e := strings.TrimSpace(f.Actual), strings.TrimSpace(f.Expected)
		if i := strings.Index(a, " from "); i >= 0 {
			a = a[:i]
		}
		switch {
		case a == "None":
			up(ReturnValue, 3)
			up(DeleteStmt, 2)
		case (a == "True" || a == "False") && (e == "True" || e == "False"):
			up(BoolOp, 2)
			up(NegateCond, 2)
			up(CmpOp, 1.5)
		default:
			ai, aerr := strconv.ParseInt(a, 10, 64)
			ei, eerr := strconv.ParseInt(e, 10, 64)
			if aerr == nil && eerr == nil {
				if ai-ei == 1 || ei-ai == 1 {
					up(Const, 2)
					up(OffByOne, 2)
					up(CmpOp, 1.5)
				} else {
					up(ArithOp, 1.5)
					up(Const, 1.5)
				}
			} else if la, le := listLen(a), listLen(e); la >= 0 && le >= 0 && (la-le == 1 || le-la == 1) {
				up(OffByOne, 2)
				up(CmpOp, 1.5)
			}
		}
	}
	return b
}

// listLen returns the number of top-level elements of a Python list or
// tuple literal, or -1 when s is none.
func listLen(s string) int {
	if len(s) < 2 || !((s[0] == '[' && s[len(s)-1] == ']') || (s[0] == '(' && s[len(s)-1] == ')')) {
		return -1
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	if inner == "" {
		return 0
	}
	n := 1
	forEachTopLevel(inner, func(i int) bool {
		if inner[i] == ',' && i < len(inner)-1 {
			n++
		}
		return true
	})
	return n
}

// sample draws up to k mutations of src with probability ∝ w, without
// replacement; results are distinct programs different from src.
func sample(src string, cands []Mutation, weights []float64, r *rand.Rand, k int) []Mutation {
	idx := sampleIndices(src, cands, weights, r, k)
	out := make([]Mutation, len(idx))
	for i, j := range idx {
		out[i] = cands[j]
	}
	return out
}

// sampleIndices is sample returning the chosen candidates' indices.
func sampleIndices(src string, cands []Mutation, weights []float64, r *rand.Rand, k int) []int {
	w := append([]float64(nil), weights...)
	total := 0.0
	for _, x := range w {
		total += x
	}
	var out []int
	seen := map[string]bool{src: true}
	for len(out) < k && total > 1e-12 {
		x := r.Float64() * total
		i := -1
		for j := range w {
			if w[j] == 0 {
				continue
			}
			i = j
			if x < w[j] {
				break
			}
			x -= w[j]
		}
		if i < 0 {
			break
		}
		total -= w[i]
		w[i] = 0
		prog, err := Apply(src, cands[i])
		if err != nil || seen[prog] {
			continue
		}
		seen[prog] = true
		out = append(out, i)
	}
	return out
}

// Revise applies the edit's mutation to req.Program. A payload that does not
// parse or no longer matches the program gives a failed revision.
func (pr *Proposer) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	if err := ctx.Err(); err != nil {
		return corpus.Revision{}, fmt.Errorf("mutate revise: %w", err)
	}
	m, err := ParseMutation(req.Edit.Payload)
	if err != nil {
		return corpus.Revision{Failed: true, Raw: err.Error(), TokensEstimated: pr.estimated}, nil
	}
	out, err := Apply(req.Program, m)
	if err != nil {
		return corpus.Revision{Failed: true, Raw: err.Error(), TokensEstimated: pr.estimated}, nil
	}
	return corpus.Revision{Program: out, OutputTokens: pr.tokens.CountTokens(out), TokensEstimated: pr.estimated}, nil
}

// why gives, per family, the reasons an edit text may cite.
var why = map[Family][]string{
	CmpOp:        {"so the comparison is wrong at the boundary", "so the check accepts the wrong cases", "so the boundary case goes the wrong way"},
	ArithOp:      {"so the value is computed with the wrong operator", "so the arithmetic step is wrong"},
	BoolOp:       {"so the condition combines its parts the wrong way", "so the logic is inverted"},
	Const:        {"so the constant is off", "so the starting value is wrong"},
	OffByOne:     {"so the bound is off by one and an element is skipped or repeated", "so the range stops one step early or late"},
	SwapOperands: {"so the operands are used in the wrong order"},
	SwapArgs:     {"so the arguments are passed in the wrong order"},
	WrongVar:     {"so it reads the wrong variable"},
	NegateCond:   {"so the branch runs in the opposite case", "so the condition is inverted"},
	DeleteStmt:   {"so this statement corrupts the result and should go", "so this update should not happen"},
	ReturnValue:  {"so the function returns the wrong value"},
}

// editText writes the edit in the style of an LLM proposer: where, what and
// why ("Line 7: change `i < n` to `i <= n`; test_x expects 3 but got 2, so
// ...").
func editText(p *program, d diagnosis, m Mutation, r *rand.Rand) string {
	before, after := snippets(p.src, m)
	var what string
	switch {
	case m.Family == DeleteStmt:
		what = fmt.Sprintf("remove `%s`", clip(m.Orig, 80))
	case m.Family == WrongVar:
		what = fmt.Sprintf("use `%s` instead of `%s` in `%s`", m.Repl, m.Orig, before)
	default:
		what = fmt.Sprintf("change `%s` to `%s`", before, after)
	}
	reasons := why[m.Family]
	reason := reasons[r.IntN(len(reasons))]
	return fmt.Sprintf("Line %d: %s; %s, %s.", m.Line, what, evidenceFor(d, m.Line, r), reason)
}

// evidenceFor cites a failing test, preferring one whose traceback or
// coverage reaches line.
func evidenceFor(d diagnosis, line int, r *rand.Rand) string {
	if len(d.fails) == 0 {
		if first := strings.SplitN(d.text, "\n", 2)[0]; first != "" {
			return strings.TrimSuffix(first, ".")
		}
		return "the tests fail"
	}
	var near []failure
	for _, f := range d.fails {
		if f.Line == line {
			near = append(near, f)
			continue
		}
		i := sort.Search(len(f.Lines), func(i int) bool { return f.Lines[i] >= int32(line) })
		if i < len(f.Lines) && f.Lines[i] == int32(line) {
			near = append(near, f)
		}
	}
	if len(near) == 0 {
		near = d.fails
	}
	// Prefer a failure with compared values: they make the best evidence.
	for _, f := range near {
		if f.Expected != "" || f.Exception != "" {
			return f.evidence()
		}
	}
	return near[r.IntN(len(near))].evidence()
}

// snippets returns the source around m before and after the change: the
// whole (trimmed) line when the span lies on one short line, else the
// original and replacement texts themselves.
func snippets(src string, m Mutation) (before, after string) {
	ls := strings.LastIndexByte(src[:m.Start], '\n') + 1
	le := strings.IndexByte(src[m.End:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += m.End
	}
	line := src[ls:le]
	if strings.Contains(src[m.Start:m.End], "\n") || strings.Contains(m.Repl, "\n") || len(line) > 100 {
		return clip(m.Orig, 80), clip(m.Repl, 80)
	}
	b := strings.TrimSpace(line)
	a := strings.TrimSpace(src[ls:m.Start] + m.Repl + src[m.End:le])
	return b, a
}
