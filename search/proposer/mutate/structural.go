package mutate

import (
	"triage/search/proposer/mutate/pylex"
)

// pos returns the position in lt of token index ti, or -1.
func pos(lt []int, ti int) int {
	for j, x := range lt {
		if x == ti {
			return j
		}
	}
	return -1
}

// leftOperand returns the position in lt where the primary expression that
// ends at lt[k] starts (names, literals, calls, subscripts, attributes,
// parenthesized groups), or -1 when lt[k] ends no primary.
func (g *gen) leftOperand(lt []int, k int) int {
	p := g.p
	j := k
	for guard := 0; guard <= len(lt); guard++ {
		if j < 0 {
			return -1
		}
		ti := lt[j]
		s := p.text(ti)
		switch t := p.toks[ti]; {
		case t.Kind == pylex.Op && (s == ")" || s == "]" || s == "}"):
			o, ok := p.match[ti]
			if !ok {
				return -1
			}
			if j = pos(lt[:j], o); j < 0 {
				return -1
			}
		case t.Kind == pylex.String:
			for j > 0 && p.toks[lt[j-1]].Kind == pylex.String {
				j--
			}
		case p.operandEnd(ti):
		default:
			return -1
		}
		if j > 0 && (p.text(lt[j]) == "(" || p.text(lt[j]) == "[") && p.operandEnd(lt[j-1]) {
			j--
			continue
		}
		if j > 1 && p.text(lt[j-1]) == "." {
			j -= 2
			continue
		}
		return j
	}
	return -1
}

// rightOperand returns the position in lt just after the primary that
// starts at lt[k], or -1 when none starts there.
func (g *gen) rightOperand(lt []int, k int) int {
	p := g.p
	if k >= len(lt) {
		return -1
	}
	ti := lt[k]
	s := p.text(ti)
	j := k
	switch t := p.toks[ti]; {
	case t.Kind == pylex.Op && (s == "(" || s == "[" || s == "{"):
		c, ok := p.match[ti]
		if !ok {
			return -1
		}
		if j = pos(lt, c); j < 0 {
			return -1
		}
		j++
	case t.Kind == pylex.String:
		for j < len(lt) && p.toks[lt[j]].Kind == pylex.String {
			j++
		}
	case t.Kind == pylex.Name || t.Kind == pylex.Number:
		if !p.operandEnd(ti) {
			return -1
		}
		j++
	default:
		return -1
	}
	for j < len(lt) {
		s := p.text(lt[j])
		switch {
		case s == "(" || s == "[":
			c, ok := p.match[lt[j]]
			if !ok {
				return -1
			}
			n := pos(lt, c)
			if n < 0 {
				return -1
			}
			j = n + 1
		case s == "." && j+1 < len(lt) && p.toks[lt[j+1]].Kind == pylex.Name:
			j += 2
		default:
			return j
		}
	}
	return j
}

// span returns the byte span of lt[a:b].
func (g *gen) span(lt []int, a, b int) (int, int) {
	return g.p.toks[lt[a]].Start, g.p.toks[lt[b-1]].End
}

var swappable = map[string]bool{"-": true, "/": true, "//": true, "%": true, "<": true, "<=": true, ">": true, ">=": true}

func isComparison(s string) bool { return prec(s) == 4 }

// swapOperands swaps the operands of the binary operator at lt[k] when both
// are primaries and the neighbours do not bind tighter.
func (g *gen) swapOperands(lt []int, k int) {
	p := g.p
	op := p.text(lt[k])
	if !swappable[op] || k+1 >= len(lt) {
		return
	}
	l := g.leftOperand(lt, k-1)
	r := g.rightOperand(lt, k+1)
	if l < 0 || r < 0 {
		return
	}
	if l > 0 {
		n := p.text(lt[l-1])
		if pr := prec(n); pr >= prec(op) || (isComparison(op) && isComparison(n)) || n == "~" {
			return
		}
	}
	if r < len(lt) {
		n := p.text(lt[r])
		if pr := prec(n); pr > prec(op) || (isComparison(op) && isComparison(n)) {
			return
		}
	}
	ls, le := g.span(lt, l, k)
	rs, re := g.span(lt, k+1, r)
	L, R := p.src[ls:le], p.src[rs:re]
	if L == R {
		return
	}
	g.newSite()
	g.add(SwapOperands, ls, re, R+p.src[le:rs]+L)
}

// args splits the bracket group opened at lt[k] into top-level
// comma-separated parts, as [start, end) positions in lt. ok is false when
// the closer is missing.
func (g *gen) args(lt []int, k int, seps ...string) (parts [][2]int, closer int, ok bool) {
	p := g.p
	c, found := p.match[lt[k]]
	if !found {
		return nil, 0, false
	}
	closer = pos(lt, c)
	if closer < 0 {
		return nil, 0, false
	}
	d := p.toks[lt[k]].Depth + 1
	start := k + 1
	for j := k + 1; j <= closer; j++ {
		isSep := false
		if j < closer && p.toks[lt[j]].Depth == d {
			for _, s := range seps {
				isSep = isSep || p.text(lt[j]) == s
			}
		}
		if isSep || j == closer {
			parts = append(parts, [2]int{start, j})
			start = j + 1
		}
	}
	return parts, closer, true
}

// call handles the call whose '(' is lt[k]: swapped adjacent positional
// arguments, and off-by-one bounds of range().
func (g *gen) call(lt []int, k int) {
	p := g.p
	parts, _, ok := g.args(lt, k, ",")
	if !ok {
		return
	}
	var positional [][2]int
	for _, a := range parts {
		if a[0] >= a[1] {
			continue // trailing comma or empty call
		}
		first := p.text(lt[a[0]])
		if first == "*" || first == "**" || (a[1]-a[0] > 1 && p.text(lt[a[0]+1]) == "=") {
			positional = nil
			break // keyword or starred arguments: leave the call alone
		}
		for j := a[0]; j < a[1]; j++ {
			if p.text(lt[j]) == "for" && p.toks[lt[j]].Depth == p.toks[lt[k]].Depth+1 {
				return // a generator argument
			}
		}
		positional = append(positional, a)
	}
	pos := positional
	for i := 0; i+1 < len(pos); i++ {
		as, ae := g.span(lt, pos[i][0], pos[i][1])
		bs, be := g.span(lt, pos[i+1][0], pos[i+1][1])
		if p.src[as:ae] == p.src[bs:be] {
			continue
		}
		g.newSite()
		g.add(SwapArgs, as, be, p.src[bs:be]+p.src[ae:bs]+p.src[as:ae])
	}
	if p.text(lt[k-1]) == "range" && (k < 2 || p.text(lt[k-2]) != ".") && len(pos) >= 1 && len(pos) <= 3 {
		if len(pos) == 1 {
			g.bound(lt, pos[0][0], pos[0][1])
		} else {
			g.bound(lt, pos[0][0], pos[0][1])
			g.bound(lt, pos[1][0], pos[1][1])
		}
	}
}

// subscript handles the subscript whose '[' is lt[k]: index and slice
// bounds ±1.
func (g *gen) subscript(lt []int, k int) {
	parts, _, ok := g.args(lt, k, ":", ",")
	if !ok || len(parts) > 3 {
		return
	}
	// A comma means a tuple index; leave it alone.
	d := g.p.toks[lt[k]].Depth + 1
	for j := parts[0][0]; j < parts[len(parts)-1][1]; j++ {
		if g.p.toks[lt[j]].Depth == d && g.p.text(lt[j]) == "," {
			return
		}
	}
	for i, a := range parts {
		if i < 2 && a[0] < a[1] {
			g.bound(lt, a[0], a[1])
		}
	}
}

// bound proposes E+1 and E−1 for the expression lt[a:b], or drops an
// existing trailing ±1.
func (g *gen) bound(lt []int, a, b int) {
	p := g.p
	if b-a >= 3 && p.text(lt[b-1]) == "1" && (p.text(lt[b-2]) == "+" || p.text(lt[b-2]) == "-") && p.operandEnd(lt[b-3]) {
		g.newSite()
		g.addPref(OffByOne, p.toks[lt[b-3]].End, p.toks[lt[b-1]].End, "", 2)
		return
	}
	first := p.text(lt[a])
	if first == "-" || first == "+" || first == "~" || first == "*" {
		return
	}
	wrap := false
	d := p.toks[lt[a]].Depth
	for j := a; j < b; j++ {
		if p.toks[lt[j]].Depth != d {
			continue
		}
		s := p.text(lt[j])
		if pr := prec(s); (pr > 0 && pr < 9) || s == "if" || s == "lambda" || s == "not" || s == "for" || s == ":=" {
			wrap = true
		}
	}
	s, e := g.span(lt, a, b)
	g.newSite()
	if wrap {
		for _, d := range []string{" + 1", " - 1"} {
			g.add(OffByOne, s, e, "("+p.src[s:e]+")"+d)
		}
		return
	}
	last := lt[b-1]
	for _, d := range []string{" + 1", " - 1"} {
		g.add(OffByOne, p.toks[last].Start, p.toks[last].End, p.text(last)+d)
	}
}

// wrongVar replaces the variable read at lt[k] by each other variable bound
// in the function.
func (g *gen) wrongVar(lt []int, k int, vars []string) {
	p := g.p
	s := p.text(lt[k])
	in := false
	for _, v := range vars {
		in = in || v == s
	}
	if !in || len(vars) < 2 {
		return
	}
	if k > 0 {
		if prev := p.text(lt[k-1]); prev == "." || prev == "for" || prev == "as" || prev == "def" || prev == "del" {
			return
		}
	}
	if k+1 < len(lt) {
		if next := p.text(lt[k+1]); next == "=" || next == ":=" || isAssignOp(next) {
			return
		}
	}
	g.newSite()
	for _, v := range vars {
		if v != s {
			g.add(WrongVar, p.toks[lt[k]].Start, p.toks[lt[k]].End, v)
		}
	}
}

// negate negates the condition of an if/elif/while line, or removes a
// leading `not` (unwrapping `not (c)` to `c`).
func (g *gen) negate(lt []int) {
	p := g.p
	d := p.toks[lt[0]].Depth
	kc := -1
	for j := 1; j < len(lt); j++ {
		if p.toks[lt[j]].Depth == d && p.text(lt[j]) == ":" {
			kc = j
			break
		}
		if p.text(lt[j]) == "lambda" {
			return
		}
	}
	if kc < 2 {
		return
	}
	cs, ce := g.span(lt, 1, kc)
	g.newSite()
	if p.text(lt[1]) == "not" && kc > 2 {
		if kc > 4 && p.text(lt[2]) == "(" && p.match[lt[2]] == lt[kc-1] {
			is, ie := g.span(lt, 3, kc-1)
			g.add(NegateCond, cs, ce, p.src[is:ie])
			return
		}
		g.add(NegateCond, cs, ce, p.src[p.toks[lt[2]].Start:ce])
		return
	}
	c := p.src[cs:ce]
	if g.rightOperand(lt, 1) == kc {
		g.add(NegateCond, cs, ce, "not "+c)
	} else {
		g.add(NegateCond, cs, ce, "not ("+c+")")
	}
}

// returnValue changes the value of a return statement: to None, a swapped
// pair, or the negated condition.
func (g *gen) returnValue(lt []int) {
	p := g.p
	if len(lt) < 2 {
		return
	}
	es, ee := g.span(lt, 1, len(lt))
	e := p.src[es:ee]
	g.newSite()
	if e != "None" {
		g.add(ReturnValue, es, ee, "None")
	}
	d := p.toks[lt[1]].Depth
	var commas []int
	logical := false
	for j := 1; j < len(lt); j++ {
		if p.toks[lt[j]].Depth != d {
			continue
		}
		s := p.text(lt[j])
		if s == "," {
			commas = append(commas, j)
		}
		if isComparison(s) || s == "and" || s == "or" {
			logical = true
		}
		if s == "if" || s == "lambda" || s == "for" {
			return
		}
	}
	if len(commas) == 1 && commas[0] > 1 && commas[0]+1 < len(lt) {
		as, ae := g.span(lt, 1, commas[0])
		bs, be := g.span(lt, commas[0]+1, len(lt))
		if p.src[as:ae] != p.src[bs:be] {
			g.add(ReturnValue, es, ee, p.src[bs:be]+p.src[ae:bs]+p.src[as:ae])
		}
	}
	if logical && len(commas) == 0 && p.text(lt[1]) != "not" {
		g.add(ReturnValue, es, ee, "not ("+e+")")
	}
}
