package mutate

import (
	"triage/search/proposer/mutate/pylex"
)

// program is a tokenized Python source with its logical lines and functions.
type program struct {
	src   string
	toks  []pylex.Token
	lines []pylex.Logical
	// match maps the index of an opening bracket token to its closer and
	// back; unmatched brackets are absent.
	match map[int]int
	funcs []function
	// lineFunc is, per logical line, the innermost function whose body holds
	// it (-1 when none, and for def headers themselves).
	lineFunc []int
}

// function is one def: its name, the logical-line range of its body and the
// names bound in it (parameters, assignment and loop targets) plus those of
// enclosing functions.
type function struct {
	name       string
	header     int // logical index of the def line
	first      int // first body logical (inclusive)
	end        int // last body logical (exclusive)
	vars       []string
	firstLine  int // physical line range, inclusive
	lastLine   int
	parentFunc int
}

func parse(src string) *program {
	p := &program{src: src, toks: pylex.Tokenize(src), match: map[int]int{}}
	p.lines = pylex.Logicals(p.toks)
	var stack []int
	for i, t := range p.toks {
		if t.Kind != pylex.Op {
			continue
		}
		switch p.text(i) {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			if n := len(stack); n > 0 && closes(p.text(stack[n-1]), p.text(i)) {
				p.match[stack[n-1]] = i
				p.match[i] = stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
	p.lineFunc = make([]int, len(p.lines))
	for i := range p.lineFunc {
		p.lineFunc[i] = -1
	}
	for li, l := range p.lines {
		ft := 0
		if p.text(l.Toks[0]) == "async" && len(l.Toks) > 1 {
			ft = 1
		}
		if p.text(l.Toks[ft]) != "def" || len(l.Toks) < ft+2 || p.toks[l.Toks[ft+1]].Kind != pylex.Name {
			continue
		}
		end := li + 1
		for end < len(p.lines) && p.lines[end].Level > l.Level {
			end++
		}
		if end == li+1 {
			continue // one-line def or no body: not mutated
		}
		f := function{name: p.text(l.Toks[ft+1]), header: li, first: li + 1, end: end,
			firstLine: l.Line, parentFunc: p.lineFunc[li]}
		last := p.lines[end-1].Toks
		f.lastLine = p.toks[last[len(last)-1]].Line
		for j := f.first; j < f.end; j++ {
			p.lineFunc[j] = len(p.funcs)
		}
		p.funcs = append(p.funcs, f)
	}
	for fi := range p.funcs {
		p.funcs[fi].vars = p.bindings(fi)
	}
	return p
}

func closes(open, close string) bool {
	return (open == "(" && close == ")") || (open == "[" && close == "]") || (open == "{" && close == "}")
}

func (p *program) text(i int) string { return p.toks[i].Text(p.src) }

// bindings returns the names bound in function fi (its parameters, plain and
// augmented assignment targets, for/with/except targets, walrus targets) and
// in its enclosing functions, in order of first appearance, without the
// function's own name.
func (p *program) bindings(fi int) []string {
	f := p.funcs[fi]
	seen := map[string]bool{f.name: true}
	var out []string
	add := func(i int) {
		if p.toks[i].Kind != pylex.Name {
			return
		}
		s := p.text(i)
		if pylex.IsKeyword(s) || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	// Parameters: names directly after '(' ',' '*' '**' in the header's
	// parameter list and followed by ',' ')' '=' ':'.
	h := p.lines[f.header].Toks
	for k := 1; k+1 < len(h); k++ {
		prev, next := p.text(h[k-1]), p.text(h[k+1])
		if p.toks[h[k]].Depth == p.toks[h[0]].Depth+1 &&
			(prev == "(" || prev == "," || prev == "*" || prev == "**") &&
			(next == "," || next == ")" || next == "=" || next == ":") {
			add(h[k])
		}
	}
	for li := f.first; li < f.end; li++ {
		lt := p.lines[li].Toks
		for k, ti := range lt {
			s := p.text(ti)
			switch {
			case s == "for" || s == "as":
				for j := k + 1; j < len(lt); j++ {
					n := p.text(lt[j])
					if n == "in" || n == ":" || n == "=" {
						break
					}
					add(lt[j])
				}
			case s == ":=" && k > 0:
				add(lt[k-1])
			case isAssignOp(s) && p.toks[ti].Depth == p.toks[lt[0]].Depth:
				base := p.toks[lt[0]].Depth
				for j := 0; j < k; j++ {
					if d := p.toks[lt[j]].Depth; d > base+1 {
						continue
					}
					if j > 0 && p.text(lt[j-1]) == "." {
						continue
					}
					if j+1 < k {
						if n := p.text(lt[j+1]); n == "." || n == "[" || n == "(" {
							continue
						}
					}
					add(lt[j])
				}
			}
		}
	}
	if f.parentFunc >= 0 && f.parentFunc < fi {
		for _, v := range p.funcs[f.parentFunc].vars {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func isAssignOp(s string) bool {
	switch s {
	case "=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", ">>=", "<<=", "@=":
		return true
	}
	return false
}

// operandEnd reports whether token i can end an operand (so a following
// '-' or '*' is binary and a following '(' or '[' is a call or subscript).
func (p *program) operandEnd(i int) bool {
	t := p.toks[i]
	switch t.Kind {
	case pylex.Number, pylex.String:
		return true
	case pylex.Name:
		s := p.text(i)
		return !pylex.IsKeyword(s) || s == "True" || s == "False" || s == "None"
	case pylex.Op:
		s := p.text(i)
		return s == ")" || s == "]" || s == "}"
	}
	return false
}

// prec returns the binding power of a binary operator token text (0 when s
// is not a binary operator).
func prec(s string) int {
	switch s {
	case "or":
		return 1
	case "and":
		return 2
	case "not":
		return 3
	case "<", ">", "<=", ">=", "==", "!=", "in", "is":
		return 4
	case "|":
		return 5
	case "^":
		return 6
	case "&":
		return 7
	case "<<", ">>":
		return 8
	case "+", "-":
		return 9
	case "*", "/", "//", "%", "@":
		return 10
	case "**":
		return 12
	}
	return 0
}

// nearWindow is how many logical lines around a use the wrong-variable
// family looks for substitutes: programmers confuse variables they just
// wrote (i and j, lo and hi), not any name of the function.
const nearWindow = 2

// nearVars returns the variables of function fi that are named within
// nearWindow logical lines of line li (inside the function, def line
// included), in the
// function's binding order.
func (p *program) nearVars(li, fi int) []string {
	f := p.funcs[fi]
	near := map[string]bool{}
	for j := max(f.header, li-nearWindow); j < min(f.end, li+nearWindow+1); j++ {
		for _, ti := range p.lines[j].Toks {
			if p.toks[ti].Kind == pylex.Name {
				near[p.text(ti)] = true
			}
		}
	}
	var out []string
	for _, v := range f.vars {
		if near[v] {
			out = append(out, v)
		}
	}
	return out
}
