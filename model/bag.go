package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/codeprior"
	"triage/model/priority"
)

// BagScope is the GoMLX scope of the bag encoder's variables.
const BagScope = "bag"

// BagConfig is the CPU architecture ("small"): an encoder that GoMLX trains
// in minutes on two cores, feeding the same head, loss and s(e) as the
// Qwen3 model. It reads the edge's texts as hashed word and code-token
// features (the parent's feedback and diagnosis once per parent; the edit,
// its removed and added code tokens and their pairs per edge) and a few
// relational features of the edit against its context: how much more
// natural the edited line is under an n-gram model of correct code, where
// the edited line ranks in the diagnosis's suspicious lines, whether the
// edit's tokens occur elsewhere in the parent program or in the failure
// messages. Pooled embeddings ⊕ standardized relational features → a SiLU
// layer → the encoder output, which the head reads like the Qwen3 model's
// last hidden state.
type BagConfig struct {
	Buckets int `json:"buckets"` // hashed feature ids (power of two)
	Embed   int `json:"embed"`   // embedding width
	Hidden  int `json:"hidden"`  // encoder output width
	// MaxParentIDs and MaxEditIDs cap the feature ids of a parent and of one edit.
	MaxParentIDs int `json:"max_parent_ids"`
	MaxEditIDs   int `json:"max_edit_ids"`
	// NGramOrder and NGramBits size the code n-gram model.
	NGramOrder int `json:"ngram_order"`
	NGramBits  int `json:"ngram_bits"`
	// Inputs switch off parts of the input for the paper's ablations.
	Inputs InputSet `json:"inputs"`
}

// InputSet names the parts of an edge a model reads. The zero value reads
// everything.
type InputSet struct {
	NoParentText bool `json:"no_parent_text,omitempty"` // feedback and diagnosis
	NoEditText   bool `json:"no_edit_text,omitempty"`   // the edit's text
	NoProgram    bool `json:"no_program,omitempty"`     // the parent program (bag only)
	// NoWords: no hashed words or code tokens of any text (bag only). The
	// model keeps the edit's kind and the relational features (how the
	// edit relates to the program, the failures and the diagnosis: names
	// in the failing output, the suspected line, naturalness, sizes), which
	// mean the same on any task set, and drops the vocabulary, which does
	// not (docs/results.md, "Generalization: leave one source out", the
	// no-words rows).
	NoWords bool `json:"no_words,omitempty"`
	// NoLength: the parent program's raw length is not read (its feature
	// is 0). Task sources differ in how long their programs are (one's
	// references are three times another's), so a model that reads the
	// length learns the source.
	NoLength bool `json:"no_length,omitempty"`
	// Siblings adds the relational features of BagSiblingDense (bag
	// only): where the edit ranks among its parent's edits by the
	// proposer's own score, by naturalness and by the suspiciousness of
	// its line, and the parent's test counts. A rank means the same on any
	// task source; a raw value's scale need not.
	Siblings bool `json:"siblings,omitempty"`
	// Prior adds BagPriorDense (bag only): what a model of Python fitted on
	// code outside every corpus (model/codeprior, the embedded prior)
	// says of the edit: the change in log-probability of the lines it
	// edits and of the program, and the edit's rank among its siblings by
	// it. It stands in for what a pretrained code model brings and a model
	// trained on one corpus's fixes lacks.
	Prior bool `json:"prior,omitempty"`
}

// DefaultBagConfig is the embedded default's architecture.
func DefaultBagConfig() BagConfig {
	return BagConfig{Buckets: 1 << 15, Embed: 32, Hidden: 64, MaxParentIDs: 384, MaxEditIDs: 128,
		NGramOrder: 4, NGramBits: 18}
}

// Validate checks the sizes.
func (c BagConfig) Validate() error {
	if c.Buckets < 64 || c.Buckets > 1<<22 || c.Buckets&(c.Buckets-1) != 0 {
		return fmt.Errorf("bag: buckets %d, want a power of two in [64, 2^22]", c.Buckets)
	}
	if c.Embed < 1 || c.Embed > 1024 || c.Hidden < 1 || c.Hidden > 4096 {
		return fmt.Errorf("bag: embed %d, hidden %d out of range", c.Embed, c.Hidden)
	}
	if c.MaxParentIDs < 1 || c.MaxParentIDs > 1<<14 || c.MaxEditIDs < 1 || c.MaxEditIDs > 1<<14 {
		return fmt.Errorf("bag: id caps %d, %d out of range", c.MaxParentIDs, c.MaxEditIDs)
	}
	if c.NGramOrder < 1 || c.NGramOrder > 4 || c.NGramBits < 8 || c.NGramBits > 26 {
		return fmt.Errorf("bag: n-gram order %d, bits %d out of range", c.NGramOrder, c.NGramBits)
	}
	return nil
}

// BagDense names the relational features, in order (Encoded.Dense).
var BagDense = []string{
	"lm_delta", "lm_after_mean", "lm_before_mean",
	"susp_rank", "susp_score", "likely_line",
	"added_elsewhere", "removed_elsewhere", "snippet_elsewhere", "applies_to_line",
	"added_defined_before", "removed_defined_before", "added_param", "added_rare", "removed_rare",
	"len_delta", "removed_in_failures", "added_in_failures",
	"kind_change", "kind_usevar", "kind_remove", "kind_unparsed", "names_line",
	"reverts_parent_edit", "same_line_as_parent_edit", "parent_edit_lm_delta",
}

// BagSiblingDense names the relational features InputSet.Siblings adds
// after BagDense, in order. Ranks are fractions of the parent's other
// edits that come before the edit (ties count half): 0 is the best of its
// siblings, 1 the worst; 0.5 where the value is missing.
var BagSiblingDense = []string{
	"proposer_score", "proposer_score_given", "proposer_score_rank", "proposer_score_gap",
	"lm_delta_rank", "susp_sibling_rank", "siblings",
	"parent_tests_log", "parent_failing_log",
}

// BagPriorDense names the relational features InputSet.Prior adds after
// the others, in order: the code prior's change in log-probability of the
// edited lines (total and per symbol) and of the whole program (per
// symbol), and the edit's rank among its siblings by the first.
var BagPriorDense = []string{
	"prior_lines_delta", "prior_lines_mean_delta", "prior_program_mean_delta", "prior_lines_rank",
}

// Dense returns the names of the relational features a model of c reads,
// in order: BagDense, then BagSiblingDense with InputSet.Siblings, then
// BagPriorDense with InputSet.Prior.
func (c BagConfig) Dense() []string {
	names := slices.Clone(BagDense)
	if c.Inputs.Siblings {
		names = append(names, BagSiblingDense...)
	}
	if c.Inputs.Prior {
		names = append(names, BagPriorDense...)
	}
	return names
}

// knownDense holds every relational feature's name, of any input set.
var knownDense = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range slices.Concat(BagDense, BagSiblingDense, BagPriorDense) {
		m[n] = true
	}
	return m
}()

// denseIndex maps a model's relational features to their positions.
func denseIndex(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// BagNet is the bag architecture as a Net. LM is the code n-gram model
// (nil reads as an empty model: the naturalness features are then 0).
type BagNet struct {
	Config BagConfig
	Bins   int
	// HeadHidden is the width of the head's hidden layer.
	HeadHidden int
	LM         *NGram
	// Prior is the code prior the Prior inputs read (nil: none; those
	// features are then 0).
	Prior *codeprior.Model

	denseOnce sync.Once
	dense     map[string]int // Config.Dense()'s positions
}

// denseAt returns the positions of the model's relational features.
func (n *BagNet) denseAt() map[string]int {
	n.denseOnce.Do(func() { n.dense = denseIndex(n.Config.Dense()) })
	return n.dense
}

// Arch implements Net.
func (n *BagNet) Arch() string { return "bag" }

// hashID maps a (field, feature) pair to a bucket in [1, Buckets): bucket 0
// is padding.
func (n *BagNet) hashID(field byte, s string) int32 {
	return int32(1 + fnv1a(field, s)%uint32(n.Config.Buckets-1))
}

// fnv1a is 32-bit FNV-1a of the bytes field, 0, s (hash/fnv's New32a over
// them), without its allocations: it runs for every feature of every edge.
func fnv1a(field byte, s string) uint32 {
	const offset, prime = 2166136261, 16777619
	h := uint32(offset)
	h = (h ^ uint32(field)) * prime
	h = (h ^ 0) * prime
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * prime
	}
	return h
}

// Feature-id fields.
const (
	fieldFeedback byte = iota + 1
	fieldDiagnosis
	fieldEditWord
	fieldRemoved
	fieldAdded
	fieldPair
	fieldKind
)

// maxScan bounds how much of a text is tokenized for features.
const maxScan = 8192

// wordIDs appends the hashed unigrams and bigrams of text's first tokens.
func (n *BagNet) wordIDs(ids []int32, field byte, text string, limit int) []int32 {
	if len(text) > maxScan {
		text = text[:maxScan]
	}
	prev := ""
	for _, t := range codeTokens(text) {
		if len(ids) >= limit {
			break
		}
		if len(t) > 1 && t[0] >= '0' && t[0] <= '9' {
			t = "<num>" // numbers vary per test; their presence is what generalizes
		}
		ids = append(ids, n.hashID(field, t))
		if prev != "" && len(ids) < limit {
			ids = append(ids, n.hashID(field, prev+" "+t))
		}
		prev = t
	}
	return ids
}

// Encode implements Net.
func (n *BagNet) Encode(edges []priority.Edge) (Encoded, error) { return n.EncodeWithLM(edges, n.LM) }

// EncodeWithLM is Encode with the naturalness features read from lm in
// place of the model's own n-gram (nil: those features are 0). Training
// encodes each example with an n-gram fitted out of fold, on the fixes of
// other tasks only, so that no example is scored by a model that has seen
// its own task's fix: at inference the model's n-gram has never seen the
// task either.
func (n *BagNet) EncodeWithLM(edges []priority.Edge, lm *NGram) (Encoded, error) {
	if err := checkGroup(edges, n.Bins); err != nil {
		return Encoded{}, fmt.Errorf("bag: %w", err)
	}
	c := n.Config
	par := &edges[0]
	enc := Encoded{Features: par.Features()}
	if c.Inputs.NoLength {
		enc.Features[3] = 0
	}
	if !c.Inputs.NoParentText && !c.Inputs.NoWords {
		enc.Prefix = n.wordIDs(enc.Prefix, fieldFeedback, par.Feedback, c.MaxParentIDs/2)
		enc.Prefix = n.wordIDs(enc.Prefix, fieldDiagnosis, par.Diagnosis, c.MaxParentIDs)
	}
	ctx := newEditContext(par, c.Inputs)
	ctx.lm = lm
	if !c.Inputs.NoEditText && par.ParentEdit != "" {
		ctx.prev = parseEdit(par.ParentEdit)
		if ctx.prev.kind != editUnparsed && lm != nil {
			ctx.prevLM = clamp(lm.LogProb(ctx.prev.after)-lm.LogProb(ctx.prev.before), -30, 30)
		}
	}
	if c.Inputs.Prior && n.Prior != nil && ctx.lines != nil {
		sc := n.Prior.Program(par.Program)
		ctx.priorParent = &sc
	}
	for i := range edges {
		ids, dense := n.encodeEdit(&edges[i], ctx)
		enc.Edits = append(enc.Edits, ids)
		enc.Dense = append(enc.Dense, dense)
		enc.B = append(enc.B, edges[i].Remaining)
	}
	at := n.denseAt()
	if c.Inputs.Siblings {
		siblingFeatures(edges, enc.Dense, at)
	}
	if c.Inputs.Prior {
		deltas := make([]float64, len(enc.Dense))
		for i, d := range enc.Dense {
			deltas[i] = float64(d[at["prior_lines_delta"]])
		}
		all := make([]bool, len(deltas))
		for i := range all {
			all[i] = true
		}
		for i := range enc.Dense {
			denseFeatures{enc.Dense[i], at}.set("prior_lines_rank", siblingRank(deltas, all, i))
		}
	}
	return enc, nil
}

// siblingFeatures sets each edit's BagSiblingDense features from its
// parent's edits (edges, one group) and their base features (dense).
func siblingFeatures(edges []priority.Edge, dense [][]float32, at map[string]int) {
	n := len(edges)
	scores := make([]float64, n)
	given := make([]bool, n)
	best := math.Inf(-1)
	for i := range edges {
		if s := edges[i].ProposerScore; s != nil && !math.IsNaN(*s) && !math.IsInf(*s, 0) {
			scores[i], given[i] = clamp(*s, -50, 0), true
			best = math.Max(best, scores[i])
		}
	}
	lm := make([]float64, n)
	susp := make([]float64, n)
	for i, d := range dense {
		lm[i] = float64(d[at["lm_delta"]])
		susp[i] = -float64(d[at["susp_rank"]]) // a lower suspicion rank is better
	}
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	par := &edges[0]
	failing := math.Round(par.FailedFrac * float64(par.Tests))
	for i := range edges {
		d := denseFeatures{dense[i], at}
		if given[i] {
			d.set("proposer_score", scores[i])
			d.set("proposer_score_given", 1)
			d.set("proposer_score_gap", scores[i]-best)
		}
		d.set("proposer_score_rank", siblingRank(scores, given, i))
		d.set("lm_delta_rank", siblingRank(lm, all, i))
		d.set("susp_sibling_rank", siblingRank(susp, all, i))
		d.set("siblings", float64(n))
		d.set("parent_tests_log", math.Log1p(float64(max(par.Tests, 0))))
		d.set("parent_failing_log", math.Log1p(failing))
	}
}

// siblingRank is the fraction of the other edits with a value (ok) that
// beat x[i] (higher is better), ties counting half: 0 is the best, 1 the
// worst, 0.5 when i has no value or no other edit has one.
func siblingRank(x []float64, ok []bool, i int) float64 {
	if !ok[i] {
		return 0.5
	}
	var ahead float64
	others := 0
	for j := range x {
		if j == i || !ok[j] {
			continue
		}
		others++
		switch {
		case x[j] > x[i]:
			ahead++
		case x[j] == x[i]:
			ahead += 0.5
		}
	}
	if others == 0 {
		return 0.5
	}
	return ahead / float64(others)
}

// editContext is what the edits of one parent are related to.
type editContext struct {
	lines    []string        // the parent program's lines (nil without the program)
	tokens   map[string]int  // token counts of the whole program
	defined  map[string]int  // first line binding each name (see definitions)
	params   map[string]bool // function parameters
	failures map[string]bool // identifier tokens of feedback and diagnosis
	susp     suspicion
	inputs   InputSet
	lm       *NGram // the naturalness model (nil: none)
	// prev is the parsed edit that produced the parent (kind editUnparsed
	// at a root); prevLM its naturalness change.
	prev   parsedEdit
	prevLM float64
	// priorParent is the code prior's score of the parent program (nil
	// without the Prior inputs or the program).
	priorParent *codeprior.Score
}

func newEditContext(par *priority.Edge, in InputSet) *editContext {
	ec := &editContext{inputs: in, failures: map[string]bool{}}
	if !in.NoProgram && par.Program != "" {
		prog := par.Program
		if len(prog) > 1<<20 {
			prog = prog[:1<<20]
		}
		ec.lines = strings.Split(prog, "\n")
		ec.tokens = map[string]int{}
		for _, t := range codeTokens(prog) {
			ec.tokens[t]++
		}
		ec.defined, ec.params = definitions(ec.lines)
	}
	if !in.NoParentText {
		ec.susp = parseSuspicion(par.Diagnosis)
		for _, text := range []string{par.Feedback, par.Diagnosis} {
			if len(text) > maxScan {
				text = text[:maxScan]
			}
			for _, t := range codeTokens(text) {
				if isIdentStart(t[0]) {
					ec.failures[t] = true
				}
			}
		}
	} else {
		ec.susp = suspicion{rank: map[int]int{}, score: map[int]float64{}}
	}
	return ec
}

// encodeEdit returns one edit's feature ids and relational features.
func (n *BagNet) encodeEdit(e *priority.Edge, ec *editContext) ([]int32, []float32) {
	d := denseFeatures{make([]float32, len(n.Config.Dense())), n.denseAt()}
	if ec.inputs.NoEditText {
		return nil, d.v
	}
	p := parseEdit(e.Edit)
	removed, added := tokenDiff(p.before, p.after)
	var ids []int32
	if ec.inputs.NoWords {
		ids = []int32{n.hashID(fieldKind, fmt.Sprint(p.kind))}
	} else {
		ids = n.editIDs(p, removed, added, e.Edit)
	}
	d.kind(p.kind)
	if p.line > 0 {
		d.set("names_line", 1)
	}
	d.parentEdit(p, ec)
	if p.kind != editUnparsed {
		if lm := ec.lm; lm != nil {
			a, b := lm.LogProb(p.after), lm.LogProb(p.before)
			d.set("lm_delta", clamp(a-b, -30, 30))
			d.set("lm_after_mean", clamp(a/float64(len(codeTokens(p.after))+1), -30, 0))
			d.set("lm_before_mean", clamp(b/float64(len(codeTokens(p.before))+1), -30, 0))
		}
		d.set("len_delta", clamp(float64(len(p.after)-len(p.before)), -20, 20))
		d.set("removed_in_failures", fracIn(removed, ec.failures))
		d.set("added_in_failures", fracIn(added, ec.failures))
	}
	d.suspicion(p, ec)
	if ec.lines != nil && p.kind != editUnparsed {
		d.program(p, ec, removed, added)
	}
	if n.Config.Inputs.Prior && n.Prior != nil && p.kind != editUnparsed {
		d.prior(n.Prior, p, ec)
	}
	return ids, d.v
}

// prior sets what the code prior says of the edit: the child program is
// the parent with the edit's old text replaced by its new text on its
// line; where that cannot be made (no program, the old text not on the
// line), the edit's two lines are scored on their own.
func (d denseFeatures) prior(m *codeprior.Model, p parsedEdit, ec *editContext) {
	before, after := strings.TrimSpace(p.before), strings.TrimSpace(p.after)
	if ec.priorParent != nil && p.line >= 1 && p.line <= len(ec.lines) && before != "" &&
		strings.Contains(ec.lines[p.line-1], before) {
		lines := slices.Clone(ec.lines)
		lines[p.line-1] = strings.Replace(lines[p.line-1], before, after, 1)
		child := strings.Join(lines, "\n")
		f := m.EditFeaturesFrom(*ec.priorParent, strings.Join(ec.lines, "\n"), child)
		d.set("prior_lines_delta", clamp(f.Lines, -60, 60))
		d.set("prior_lines_mean_delta", clamp(f.LinesMean, -20, 20))
		d.set("prior_program_mean_delta", clamp(f.ProgramMean, -5, 5))
		return
	}
	a, b := m.Line(after), m.Line(before)
	d.set("prior_lines_delta", clamp(a.Total-b.Total, -60, 60))
	d.set("prior_lines_mean_delta", clamp(a.Mean()-b.Mean(), -20, 20))
}

// editIDs returns the hashed ids of an edit: its kind, the tokens it
// removes and adds, pairs of them, then the words of its text.
func (n *BagNet) editIDs(p parsedEdit, removed, added []string, text string) []int32 {
	c := n.Config
	var ids []int32
	ids = append(ids, n.hashID(fieldKind, fmt.Sprint(p.kind)))
	for _, t := range removed {
		ids = append(ids, n.hashID(fieldRemoved, t))
	}
	for _, t := range added {
		ids = append(ids, n.hashID(fieldAdded, t))
	}
	for i, r := range removed {
		for j, a := range added {
			if i < 3 && j < 3 {
				ids = append(ids, n.hashID(fieldPair, r+">"+a))
			}
		}
	}
	if len(ids) > c.MaxEditIDs/2 {
		ids = ids[:c.MaxEditIDs/2]
	}
	return n.wordIDs(ids, fieldEditWord, text, c.MaxEditIDs)
}

// denseFeatures are an edit's relational features, v, at the positions
// of its model's feature set.
type denseFeatures struct {
	v  []float32
	at map[string]int
}

// set sets the feature named name to v (0 for NaN or ±Inf); a feature
// beyond the model's set (a sibling feature of a model without them) is
// not kept.
func (d denseFeatures) set(name string, v float64) {
	i, ok := d.at[name]
	if !ok {
		if !knownDense[name] {
			panic("bag: unknown dense feature " + name) // a programming error, caught by tests
		}
		return
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	d.v[i] = float32(v)
}

// kind sets the one-hot kind of the edit.
func (d denseFeatures) kind(k editKind) {
	switch k {
	case editChange:
		d.set("kind_change", 1)
	case editUseVar:
		d.set("kind_usevar", 1)
	case editRemove:
		d.set("kind_remove", 1)
	default:
		d.set("kind_unparsed", 1)
	}
}

// parentEdit relates the edit to the edit that made its program.
func (d denseFeatures) parentEdit(p parsedEdit, ec *editContext) {
	if ec.prev.kind == editUnparsed {
		return
	}
	d.set("parent_edit_lm_delta", ec.prevLM)
	if p.line > 0 && p.line == ec.prev.line {
		d.set("same_line_as_parent_edit", 1)
	}
	if p.kind != editUnparsed && strings.TrimSpace(p.before) == strings.TrimSpace(ec.prev.after) &&
		strings.TrimSpace(p.after) == strings.TrimSpace(ec.prev.before) {
		d.set("reverts_parent_edit", 1)
	}
}

// suspicion sets how suspicious the diagnosis finds the edited line.
func (d denseFeatures) suspicion(p parsedEdit, ec *editContext) {
	rank := 8.0
	if r, ok := ec.susp.rank[p.line]; ok && p.line > 0 {
		rank = float64(min(r, 8))
		d.set("susp_score", ec.susp.score[p.line])
	}
	d.set("susp_rank", rank)
	if p.line > 0 && p.line == ec.susp.likely {
		d.set("likely_line", 1)
	}
}

// program relates the edit to the parent program: whether it applies to
// its line, and whether the tokens and names it adds or removes occur
// elsewhere in the program or are defined before the line.
func (d denseFeatures) program(p parsedEdit, ec *editContext, removed, added []string) {
	// Tokens elsewhere: the program's counts minus the edited line's.
	own := map[string]int{}
	if p.line >= 1 && p.line <= len(ec.lines) {
		for _, t := range codeTokens(ec.lines[p.line-1]) {
			own[t]++
		}
		if strings.Contains(ec.lines[p.line-1], strings.TrimSpace(p.before)) {
			d.set("applies_to_line", 1)
		}
	}
	elsewhere := func(toks []string) float64 {
		if len(toks) == 0 {
			return 0
		}
		k := 0
		for _, t := range toks {
			if ec.tokens[t]-own[t] > 0 {
				k++
			}
		}
		return float64(k) / float64(len(toks))
	}
	d.set("added_elsewhere", elsewhere(added))
	d.set("removed_elsewhere", elsewhere(removed))
	d.names(p, ec, own, removed, added)
	d.set("snippet_elsewhere", snippetElsewhere(p, ec.lines))
}

// names sets whether the edit brings in a name that exists before its
// line (a parameter, an earlier assignment) or drops one that does not,
// and whether it touches a name used at most once elsewhere.
func (d denseFeatures) names(p parsedEdit, ec *editContext, own map[string]int, removed, added []string) {
	definedBefore := func(toks []string) float64 {
		n, k := 0, 0
		for _, t := range toks {
			if !isIdentStart(t[0]) || pyKeywords[t] {
				continue
			}
			n++
			if l, ok := ec.defined[t]; ok && (p.line <= 0 || l < p.line) {
				k++
			}
		}
		if n == 0 {
			return 0.5
		}
		return float64(k) / float64(n)
	}
	d.set("added_defined_before", definedBefore(added))
	d.set("removed_defined_before", definedBefore(removed))
	rare := func(toks []string) float64 { // a name used at most once elsewhere (an unused parameter)
		for _, t := range toks {
			if isIdentStart(t[0]) && !pyKeywords[t] && ec.tokens[t]-own[t] <= 1 {
				return 1
			}
		}
		return 0
	}
	d.set("added_rare", rare(added))
	d.set("removed_rare", rare(removed))
	for _, t := range added {
		if ec.params[t] {
			d.set("added_param", 1)
		}
	}
}

// snippetElsewhere is 1 when the edit's new text occurs on another line of
// the program, −1 when only its old text does, 0 otherwise.
func snippetElsewhere(p parsedEdit, lines []string) float64 {
	var after, before float64
	for i, l := range lines {
		if i == p.line-1 {
			continue
		}
		if p.after != "" && strings.Contains(l, strings.TrimSpace(p.after)) {
			after = 1
		}
		if p.before != "" && strings.Contains(l, strings.TrimSpace(p.before)) {
			before = 1
		}
	}
	return after - before
}

// pyKeywords are Python's keywords and a few builtins that are not names
// a program defines.
var pyKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("False None True and as assert async await break class continue def del elif else except " +
		"finally for from global if import in is lambda nonlocal not or pass raise return try while with yield " +
		"len range min max abs sum sorted list dict set tuple int str float bool enumerate zip map filter print any all reversed") {
		m[k] = true
	}
	return m
}()

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func fracIn(toks []string, set map[string]bool) float64 {
	n, k := 0, 0
	for _, t := range toks {
		if !isIdentStart(t[0]) {
			continue
		}
		n++
		if set[t] {
			k++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// idBucket rounds an id count up to a multiple of 32 (at least 32).
func idBucket(n int) int { return max(32, (n+31)/32*32) }

// Batches implements Net: one row per group, K = the most edits of a group
// in the batch (rounded up to 4 above 3), ids padded to multiples of 32.
func (n *BagNet) Batches(groups []Encoded, maxRows int) ([]Batch, error) {
	if maxRows <= 0 {
		maxRows = 64
	}
	var out []Batch
	for start := 0; start < len(groups); start += maxRows {
		end := min(start+maxRows, len(groups))
		gs := groups[start:end]
		k, lp, le := 1, 0, 0
		for _, g := range gs {
			k = max(k, len(g.Edits))
			lp = max(lp, len(g.Prefix))
			for _, e := range g.Edits {
				le = max(le, len(e))
			}
		}
		if k > 3 {
			k = (k + 3) / 4 * 4
		}
		rows := rowsBucket(len(gs), maxRows)
		lp, le = idBucket(lp), idBucket(le)
		nd := len(n.Config.Dense())
		pIDs := make([]int32, rows*lp)
		pW := make([]float32, rows*lp)
		eIDs := make([]int32, rows*k*le)
		eW := make([]float32, rows*k*le)
		dense := make([]float32, rows*k*nd)
		feats := make([]float32, rows*k*NumFeatures)
		slots := make([][2]int32, rows*k)
		for i := range slots {
			slots[i] = [2]int32{-1, -1}
		}
		for r, g := range gs {
			gi := start + r
			if len(g.Dense) != len(g.Edits) {
				return nil, fmt.Errorf("bag: group %d has %d edits and %d dense rows", gi, len(g.Edits), len(g.Dense))
			}
			if err := n.checkIDs(g.Prefix); err != nil {
				return nil, fmt.Errorf("bag: group %d: %w", gi, err)
			}
			for j, id := range g.Prefix {
				pIDs[r*lp+j] = id
				pW[r*lp+j] = 1 / float32(len(g.Prefix))
			}
			for s, e := range g.Edits {
				if err := n.checkIDs(e); err != nil {
					return nil, fmt.Errorf("bag: group %d edit %d: %w", gi, s, err)
				}
				if len(g.Dense[s]) != nd {
					return nil, fmt.Errorf("bag: group %d edit %d has %d dense features, want %d", gi, s, len(g.Dense[s]), nd)
				}
				base := (r*k + s) * le
				for j, id := range e {
					eIDs[base+j] = id
					eW[base+j] = 1 / float32(len(e))
				}
				copy(dense[(r*k+s)*nd:], g.Dense[s])
				copy(feats[(r*k+s)*NumFeatures:], g.Features[:])
				slots[r*k+s] = [2]int32{int32(gi), int32(s)}
			}
		}
		out = append(out, Batch{Rows: rows, K: k, Slots: slots, Inputs: []*tensors.Tensor{
			tensors.FromFlatDataAndDimensions(pIDs, rows, lp),
			tensors.FromFlatDataAndDimensions(pW, rows, lp),
			tensors.FromFlatDataAndDimensions(eIDs, rows, k, le),
			tensors.FromFlatDataAndDimensions(eW, rows, k, le),
			tensors.FromFlatDataAndDimensions(dense, rows, k, nd),
			tensors.FromFlatDataAndDimensions(feats, rows, k, NumFeatures),
		}})
	}
	return out, nil
}

func (n *BagNet) checkIDs(ids []int32) error {
	for _, id := range ids {
		if id < 0 || int(id) >= n.Config.Buckets {
			return fmt.Errorf("feature id %d outside [0, %d)", id, n.Config.Buckets)
		}
	}
	return nil
}

// Logits implements Net: inputs are parent ids and weights [R, Lp], edit
// ids and weights [R, K, Le], dense [R, K, len(BagDense)] and features
// [R, K, 4].
func (n *BagNet) Logits(mctx *mlctx.Context, in []*Node) *Node {
	if len(in) != 6 {
		panic(fmt.Sprintf("bag: %d inputs, want 6", len(in)))
	}
	pIDs, pW, eIDs, eW, dense, feats := in[0], in[1], in[2], in[3], in[4], in[5]
	g := pIDs.Graph()
	c := n.Config
	r, k := eIDs.Shape().Dimensions[0], eIDs.Shape().Dimensions[1]
	bag := mctx.In(BagScope)
	emb := trainableParam(bag.In("embed"), g, "weight", dtypes.Float32, normalInit(0.1), c.Buckets, c.Embed)
	// Parent: weighted mean of its feature embeddings, shared by its edits.
	pe := Gather(emb, InsertAxes(pIDs, -1))                         // [R, Lp, E]
	pv := ReduceSum(Mul(pe, InsertAxes(pW, -1)), 1)                 // [R, E]
	pv = BroadcastToDims(Reshape(pv, r, 1, c.Embed), r, k, c.Embed) // [R, K, E]
	le := eIDs.Shape().Dimensions[2]
	ee := Gather(emb, Reshape(eIDs, r*k, le, 1))                                 // [R·K, Le, E]
	ev := Reshape(ReduceSum(Mul(ee, Reshape(eW, r*k, le, 1)), 1), r, k, c.Embed) // [R, K, E]
	nd := len(c.Dense())
	mean := statParam(bag, g, "dense_mean", dtypes.Float32, zerosInit, nd)
	std := statParam(bag, g, "dense_std", dtypes.Float32, onesInit, nd)
	d := Div(Sub(dense, Reshape(mean, 1, 1, nd)), Reshape(std, 1, 1, nd)) // [R, K, nd]
	// Inputs far outside the training range (a value constant in training)
	// are clipped rather than allowed to swamp the encoder.
	d = ClipScalar(d, -8, 8)
	z := Concatenate([]*Node{pv, ev, Mul(pv, ev), d}, -1) // [R, K, 3E+nd]
	h := dense3(bag.In("encoder"), z, c.Hidden)
	h = Mul(h, Logistic(h)) // SiLU: the encoder output [R, K, Hidden]
	return priorityHead(mctx.In(HeadScope), h, feats, n.HeadHidden, n.Bins)
}

// dense3 is dense for [R, K, in] inputs.
func dense3(mctx *mlctx.Context, x *Node, out int) *Node { return dense(mctx, x, out) }

// SetDenseStats stores the mean and std of the relational features of a
// model of c.
func SetDenseStats(mctx *mlctx.Context, c BagConfig, mean, std []float32) error {
	names := c.Dense()
	if len(mean) != len(names) || len(std) != len(names) {
		return fmt.Errorf("bag: %d/%d dense statistics, want %d", len(mean), len(std), len(names))
	}
	for i, s := range std {
		if !(s > 0) || math.IsInf(float64(s), 0) || math.IsNaN(float64(mean[i])) {
			return fmt.Errorf("bag: dense feature %s: mean %g, std %g", names[i], mean[i], s)
		}
	}
	if err := SetVariable(mctx, BagScope+".dense_mean", tensors.FromFlatDataAndDimensions(append([]float32(nil), mean...), len(mean)), false); err != nil {
		return err
	}
	return SetVariable(mctx, BagScope+".dense_std", tensors.FromFlatDataAndDimensions(append([]float32(nil), std...), len(std)), false)
}
