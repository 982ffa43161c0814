package mutate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"triage/search/proposer/mutate/pylex"
)

// Family names a kind of program mutation.
type Family string

// The mutation families. Each is both a bug the injector plants and an edit
// the proposer suggests; most are their own inverse (`<` ↔ `<=`, `and` ↔
// `or`, `x + 1` ↔ `x`), so an injected bug can be repaired by an edit of the
// same family.
const (
	CmpOp        Family = "cmp_op"        // `<` ↔ `<=` ↔ `>`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`
	ArithOp      Family = "arith_op"      // `+` ↔ `-`, `*` ↔ `//`, `/` ↔ `//`, `%`, and their augmented forms
	BoolOp       Family = "bool_op"       // `and` ↔ `or`, drop a `not`, `True` ↔ `False`
	Const        Family = "const"         // integer literal ±1, to 0 or 1
	OffByOne     Family = "off_by_one"    // range() and subscript/slice bounds ±1 (or drop an existing ±1)
	SwapOperands Family = "swap_operands" // `a - b` → `b - a`, `a < b` → `b < a`
	SwapArgs     Family = "swap_args"     // `f(a, b)` → `f(b, a)`
	WrongVar     Family = "wrong_var"     // a variable read replaced by another bound in scope
	NegateCond   Family = "negate_cond"   // `if c:` ↔ `if not c:` (also elif, while)
	DeleteStmt   Family = "delete_stmt"   // a simple statement replaced by `pass`
	ReturnValue  Family = "return_value"  // `return e` → `return None`, swapped tuple, negated condition
)

// Families lists every family in a fixed order.
var Families = []Family{CmpOp, ArithOp, BoolOp, Const, OffByOne, SwapOperands, SwapArgs, WrongVar, NegateCond, DeleteStmt, ReturnValue}

// Mutation is one exact source splice: replace src[Start:End], which must
// equal Orig, by Repl. Line is the 1-based line of Start. Mutations are what
// the mutate proposer stores, as JSON, in corpus.ProposedEdit.Payload.
type Mutation struct {
	Family Family `json:"family"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Orig   string `json:"orig"`
	Repl   string `json:"repl"`
	Line   int    `json:"line"`
	// site groups the alternatives generated at one place and pref is an
	// alternative's relative preference there (for weighting); neither is
	// serialized.
	site int
	pref float64
}

// ErrStale reports a mutation whose span does not hold its original text in
// the program it is applied to.
var ErrStale = errors.New("mutation span does not match the program")

// Apply returns src with m applied. It fails, without changing anything,
// when the span is out of range, splits a UTF-8 sequence, does not hold
// m.Orig, or the replacement equals the original.
func Apply(src string, m Mutation) (string, error) {
	if m.Start < 0 || m.End < m.Start || m.End > len(src) {
		return "", fmt.Errorf("apply %s at [%d,%d): span outside a %d-byte program: %w", m.Family, m.Start, m.End, len(src), ErrStale)
	}
	if src[m.Start:m.End] != m.Orig {
		return "", fmt.Errorf("apply %s at line %d: want %q, found %q: %w", m.Family, m.Line, m.Orig, src[m.Start:m.End], ErrStale)
	}
	if !boundary(src, m.Start) || !boundary(src, m.End) {
		return "", fmt.Errorf("apply %s: span [%d,%d) splits a UTF-8 sequence: %w", m.Family, m.Start, m.End, ErrStale)
	}
	if m.Orig == m.Repl {
		return "", fmt.Errorf("apply %s at line %d: replacement equals the original", m.Family, m.Line)
	}
	return src[:m.Start] + m.Repl + src[m.End:], nil
}

func boundary(s string, i int) bool {
	return i == 0 || i == len(s) || utf8.RuneStart(s[i])
}

// Marshal returns m as JSON (the edit payload).
func (m Mutation) Marshal() string {
	b, err := json.Marshal(m)
	if err != nil { // a struct of strings and ints always marshals
		return ""
	}
	return string(b)
}

// ParseMutation parses a payload written by Marshal.
func ParseMutation(payload string) (Mutation, error) {
	var m Mutation
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Mutation{}, fmt.Errorf("parse mutation payload: %w", err)
	}
	known := false
	for _, f := range Families {
		known = known || f == m.Family
	}
	if !known {
		return Mutation{}, fmt.Errorf("parse mutation payload: unknown family %q", m.Family)
	}
	return m, nil
}

// Enumerate returns every mutation of src, in source order, restricted to
// the bodies of functions (module-level code, imports and def headers are
// left alone). Identical (span, replacement) pairs appear once.
func Enumerate(src string) []Mutation {
	return parse(src).enumerate()
}

func (p *program) enumerate() []Mutation {
	g := &gen{p: p, seen: map[[3]string]bool{}}
	for li, l := range p.lines {
		fi := p.lineFunc[li]
		if fi < 0 {
			continue
		}
		g.line(l.Toks, p.nearVars(li, fi))
	}
	return g.out
}

// gen accumulates mutations.
type gen struct {
	p    *program
	out  []Mutation
	seen map[[3]string]bool
	site int
}

func (g *gen) newSite() { g.site++ }

// add records the replacement of src[start:end] by repl.
func (g *gen) add(f Family, start, end int, repl string) { g.addPref(f, start, end, repl, 1) }

// addPref records a replacement with a relative preference among the
// alternatives of its site: the more natural fix (a boundary flip rather
// than a reversed comparison, dropping a stray ±1 rather than adding one)
// gets more weight, as a programmer's first guess would.
func (g *gen) addPref(f Family, start, end int, repl string, pref float64) {
	p := g.p
	if start < 0 || end > len(p.src) || start >= end || !boundary(p.src, start) || !boundary(p.src, end) {
		return
	}
	orig := p.src[start:end]
	if orig == repl {
		return
	}
	key := [3]string{strconv.Itoa(start), strconv.Itoa(end), repl}
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	g.out = append(g.out, Mutation{Family: f, Start: start, End: end, Orig: orig, Repl: repl, Line: p.toks[g.tokAt(start)].Line, site: g.site, pref: pref})
}

// tokAt returns the index of the token starting at or covering byte off.
func (g *gen) tokAt(off int) int {
	lo, hi := 0, len(g.p.toks)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if g.p.toks[mid].Start <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// replaceTok records replacing token i by each alternative.
func (g *gen) replaceTok(f Family, i int, alts ...string) {
	g.newSite()
	for _, a := range alts {
		g.add(f, g.p.toks[i].Start, g.p.toks[i].End, a)
	}
}

var cmpAlts = map[string][]string{
	"<": {"<=", ">"}, "<=": {"<", ">="}, ">": {">=", "<"}, ">=": {">", "<="},
	"==": {"!="}, "!=": {"=="},
}

var arithAlts = map[string][]string{
	"+": {"-"}, "-": {"+"}, "*": {"//", "+"}, "/": {"//", "*"}, "//": {"/", "%"}, "%": {"//"},
	"+=": {"-="}, "-=": {"+="}, "*=": {"//="}, "//=": {"*=", "%="}, "/=": {"*="}, "%=": {"//="},
}

// line generates all mutations of one logical line. lt holds token indices,
// vars the names bound in the enclosing function.
func (g *gen) line(lt []int, vars []string) {
	p := g.p
	first := p.text(lt[0])
	if first == "def" || first == "class" || first == "async" || first == "@" || first == "import" || first == "from" || first == "global" || first == "nonlocal" {
		return
	}
	if p.toks[lt[0]].Kind == pylex.String && len(lt) == 1 {
		return // docstring
	}
	for k, ti := range lt {
		switch p.toks[ti].Kind {
		case pylex.Op:
			g.opToken(lt, k)
		case pylex.Name:
			g.nameToken(lt, k, first, vars)
		case pylex.Number:
			g.constant(ti)
		}
	}
	switch first {
	case "if", "elif", "while":
		g.negate(lt)
	case "return":
		g.returnValue(lt)
	}
	switch first {
	case "pass", "else", "try", "finally", "except", "for", "with", "if", "elif", "while", "return":
	default:
		if p.toks[lt[0]].Kind != pylex.String {
			g.newSite()
			g.add(DeleteStmt, p.toks[lt[0]].Start, p.toks[lt[len(lt)-1]].End, "pass")
		}
	}
}

// opToken generates the mutations of the operator lt[k]: comparison and
// arithmetic flips, swapped operands, and the mutations of a call or a
// subscript it opens.
func (g *gen) opToken(lt []int, k int) {
	p, ti := g.p, lt[k]
	t, s := p.toks[ti], p.text(ti)
	prevEnd := k > 0 && p.operandEnd(lt[k-1])
	if alts, ok := cmpAlts[s]; ok {
		g.newSite()
		for j, a := range alts {
			g.addPref(CmpOp, t.Start, t.End, a, 2-float64(j)) // boundary flip first
		}
	}
	if alts, ok := arithAlts[s]; ok && (prevEnd || isAssignOp(s)) {
		g.replaceTok(ArithOp, ti, alts...)
	}
	if prevEnd && prec(s) > 0 {
		g.swapOperands(lt, k)
	}
	if s == "(" && k > 0 && prevEnd {
		g.call(lt, k)
	}
	if s == "[" && k > 0 && prevEnd {
		g.subscript(lt, k)
	}
}

// nameToken generates the mutations of the name lt[k] of a line that
// starts with first: boolean and membership flips, a dropped not, and a
// wrong variable (vars: the names bound in the enclosing function).
func (g *gen) nameToken(lt []int, k int, first string, vars []string) {
	p, ti := g.p, lt[k]
	t, s := p.toks[ti], p.text(ti)
	switch s {
	case "and":
		g.replaceTok(BoolOp, ti, "or")
	case "or":
		g.replaceTok(BoolOp, ti, "and")
	case "True":
		g.replaceTok(BoolOp, ti, "False")
	case "False":
		g.replaceTok(BoolOp, ti, "True")
	case "not":
		if k+1 < len(lt) && p.text(lt[k+1]) == "in" {
			g.newSite()
			g.add(CmpOp, t.Start, p.toks[lt[k+1]].End, "in")
		} else if k > 0 && p.text(lt[k-1]) == "is" {
			// handled with "is"
		} else if k+1 < len(lt) && !(k == 1 && isCondKeyword(first)) {
			g.newSite()
			g.add(BoolOp, t.Start, p.toks[lt[k+1]].Start, "")
		}
	case "in":
		if k > 0 && p.text(lt[k-1]) != "not" && !inForTarget(p, lt, k) {
			g.replaceTok(CmpOp, ti, "not in")
		}
	case "is":
		if k+1 < len(lt) && p.text(lt[k+1]) == "not" {
			g.newSite()
			g.add(CmpOp, t.Start, p.toks[lt[k+1]].End, "is")
		} else {
			g.replaceTok(CmpOp, ti, "is not")
		}
	default:
		if !pylex.IsKeyword(s) {
			g.wrongVar(lt, k, vars)
		}
	}
}

func isCondKeyword(s string) bool { return s == "if" || s == "elif" || s == "while" }

// inForTarget reports whether the `in` at lt[k] is the `in` of a for loop or
// comprehension (for x in ...), which must not become `not in`.
func inForTarget(p *program, lt []int, k int) bool {
	d := p.toks[lt[k]].Depth
	for j := k - 1; j >= 0; j-- {
		t := p.toks[lt[j]]
		if t.Depth < d {
			return false
		}
		if t.Depth > d {
			continue
		}
		s := p.text(lt[j])
		if s == "for" {
			return true
		}
		if s != "," && t.Kind != pylex.Name && s != "(" && s != ")" && s != "[" && s != "]" {
			return false
		}
		if t.Kind == pylex.Name && pylex.IsKeyword(s) {
			return false
		}
	}
	return false
}

// constant mutates a decimal integer literal: ±1, and to 0 or 1.
func (g *gen) constant(ti int) {
	s := g.p.text(ti)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || (len(s) > 1 && s[0] == '0') || n > 1<<40 {
		return
	}
	alts := []string{strconv.FormatInt(n+1, 10)}
	if n >= 1 {
		alts = append(alts, strconv.FormatInt(n-1, 10))
	}
	if n > 2 {
		alts = append(alts, "0", "1")
	}
	g.replaceTok(Const, ti, alts...)
}
