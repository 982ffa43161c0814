package codeprior

import (
	"unicode"
	"unicode/utf8"
)

// kind classifies a lexed token.
type kind uint8

const (
	kName    kind = iota // identifiers and keywords
	kNumber              // numeric literals
	kString              // string literals, prefix and quotes included
	kOp                  // operators and delimiters
	kNewline             // end of a logical line
	kIndent              // indentation increase
	kDedent              // indentation decrease
	kError               // a byte sequence that is no Python token
)

// token is one lexed token: its kind, its text, and the 1-based physical
// line where it starts. Comments and whitespace make no token.
type token struct {
	kind kind
	text string
	line int
}

// lex splits Python source into tokens the way Python's tokenizer does in
// what matters to a language model of code: logical lines (a line break
// inside brackets or after a backslash continues the line), Indent and
// Dedent tokens, opaque string literals of any prefix and quoting, and no
// comments. It never fails: bytes it cannot classify become kError tokens,
// an unterminated string runs to the end of its line (or of the source when
// triple-quoted), and a dedent to no earlier level stays in the block.
func lex(src string) []token {
	lx := lexer{src: src, line: 1, indents: []int{0}, atStart: true}
	lx.out = make([]token, 0, len(src)/4+4) // about one token per four bytes of code
	for lx.i < len(src) {
		if lx.atStart && lx.depth == 0 && lx.indentation() {
			continue
		}
		lx.next()
	}
	lx.endLine()
	for len(lx.indents) > 1 {
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(kDedent, "")
	}
	return lx.out
}

type lexer struct {
	src     string
	i       int
	line    int
	depth   int   // bracket nesting
	indents []int // the indentation stack, 0 at the bottom
	atStart bool  // at the start of a logical line
	lineHas bool  // the current logical line has a token
	out     []token
}

func (lx *lexer) emit(k kind, text string) {
	lx.out = append(lx.out, token{kind: k, text: text, line: lx.line})
	if k != kNewline && k != kIndent && k != kDedent {
		lx.lineHas = true
	}
}

// endLine closes the current logical line if it holds a token.
func (lx *lexer) endLine() {
	if lx.lineHas {
		lx.emit(kNewline, "")
		lx.lineHas = false
	}
}

// indentation reads the indentation at the start of a logical line and
// emits Indent or Dedent tokens. A blank or comment-only line is skipped
// whole; it reports true when it consumed such a line.
func (lx *lexer) indentation() bool {
	col, j := 0, lx.i
	for j < len(lx.src) {
		switch lx.src[j] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		case '\f':
			col = 0
		default:
			goto measured
		}
		j++
	}
measured:
	if j >= len(lx.src) || lx.src[j] == '\n' || lx.src[j] == '\r' || lx.src[j] == '#' {
		for j < len(lx.src) && lx.src[j] != '\n' && lx.src[j] != '\r' {
			j++
		}
		lx.i = j
		if j < len(lx.src) {
			lx.newline()
		}
		return true
	}
	lx.i = j
	lx.atStart = false
	top := lx.indents[len(lx.indents)-1]
	if col > top {
		lx.indents = append(lx.indents, col)
		lx.emit(kIndent, "")
		return false
	}
	for col < top && len(lx.indents) > 1 {
		if below := lx.indents[len(lx.indents)-2]; col > below {
			// A dedent to no earlier level (an error to Python): the line
			// stays in the block it dedents within.
			lx.indents[len(lx.indents)-1] = col
			break
		}
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(kDedent, "")
		top = lx.indents[len(lx.indents)-1]
	}
	return false
}

// newline consumes one line break ("\n", "\r\n" or "\r") at lx.i.
func (lx *lexer) newline() {
	if lx.src[lx.i] == '\r' && lx.i+1 < len(lx.src) && lx.src[lx.i+1] == '\n' {
		lx.i++
	}
	lx.i++
	lx.line++
}

// next consumes one token, or the whitespace, comment or line break at lx.i.
func (lx *lexer) next() {
	s, i := lx.src, lx.i
	c := s[i]
	switch {
	case c == '\n' || c == '\r':
		if lx.depth == 0 {
			lx.endLine()
			lx.atStart = true
		}
		lx.newline()
	case c == ' ' || c == '\t' || c == '\f':
		lx.i++
	case c == '#':
		for lx.i < len(s) && s[lx.i] != '\n' && s[lx.i] != '\r' {
			lx.i++
		}
	case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
		lx.i++
		lx.newline()
	case c == '"' || c == '\'':
		lx.str(i, i)
	case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
		lx.number()
	case c < utf8.RuneSelf && (c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z'), c >= utf8.RuneSelf && identRune(s[i:]):
		j := i
		for j < len(s) {
			if b := s[j]; b < utf8.RuneSelf {
				if b != '_' && !(b|0x20 >= 'a' && b|0x20 <= 'z') && !(b >= '0' && b <= '9') {
					break
				}
				j++
				continue
			}
			if !identRune(s[j:]) {
				break
			}
			_, n := utf8.DecodeRuneInString(s[j:])
			j += n
		}
		if j < len(s) && (s[j] == '"' || s[j] == '\'') && stringPrefix(s[i:j]) {
			lx.str(i, j)
			return
		}
		lx.i = j
		lx.emit(kName, s[i:j])
	case c >= utf8.RuneSelf:
		_, n := utf8.DecodeRuneInString(s[i:])
		lx.i += n
		lx.emit(kError, s[i:i+n])
	default:
		n := opLen(s[i:])
		lx.i += n
		switch c {
		case '(', '[', '{':
			lx.depth++
		case ')', ']', '}':
			if lx.depth > 0 {
				lx.depth--
			}
		}
		if isOp(s[i : i+n]) {
			lx.emit(kOp, s[i:i+n])
		} else {
			lx.emit(kError, s[i:i+n])
		}
	}
}

// identRune reports whether s starts with a non-ASCII letter or digit.
func identRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// stringPrefix reports whether p is a string literal prefix (r, b, u, f and
// their valid pairs, in any case).
func stringPrefix(p string) bool {
	if len(p) > 2 {
		return false
	}
	var r, b, u, f int
	for i := 0; i < len(p); i++ {
		switch p[i] | 0x20 {
		case 'r':
			r++
		case 'b':
			b++
		case 'u':
			u++
		case 'f':
			f++
		default:
			return false
		}
	}
	switch {
	case len(p) == 1:
		return true
	case u > 0 || r != 1:
		return false
	default:
		return b == 1 || f == 1
	}
}

// str consumes a string literal whose prefix starts at start and whose
// quote is at q.
func (lx *lexer) str(start, q int) {
	s := lx.src
	quote := s[q]
	triple := q+2 < len(s) && s[q+1] == quote && s[q+2] == quote
	line := lx.line
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(s) {
		c := s[j]
		switch {
		case c == '\\' && j+1 < len(s):
			j++
			if s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n' {
				j++
			}
			if s[j] == '\n' || s[j] == '\r' {
				lx.line++
			}
			j++
			continue
		case c == quote && !triple:
			j++
			goto done
		case c == quote && j+2 < len(s) && s[j+1] == quote && s[j+2] == quote:
			j += 3
			goto done
		case c == '\n' || c == '\r':
			if !triple {
				goto done // unterminated: the line break is not part of it
			}
			if c == '\r' && j+1 < len(s) && s[j+1] == '\n' {
				j++
			}
			lx.line++
		}
		j++
	}
done:
	if j > len(s) {
		j = len(s)
	}
	lx.i = j
	lx.out = append(lx.out, token{kind: kString, text: s[start:j], line: line})
	lx.lineHas = true
}

// number consumes a numeric literal: decimal, hexadecimal, octal or binary
// integers, floats with fraction or exponent, and imaginary numbers.
func (lx *lexer) number() {
	s, j := lx.src, lx.i
	if s[j] == '0' && j+1 < len(s) && (s[j+1]|0x20 == 'x' || s[j+1]|0x20 == 'o' || s[j+1]|0x20 == 'b') {
		j += 2
		for j < len(s) && (s[j] == '_' || s[j] >= '0' && s[j] <= '9' || s[j]|0x20 >= 'a' && s[j]|0x20 <= 'f') {
			j++
		}
	} else {
		digits := func() {
			for j < len(s) && (s[j] == '_' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
		}
		digits()
		if j < len(s) && s[j] == '.' {
			j++
			digits()
		}
		if j < len(s) && s[j]|0x20 == 'e' {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && s[k] >= '0' && s[k] <= '9' {
				j = k
				digits()
			}
		}
		if j < len(s) && s[j]|0x20 == 'j' {
			j++
		}
	}
	lx.emit(kNumber, s[lx.i:j])
	lx.i = j
}

// opLen is the length of the operator at the start of s (3, 2 or 1 bytes).
func opLen(s string) int {
	if len(s) >= 3 && isOp(s[:3]) {
		return 3
	}
	if len(s) >= 2 && isOp(s[:2]) {
		return 2
	}
	return 1
}

// operators are Python's operators and delimiters.
var operators = []string{
	"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}",
	",", ":", ".", ";", "=", "!",
	"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=",
	"+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=",
	"**=", "//=", ">>=", "<<=", "...",
}

var operatorSet = func() map[string]bool {
	m := make(map[string]bool, len(operators))
	for _, o := range operators {
		m[o] = true
	}
	return m
}()

func isOp(s string) bool { return operatorSet[s] }
