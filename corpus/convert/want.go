package convert

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// WantKind is how a doctest example's expected output is compared.
type WantKind int

// Kinds of Want.
const (
	// WantValue: the output is one Python literal; the test compares the
	// example's value with it (floats within a tolerance).
	WantValue WantKind = iota
	// WantText: the output is compared as text (repr, printed output).
	WantText
	// WantRaise: the example raises; the test expects the exception.
	WantRaise
)

// Want is a doctest example's expected outcome, read for a test.
type Want struct {
	Kind WantKind
	// Literal is the output as a Python literal (WantValue), with Floats
	// set when it holds a float or complex number and MultiLine when it
	// spans lines.
	Literal   string
	Floats    bool
	MultiLine bool
	// Text is the expected output (WantText): doctest's want with
	// <BLANKLINE> lines made empty, ending in a newline.
	Text string
	// ExcType is the exception's class name (WantRaise), the last part of
	// a dotted name; ExcMessage its message, compared unless MessageFree.
	ExcType     string
	ExcMessage  string
	MessageFree bool
}

// ParseWant reads a doctest example's expected outcome: excMsg (doctest's
// exc_msg: "Type: message\n") when the example expects an exception, else
// the want text, under the example's option flags (names, as doctest
// writes them). A want that is a Python literal is WantValue, any other
// WantText. An outcome that cannot be compared exactly is an error saying
// why: an ELLIPSIS want with "...", a NORMALIZE_WHITESPACE text, an
// exception line without a type.
func ParseWant(want string, excMsg *string, options []string) (Want, error) {
	has := func(o string) bool { return slices.Contains(options, o) }
	if excMsg != nil {
		return parseException(*excMsg, has("IGNORE_EXCEPTION_DETAIL"), has("ELLIPSIS"))
	}
	if want == "" {
		return Want{}, errors.New("no expected output")
	}
	if lit, err := ParseLiteral(strings.TrimRight(want, "\n")); err == nil {
		return Want{Kind: WantValue, Literal: strings.TrimRight(want, "\n"), Floats: lit.Floats,
			MultiLine: strings.Contains(strings.TrimRight(want, "\n"), "\n")}, nil
	}
	if has("ELLIPSIS") && strings.Contains(want, "...") {
		return Want{}, errors.New("an ELLIPSIS want")
	}
	if has("NORMALIZE_WHITESPACE") {
		return Want{}, errors.New("a NORMALIZE_WHITESPACE text want")
	}
	text := want
	if !has("DONT_ACCEPT_BLANKLINE") {
		lines := strings.Split(want, "\n")
		for i, l := range lines {
			if strings.TrimRight(l, " \t") == "<BLANKLINE>" {
				lines[i] = ""
			}
		}
		text = strings.Join(lines, "\n")
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return Want{Kind: WantText, Text: text}, nil
}

// parseException reads doctest's exc_msg ("pkg.Error: message\n", or the
// type alone).
func parseException(exc string, ignoreDetail, ellipsis bool) (Want, error) {
	exc = strings.TrimSuffix(exc, "\n")
	head, msg, hasMsg := strings.Cut(exc, ":")
	name := strings.TrimSpace(head)
	if strings.Contains(head, "\n") || !isDottedName(name) {
		return Want{}, fmt.Errorf("the exception line %.40q names no type", exc)
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	w := Want{Kind: WantRaise, ExcType: name, MessageFree: ignoreDetail}
	if hasMsg {
		w.ExcMessage = strings.TrimPrefix(msg, " ")
	}
	if ellipsis && strings.Contains(w.ExcMessage, "...") {
		w.MessageFree = true
	}
	return w, nil
}

func isDottedName(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || !isIdentStart(part[0]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isIdentByte(part[i]) {
				return false
			}
		}
	}
	return true
}

// Literal is what ParseLiteral found in a literal.
type Literal struct {
	// Floats is set when a float or complex number is in it.
	Floats bool
}

// ParseLiteral checks that s is one Python literal that ast.literal_eval
// reads: numbers (with a sign, complex sums such as 1+2j), strings and
// bytes (adjacent ones joined), True, False, None, and tuples, lists,
// dicts and sets of literals. Whitespace and newlines are allowed inside
// brackets, spaces around the value; a string that spans lines is refused,
// so that the literal can be re-indented. It accepts a subset of what
// literal_eval does (no set(), no non-ASCII digits): what it accepts is a
// literal.
func ParseLiteral(s string) (Literal, error) {
	p := &litParser{s: s}
	p.space(false)
	if _, err := p.value(0); err != nil {
		return Literal{}, err
	}
	p.space(false)
	if p.i != len(p.s) {
		return Literal{}, fmt.Errorf("text after the literal at %d: %.20q", p.i, p.s[p.i:])
	}
	return Literal{Floats: p.floats}, nil
}

type litParser struct {
	s      string
	i      int
	floats bool
}

// maxLiteralDepth bounds nesting (a hostile want must not exhaust the
// stack).
const maxLiteralDepth = 100

func (p *litParser) space(inBrackets bool) {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t':
			p.i++
		case '\n', '\r':
			if !inBrackets {
				return
			}
			p.i++
		default:
			return
		}
	}
}

func (p *litParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *litParser) errf(format string, args ...any) error {
	return fmt.Errorf("at %d: %s", p.i, fmt.Sprintf(format, args...))
}

// value reads one literal and says whether it is hashable (a dict key or
// a set element must be: literal_eval fails on {[1]: 2}).
func (p *litParser) value(depth int) (bool, error) {
	if depth > maxLiteralDepth {
		return false, p.errf("nested too deeply")
	}
	switch c := p.peek(); {
	case c == '(':
		return p.tuple(depth)
	case c == '[':
		return false, p.seq(depth, ']')
	case c == '{':
		return false, p.dictOrSet(depth)
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return true, p.numberSum()
	case c == '\'' || c == '"':
		return true, p.strings()
	case isIdentStart(c):
		j := p.i
		for j < len(p.s) && isIdentByte(p.s[j]) {
			j++
		}
		word := p.s[p.i:j]
		switch {
		case word == "True" || word == "False" || word == "None":
			p.i = j
			return true, nil
		case j < len(p.s) && (p.s[j] == '\'' || p.s[j] == '"') && isLiteralStringPrefix(word):
			return true, p.strings()
		}
		return false, p.errf("%q is not a literal", word)
	}
	return false, p.errf("no literal")
}

func isLiteralStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb":
		return true
	}
	return false // f-strings are not literals
}

// strings reads one or more adjacent string literals, all str or all bytes.
func (p *litParser) strings() error {
	kind := ""
	for n := 0; ; n++ {
		start := p.i
		j := p.i
		for j < len(p.s) && isIdentByte(p.s[j]) {
			j++
		}
		prefix := strings.ToLower(p.s[p.i:j])
		if j >= len(p.s) || (p.s[j] != '\'' && p.s[j] != '"') || (prefix != "" && !isLiteralStringPrefix(prefix)) {
			if n == 0 {
				return p.errf("no string")
			}
			p.i = start
			return nil
		}
		k := "str"
		if strings.Contains(prefix, "b") {
			k = "bytes"
		}
		if kind != "" && k != kind {
			return p.errf("str and bytes joined")
		}
		kind = k
		t := scanString(p.s, start, j)
		body := p.s[t.Body.Start:t.Body.End]
		closed := t.End > t.Body.End
		if !closed || strings.ContainsAny(body, "\n\r") {
			return p.errf("an unterminated or multi-line string")
		}
		if k == "bytes" {
			for i := 0; i < len(body); i++ {
				if body[i] >= 0x80 {
					return p.errf("a non-ASCII byte in a bytes literal")
				}
			}
		}
		if err := checkEscapes(body, strings.Contains(prefix, "r"), k == "bytes"); err != nil {
			return p.errf("%v", err)
		}
		p.i = t.End
		save := p.i
		p.space(false)
		if c := p.peek(); c != '\'' && c != '"' && !isIdentStart(c) {
			p.i = save
			return nil
		}
	}
}

// checkEscapes refuses the escapes Python rejects (\x without two hex
// digits, \u and \N in bytes, bad \u/\U/\N) in a string body.
func checkEscapes(body string, raw, bytes bool) error {
	if raw {
		return nil
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if i+1 >= len(body) {
			return errors.New("a trailing backslash")
		}
		i++
		hex := 0
		switch body[i] {
		case 'x':
			hex = 2
		case 'u':
			hex = 4
		case 'U':
			hex = 8
		case 'N':
			if bytes || i+1 >= len(body) || body[i+1] != '{' {
				return errors.New(`a bad \N escape`)
			}
			end := strings.IndexByte(body[i:], '}')
			if end < 0 {
				return errors.New(`an unterminated \N escape`)
			}
			return errors.New(`a \N{...} escape`) // names are Python's to resolve
		}
		if hex == 0 {
			continue
		}
		if bytes && hex > 2 {
			continue // \u in bytes is a backslash and a u
		}
		for k := 1; k <= hex; k++ {
			if i+k >= len(body) || !isHex(body[i+k]) {
				return errors.New("a bad hex escape")
			}
		}
		if hex == 8 && body[i+1:i+9] > "0010ffff" {
			return errors.New(`a \U escape beyond Unicode`)
		}
		i += hex
	}
	return nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// numberSum reads a signed number, or a real and an imaginary number
// joined by + or - (what literal_eval reads as a complex constant).
func (p *litParser) numberSum() error {
	imag, err := p.signedNumber()
	if err != nil {
		return err
	}
	save := p.i
	p.space(false)
	if c := p.peek(); (c == '+' || c == '-') && !imag {
		p.i++
		p.space(false)
		second, err := p.number()
		if err != nil || !second {
			return p.errf("a sum that is not a complex literal")
		}
		return nil
	}
	p.i = save
	return nil
}

// signedNumber reads a number with at most one sign (literal_eval refuses
// --1).
func (p *litParser) signedNumber() (bool, error) {
	if p.peek() == '-' || p.peek() == '+' {
		p.i++
		p.space(false)
	}
	return p.number()
}

// number reads an unsigned int, float or imaginary number and says whether
// it was imaginary.
func (p *litParser) number() (bool, error) {
	s, start := p.s, p.i
	digits := func(ok func(byte) bool) int {
		n := 0
		for p.i < len(s) && (ok(s[p.i]) || s[p.i] == '_' && p.i+1 < len(s) && ok(s[p.i+1]) && n > 0) {
			p.i++
			n++
		}
		return n
	}
	dec := func(c byte) bool { return c >= '0' && c <= '9' }
	if p.peek() == '0' && p.i+1 < len(s) && strings.ContainsRune("xXoObB", rune(s[p.i+1])) {
		base := s[p.i+1] | 0x20
		p.i += 2
		ok := map[byte]func(byte) bool{'x': isHex, 'o': func(c byte) bool { return c >= '0' && c <= '7' },
			'b': func(c byte) bool { return c == '0' || c == '1' }}[base]
		if p.peek() == '_' {
			p.i++
		}
		if digits(ok) == 0 {
			return false, p.errf("a %c number without digits", base)
		}
		return false, p.end()
	}
	intDigits := digits(dec)
	isFloat := false
	if p.peek() == '.' {
		p.i++
		isFloat = true
		frac := 0
		if dec(p.peek()) {
			frac = digits(dec)
		}
		if intDigits == 0 && frac == 0 {
			return false, p.errf("a lone dot")
		}
	} else if intDigits == 0 {
		return false, p.errf("no number")
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if digits(dec) == 0 {
			return false, p.errf("an exponent without digits")
		}
		isFloat = true
	}
	imag := false
	if c := p.peek(); c == 'j' || c == 'J' {
		p.i++
		imag, isFloat = true, true
	}
	if !isFloat && intDigits > 1 && s[start] == '0' && strings.Trim(s[start:p.i], "0_") != "" {
		return false, p.errf("a decimal number with a leading zero")
	}
	p.floats = p.floats || isFloat
	return imag, p.end()
}

// end refuses a number run into a name ("1abc", "1.2.3").
func (p *litParser) end() error {
	if c := p.peek(); isIdentByte(c) || c == '.' {
		return p.errf("a number runs into %q", c)
	}
	return nil
}

// tuple reads a parenthesized literal or a tuple; a tuple is hashable when
// its elements are.
func (p *litParser) tuple(depth int) (bool, error) {
	p.i++ // (
	p.space(true)
	if p.peek() == ')' {
		p.i++
		return true, nil
	}
	hashable := true
	for {
		h, err := p.value(depth + 1)
		if err != nil {
			return false, err
		}
		hashable = hashable && h
		p.space(true)
		switch p.peek() {
		case ')':
			p.i++
			return hashable, nil
		case ',':
			p.i++
			p.space(true)
			if p.peek() == ')' {
				p.i++
				return hashable, nil
			}
		default:
			return false, p.errf("want , or )")
		}
	}
}

func (p *litParser) seq(depth int, closer byte) error {
	p.i++
	p.space(true)
	if p.peek() == closer {
		p.i++
		return nil
	}
	for {
		if _, err := p.value(depth + 1); err != nil {
			return err
		}
		p.space(true)
		switch p.peek() {
		case closer:
			p.i++
			return nil
		case ',':
			p.i++
			p.space(true)
			if p.peek() == closer {
				p.i++
				return nil
			}
		default:
			return p.errf("want , or %c", closer)
		}
	}
}

func (p *litParser) dictOrSet(depth int) error {
	p.i++ // {
	p.space(true)
	if p.peek() == '}' {
		p.i++
		return nil // {} is a dict
	}
	isDict := false
	for n := 0; ; n++ {
		hashable, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		if !hashable {
			return p.errf("an unhashable key or set element")
		}
		p.space(true)
		if n == 0 {
			isDict = p.peek() == ':'
		}
		if isDict {
			if p.peek() != ':' {
				return p.errf("want :")
			}
			p.i++
			p.space(true)
			if _, err := p.value(depth + 1); err != nil {
				return err
			}
			p.space(true)
		}
		switch p.peek() {
		case '}':
			p.i++
			return nil
		case ',':
			p.i++
			p.space(true)
			if p.peek() == '}' {
				p.i++
				return nil
			}
		default:
			return p.errf("want , or }")
		}
	}
}
