// Package pylex is a small Python tokenizer for source-to-source edits. Every
// token carries its exact byte span and 1-based line number, so a mutation is
// a splice of the original bytes and everything outside it stays identical.
//
// Strings (any prefix, single- or triple-quoted, including f-strings) and
// comments are opaque tokens. Indentation produces Indent/Dedent tokens and
// logical line ends produce Newline tokens, as in Python's own tokenizer.
// Tokenize never fails: bytes it cannot classify become Error tokens, and an
// unterminated string runs to the end of its line (or of the file when
// triple-quoted) with Unterminated set.
//
// Imports: nothing of triage.
package pylex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a token.
type Kind uint8

// Token kinds.
const (
	Name    Kind = iota // identifiers and keywords
	Number              // numeric literals
	String              // string literals, prefix and quotes included
	Op                  // operators and delimiters
	Comment             // '#' to end of line
	Newline             // end of a logical line (span: the line break, may be empty at EOF)
	Indent              // indentation increase (empty span at the first token of the line)
	Dedent              // indentation decrease (empty span)
	Error               // a byte sequence that is no Python token
	EOF                 // end of input (empty span)
)

var kindNames = [...]string{"Name", "Number", "String", "Op", "Comment", "Newline", "Indent", "Dedent", "Error", "EOF"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind?"
}

// Token is one token with its byte span [Start, End) in the source.
type Token struct {
	Kind  Kind
	Start int
	End   int
	Line  int // 1-based line of Start
	// Depth is the bracket nesting depth before the token ('(' itself is at
	// the outer depth, its contents one deeper).
	Depth int
	// Unterminated marks a string literal without its closing quote.
	Unterminated bool
}

// Text returns the token's source text.
func (t Token) Text(src string) string { return src[t.Start:t.End] }

// keywords are Python's hard keywords.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true,
	"for": true, "from": true, "global": true, "if": true, "import": true, "in": true,
	"is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true,
	"raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// IsKeyword reports whether s is a Python keyword.
func IsKeyword(s string) bool { return keywords[s] }

// operators, longest first within each length class.
var ops3 = []string{"**=", "//=", ">>=", "<<=", "...", "!="}
var ops2 = []string{"->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="}

const ops1 = "+-*/%@&|^~<>()[]{},:;.=!"

type lexer struct {
	src    string
	pos    int
	line   int
	depth  int
	indent []int // indentation stack (columns)
	toks   []Token
	atBOL  bool // at the beginning of a logical line
}

// Tokenize splits src into tokens. The result always ends with EOF, preceded
// by a Newline and the Dedents that close open blocks.
func Tokenize(src string) []Token {
	lx := &lexer{src: src, line: 1, indent: []int{0}, atBOL: true}
	lx.run()
	return lx.toks
}

func (lx *lexer) emit(k Kind, start, end, line int) {
	lx.toks = append(lx.toks, Token{Kind: k, Start: start, End: end, Line: line, Depth: lx.depth})
}

func (lx *lexer) run() {
	src := lx.src
	for lx.pos < len(src) {
		if lx.atBOL && lx.depth == 0 {
			if !lx.indentation() {
				continue
			}
		}
		c := src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			lx.pos++
		case c == '\r' || c == '\n':
			start := lx.pos
			lx.pos++
			if c == '\r' && lx.pos < len(src) && src[lx.pos] == '\n' {
				lx.pos++
			}
			if lx.depth == 0 && !lx.atBOL {
				lx.emit(Newline, start, lx.pos, lx.line)
				lx.atBOL = true
			}
			lx.line++
		case c == '\\' && lx.pos+1 < len(src) && (src[lx.pos+1] == '\n' || src[lx.pos+1] == '\r'):
			lx.pos += 2
			if src[lx.pos-1] == '\r' && lx.pos < len(src) && src[lx.pos] == '\n' {
				lx.pos++
			}
			lx.line++
		case c == '#':
			start := lx.pos
			for lx.pos < len(src) && src[lx.pos] != '\n' && src[lx.pos] != '\r' {
				lx.pos++
			}
			lx.emit(Comment, start, lx.pos, lx.line)
		case isDigit(c) || (c == '.' && lx.pos+1 < len(src) && isDigit(src[lx.pos+1])):
			lx.number()
		case lx.stringStart():
			lx.str()
		case isNameStart(src, lx.pos):
			start := lx.pos
			for lx.pos < len(src) && isNameCont(src, lx.pos) {
				_, n := utf8.DecodeRuneInString(src[lx.pos:])
				lx.pos += n
			}
			lx.emit(Name, start, lx.pos, lx.line)
		default:
			lx.op()
		}
	}
	if !lx.atBOL || len(lx.toks) == 0 {
		lx.emit(Newline, len(src), len(src), lx.line)
	}
	for len(lx.indent) > 1 {
		lx.indent = lx.indent[:len(lx.indent)-1]
		lx.emit(Dedent, len(src), len(src), lx.line)
	}
	lx.depth = 0
	lx.emit(EOF, len(src), len(src), lx.line)
}

// indentation measures the indentation of a new line and emits Indent/Dedent
// tokens. It returns false when the line is blank or a comment only (the
// caller then continues tokenizing without indentation changes).
func (lx *lexer) indentation() bool {
	src := lx.src
	col, p := 0, lx.pos
	for p < len(src) {
		switch src[p] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		case '\f':
			col = 0
		default:
			goto done
		}
		p++
	}
done:
	if p >= len(src) || src[p] == '\n' || src[p] == '\r' || src[p] == '#' {
		// Blank or comment-only line: no indentation change.
		lx.pos = p
		if p < len(src) && src[p] == '#' {
			start := p
			for p < len(src) && src[p] != '\n' && src[p] != '\r' {
				p++
			}
			lx.emit(Comment, start, p, lx.line)
			lx.pos = p
		}
		if lx.pos < len(src) {
			// consume the line break here so atBOL stays set
			if src[lx.pos] == '\r' {
				lx.pos++
				if lx.pos < len(src) && src[lx.pos] == '\n' {
					lx.pos++
				}
			} else {
				lx.pos++
			}
			lx.line++
		}
		return false
	}
	lx.pos = p
	lx.atBOL = false
	top := lx.indent[len(lx.indent)-1]
	switch {
	case col > top:
		lx.indent = append(lx.indent, col)
		lx.emit(Indent, p, p, lx.line)
	case col < top:
		for len(lx.indent) > 1 && col < lx.indent[len(lx.indent)-1] {
			lx.indent = lx.indent[:len(lx.indent)-1]
			lx.emit(Dedent, p, p, lx.line)
		}
		// An inconsistent dedent (col between two levels) is tolerated: the
		// line is treated as being at the level just popped to.
	}
	return true
}

func (lx *lexer) number() {
	src := lx.src
	start := lx.pos
	if src[lx.pos] == '0' && lx.pos+1 < len(src) && strings.IndexByte("xXoObB", src[lx.pos+1]) >= 0 {
		lx.pos += 2
		for lx.pos < len(src) && (isHex(src[lx.pos]) || src[lx.pos] == '_') {
			lx.pos++
		}
		lx.emit(Number, start, lx.pos, lx.line)
		return
	}
	for lx.pos < len(src) {
		c := src[lx.pos]
		switch {
		case isDigit(c) || c == '_' || c == '.':
			lx.pos++
		case (c == 'e' || c == 'E'):
			lx.pos++
			if lx.pos < len(src) && (src[lx.pos] == '+' || src[lx.pos] == '-') {
				lx.pos++
			}
		case c == 'j' || c == 'J':
			lx.pos++
			lx.emit(Number, start, lx.pos, lx.line)
			return
		default:
			lx.emit(Number, start, lx.pos, lx.line)
			return
		}
	}
	lx.emit(Number, start, lx.pos, lx.line)
}

// stringStart reports whether a string literal (with an optional prefix of up
// to two letters from rbuf) starts at pos.
func (lx *lexer) stringStart() bool {
	src := lx.src
	p := lx.pos
	for i := 0; i < 3 && p < len(src); i++ {
		c := src[p]
		if c == '\'' || c == '"' {
			return true
		}
		if i == 2 || strings.IndexByte("rRbBuUfF", c) < 0 {
			return false
		}
		p++
	}
	return false
}

// str scans a string literal starting at lx.pos.
func (lx *lexer) str() {
	src := lx.src
	start, line := lx.pos, lx.line
	fstr := false
	for src[lx.pos] != '\'' && src[lx.pos] != '"' {
		if src[lx.pos] == 'f' || src[lx.pos] == 'F' {
			fstr = true
		}
		lx.pos++
	}
	unterminated := !lx.strBody(fstr)
	lx.toks = append(lx.toks, Token{Kind: String, Start: start, End: lx.pos, Line: line, Depth: lx.depth, Unterminated: unterminated})
}

// strBody scans from the opening quote at lx.pos to after the closing quote.
// In f-strings, replacement fields ({...}) may hold nested strings. It
// returns false when the string is unterminated.
func (lx *lexer) strBody(fstr bool) bool {
	src := lx.src
	q := src[lx.pos]
	triple := lx.pos+2 < len(src) && src[lx.pos+1] == q && src[lx.pos+2] == q
	if triple {
		lx.pos += 3
	} else {
		lx.pos++
	}
	braces := 0
	for lx.pos < len(src) {
		c := src[lx.pos]
		switch {
		case c == '\\':
			lx.pos++
			if lx.pos < len(src) {
				if src[lx.pos] == '\n' {
					lx.line++
				}
				lx.pos++
			}
			continue
		case c == '\n' || c == '\r':
			if !triple && braces == 0 {
				return false // unterminated single-quoted string ends at the line break
			}
			if c == '\n' {
				lx.line++
			}
			lx.pos++
			continue
		case fstr && c == '{':
			if braces == 0 && lx.pos+1 < len(src) && src[lx.pos+1] == '{' {
				lx.pos += 2
				continue
			}
			braces++
		case fstr && c == '}' && braces > 0:
			braces--
		case fstr && braces > 0 && (c == '\'' || c == '"'):
			// A nested string inside a replacement field.
			if !lx.strBody(false) {
				return false
			}
			continue
		}
		if c == q && braces == 0 {
			if !triple {
				lx.pos++
				return true
			}
			if lx.pos+2 < len(src) && src[lx.pos+1] == q && src[lx.pos+2] == q {
				lx.pos += 3
				return true
			}
		}
		lx.pos++
	}
	return false
}

func (lx *lexer) op() {
	src := lx.src
	start := lx.pos
	rest := src[lx.pos:]
	for _, set := range [][]string{ops3, ops2} {
		for _, o := range set {
			if strings.HasPrefix(rest, o) {
				lx.pos += len(o)
				lx.emit(Op, start, lx.pos, lx.line)
				return
			}
		}
	}
	c := src[lx.pos]
	if strings.IndexByte(ops1, c) >= 0 {
		switch c {
		case '(', '[', '{':
			lx.pos++
			lx.emit(Op, start, lx.pos, lx.line)
			lx.depth++
			return
		case ')', ']', '}':
			if lx.depth > 0 {
				lx.depth--
			}
		}
		lx.pos++
		lx.emit(Op, start, lx.pos, lx.line)
		return
	}
	_, n := utf8.DecodeRuneInString(rest)
	lx.pos += n
	lx.emit(Error, start, lx.pos, lx.line)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isNameStart(s string, p int) bool {
	c := s[p]
	if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
		return true
	}
	if c < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[p:])
	return r != utf8.RuneError && unicode.IsLetter(r)
}

func isNameCont(s string, p int) bool {
	if isNameStart(s, p) || isDigit(s[p]) {
		return true
	}
	if s[p] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[p:])
	return r != utf8.RuneError && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))
}

// Logical is one logical line: the indices (into the token slice) of its
// significant tokens (no comments, Indent, Dedent or Newline), its block
// level (number of enclosing indented blocks) and its first line.
type Logical struct {
	Toks  []int
	Level int
	Line  int
}

// Logicals groups toks into logical lines. A compound statement with its
// body on the same line (`if x: y = 1`) is one logical line.
func Logicals(toks []Token) []Logical {
	var out []Logical
	level := 0
	var cur []int
	for i, t := range toks {
		switch t.Kind {
		case Indent:
			level++
		case Dedent:
			if level > 0 {
				level--
			}
		case Comment, EOF:
		case Newline:
			if len(cur) > 0 {
				out = append(out, Logical{Toks: cur, Level: level, Line: toks[cur[0]].Line})
				cur = nil
			}
		default:
			cur = append(cur, i)
		}
	}
	if len(cur) > 0 {
		out = append(out, Logical{Toks: cur, Level: level, Line: toks[cur[0]].Line})
	}
	return out
}
