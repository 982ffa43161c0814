package convert

import (
	"regexp"
	"sort"
	"strings"
)

// span is a stretch [Start, End) of a source text.
type span struct{ Start, End int }

// strToken is a string literal: its whole span (prefix and quotes
// included) and the span of its body between the quotes.
type strToken struct {
	span
	Body   span
	Prefix string
}

// scanPython finds the simple statements and string literals of Python
// source s without parsing it: a statement starts at the first token of a
// logical line (or after a ";" outside brackets) and ends before the
// newline, ";" or comment that ends it; brackets, backslash continuations
// and strings (any prefix, single or triple quotes, an unterminated one
// ending at its line or at the end) do not end one. A compound statement's
// header ("try:", "def f():") is a statement of its own line. Never fails:
// malformed source gives some statements and strings.
func scanPython(s string) (stmts []span, strs []strToken) {
	depth := 0
	start := -1 // the current statement's start, or -1 between statements
	end := func(i int) {
		if start >= 0 {
			stmts = append(stmts, span{start, i})
			start = -1
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if start < 0 && depth == 0 {
			switch c {
			case ' ', '\t', '\f', '\n', '\r', ';':
				i++
				continue
			case '#':
				i = lineEnd(s, i)
				continue
			}
			start = i
		}
		switch {
		case c == '#':
			j := lineEnd(s, i)
			if depth == 0 {
				end(trimRightSpace(s, start, i))
			}
			i = j
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case c == '\n':
			if depth == 0 {
				end(trimRightSpace(s, start, i))
			}
			i++
		case c == ';' && depth == 0:
			end(trimRightSpace(s, start, i))
			i++
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			depth = max(depth-1, 0)
			i++
		case c == '"' || c == '\'':
			t := scanString(s, i, i)
			strs = append(strs, t)
			i = t.End
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '"' || s[j] == '\'') && isStringPrefix(s[i:j]) {
				t := scanString(s, i, j)
				strs = append(strs, t)
				i = t.End
				continue
			}
			i = j
		default:
			i++
		}
	}
	end(trimRightSpace(s, start, len(s)))
	return stmts, strs
}

// scanString reads the string literal whose prefix starts at start and
// whose opening quote is at q.
func scanString(s string, start, q int) strToken {
	quote := s[q]
	triple := q+2 < len(s) && s[q+1] == quote && s[q+2] == quote
	open := 1
	if triple {
		open = 3
	}
	t := strToken{Prefix: s[start:q]}
	t.Start = start
	t.Body.Start = q + open
	for i := q + open; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			i += 2 // an escape, or in a raw string a backslash that still keeps the quote
		case c == '\n' && !triple:
			t.Body.End, t.End = i, i
			return t
		case c == quote && (!triple || strings.HasPrefix(s[i:], strings.Repeat(string(quote), 3))):
			t.Body.End, t.End = i, i+open
			return t
		default:
			i++
		}
	}
	t.Body.End, t.End = len(s), len(s)
	t.Body.Start = min(t.Body.Start, len(s))
	return t
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func trimRightSpace(s string, start, i int) int {
	if start < 0 {
		return i // no statement to end
	}
	for i > start && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\r' || s[i-1] == '\f') {
		i--
	}
	return i
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// ImportName is one name of an import statement: a module of `import`, a
// name of `from M import`, with its alias ("" without).
type ImportName struct{ Name, As string }

// Bound is the name the import binds: its alias, else the name (the first
// part of a dotted module).
func (n ImportName) Bound() string {
	if n.As != "" {
		return n.As
	}
	first, _, _ := strings.Cut(n.Name, ".")
	return first
}

// ImportStmt is one import statement of a source text.
type ImportStmt struct {
	span
	// From is set for `from Module import Names`; Module is empty for
	// `import Names`. Level counts a relative import's leading dots.
	From   bool
	Module string
	Level  int
	Names  []ImportName
	// Star is `from Module import *`.
	Star bool
}

var (
	fromRE   = regexp.MustCompile(`^from[ \t\\\n]+(\.*)[ \t\\\n]*([A-Za-z_][\w.]*)?[ \t\\\n]+import\b`)
	importRE = regexp.MustCompile(`^import\b`)
	nameRE   = regexp.MustCompile(`^([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?$`)
)

// ParseImports returns the import statements of Python source s that it can
// read: at any indentation, with parentheses, comments and backslash
// continuations. One it cannot read (a name list that does not parse) is
// left out.
func ParseImports(s string) []ImportStmt {
	stmts, _ := scanPython(s)
	var out []ImportStmt
	for _, st := range stmts {
		text := s[st.Start:st.End]
		var imp ImportStmt
		var rest string
		if m := fromRE.FindStringSubmatchIndex(text); m != nil {
			imp.From, imp.Level = true, m[3]-m[2]
			if m[4] >= 0 {
				imp.Module = text[m[4]:m[5]]
			}
			rest = text[m[1]:]
		} else if m := importRE.FindStringIndex(text); m != nil {
			rest = text[m[1]:]
		} else {
			continue
		}
		if imp.Module == "" && imp.Level == 0 && imp.From {
			continue
		}
		rest = strings.ReplaceAll(rest, "\\\n", " ")
		var lines []string
		for _, l := range strings.Split(rest, "\n") {
			l, _, _ = strings.Cut(l, "#")
			lines = append(lines, l)
		}
		rest = strings.TrimSpace(strings.Join(lines, " "))
		if imp.From && strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
			rest = rest[1 : len(rest)-1]
		}
		if imp.From && strings.TrimSpace(rest) == "*" {
			imp.Star, imp.span = true, st
			out = append(out, imp)
			continue
		}
		ok := true
		for i, item := range strings.Split(rest, ",") {
			item = strings.Join(strings.Fields(item), " ")
			if item == "" && imp.From && i > 0 {
				continue // a trailing comma
			}
			m := nameRE.FindStringSubmatch(item)
			if m == nil || (imp.From && strings.Contains(m[1], ".")) {
				ok = false
				break
			}
			imp.Names = append(imp.Names, ImportName{Name: m[1], As: m[2]})
		}
		if ok && len(imp.Names) > 0 {
			imp.span = st
			out = append(out, imp)
		}
	}
	return out
}

// SolutionModule is the module the test files import the reference as.
const SolutionModule = "solution"

// RewriteImports rewrites Python test source s to import module from
// SolutionModule instead: `from module import ...` (any form) becomes
// `from solution import ...`, `import module` becomes `import solution as
// module` (`import module as m`: `import solution as m`), and a string
// literal that is the first argument of a patch call and a dotted name in
// the module (`mock.patch("module.open")`) names solution instead. It returns
// the new source and the names imported from the module (for `import
// module`, the name bound). Anything else is left as it was.
func RewriteImports(s, module string) (string, []ImportName) {
	if module == "" || module == SolutionModule {
		return s, nil
	}
	type edit struct {
		span
		text string
	}
	var edits []edit
	var names []ImportName
	for _, imp := range ParseImports(s) {
		switch {
		case imp.From && imp.Level == 0 && imp.Module == module:
			m := fromRE.FindStringSubmatchIndex(s[imp.Start:imp.End])
			edits = append(edits, edit{span{imp.Start + m[4], imp.Start + m[5]}, SolutionModule})
			names = append(names, imp.Names...)
		case !imp.From:
			hit := false
			items := make([]string, len(imp.Names))
			for i, n := range imp.Names {
				items[i] = n.Name
				if n.As != "" {
					items[i] += " as " + n.As
				}
				if n.Name == module {
					hit = true
					items[i] = SolutionModule + " as " + n.Bound()
					names = append(names, ImportName{Name: n.Bound()})
				}
			}
			if hit {
				edits = append(edits, edit{imp.span, "import " + strings.Join(items, ", ")})
			}
		}
	}
	_, strs := scanPython(s)
	for _, t := range strs {
		body := s[t.Body.Start:t.Body.End]
		if strings.ContainsAny(strings.ToLower(t.Prefix), "bf") || !strings.HasPrefix(body, module+".") {
			continue
		}
		before := strings.TrimRight(s[:t.Start], " \t\n")
		if nameRE.MatchString(body) && !strings.Contains(body, " ") && strings.HasSuffix(before, "patch(") {
			edits = append(edits, edit{span{t.Body.Start, t.Body.Start + len(module)}, SolutionModule})
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
	limit := len(s)
	for _, e := range edits {
		if e.End > limit {
			continue // inside an edit already made
		}
		s = s[:e.Start] + e.text + s[e.End:]
		limit = e.Start
	}
	return s, names
}
