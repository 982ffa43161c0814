package tokenizer

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// qwen2Pattern is the pre-tokenizer regex of Qwen2/Qwen2.5/Qwen3; when a
// tokenizer.json splits with exactly this pattern the hand-written scanner
// qwen2Next is used instead of regexp2 (same pieces, several times faster:
// see FuzzQwen2ScannerMatchesRegexp2).
const qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// gpt2Pattern is the regex the ByteLevel pre-tokenizer applies when its
// use_regex is true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// splitter cuts a text into pieces; emit receives byte offsets [start, end)
// into s, in order, covering s.
type splitter interface {
	split(s string, emit func(start, end int)) error
}

// qwen2Splitter implements qwen2Pattern by hand.
type qwen2Splitter struct{}

func (qwen2Splitter) split(s string, emit func(start, end int)) error {
	for i := 0; i < len(s); {
		j := qwen2Next(s, i)
		emit(i, j)
		i = j
	}
	return nil
}

// Rune classes of the Qwen2 pattern. \s holds clsSpace and clsNewline.
const (
	clsOther   = iota // [^\s\p{L}\p{N}]
	clsLetter         // \p{L}
	clsNumber         // \p{N}
	clsSpace          // \s except \r and \n
	clsNewline        // [\r\n]
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for b := 0; b < utf8.RuneSelf; b++ {
		t[b] = classOf(rune(b))
	}
	return t
}()

// classOf classifies a rune as the pattern's \p{L}, \p{N} and \s see it
// (Go's unicode tables; \s is unicode.IsSpace, the White_Space property,
// which is also regexp2's and Oniguruma's definition).
func classOf(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clsNewline
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// runeAt decodes the rune at byte offset i of s with its class and width.
// An invalid byte is one U+FFFD rune of width 1 (as []rune(s) sees it).
func runeAt(s string, i int) (r rune, cls uint8, w int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), asciiClass[c], 1
	}
	r, w = utf8.DecodeRuneInString(s[i:])
	return r, classOf(r), w
}

// runOf returns the end of the run of runes of class cls starting at i.
func runOf(s string, i int, cls uint8) int {
	for i < len(s) {
		_, c, w := runeAt(s, i)
		if c != cls {
			break
		}
		i += w
	}
	return i
}

// newlinesFrom returns the end of the run of \r and \n starting at i.
func newlinesFrom(s string, i int) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// contraction returns the end of `'s|'t|'re|'ve|'m|'ll|'d` (any case)
// matched at i, or -1.
func contraction(s string, i int) int {
	if s[i] != '\'' || i+1 >= len(s) {
		return -1
	}
	lower := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch c := lower(i + 1); c {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if lower(i+2) == 'e' {
			return i + 3
		}
	case 'l':
		if lower(i+2) == 'l' {
			return i + 3
		}
	}
	return -1
}

// qwen2Next returns the end of the match of qwen2Pattern that starts at i
// (i < len(s)); every position starts a non-empty match. The alternatives
// are tried in the pattern's order, with the outcome of its backtracking
// written out.
func qwen2Next(s string, i int) int {
	if j := contraction(s, i); j >= 0 {
		return j
	}
	_, c0, w0 := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c0 == clsLetter {
		return runOf(s, i, clsLetter)
	}
	if (c0 == clsOther || c0 == clsSpace) && i+w0 < len(s) {
		if _, c1, _ := runeAt(s, i+w0); c1 == clsLetter {
			return runOf(s, i+w0, clsLetter)
		}
	}
	// \p{N}
	if c0 == clsNumber {
		return i + w0
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	if c0 == clsOther {
		return newlinesFrom(s, runOf(s, i, clsOther))
	}
	if s[i] == ' ' && i+1 < len(s) {
		if _, c1, _ := runeAt(s, i+1); c1 == clsOther {
			return newlinesFrom(s, runOf(s, i+1, clsOther))
		}
	}
	// Here s[i] is whitespace. Scan its run once.
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		_, c, w := runeAt(s, end)
		if c != clsSpace && c != clsNewline {
			break
		}
		if c == clsNewline {
			lastNL = end + w
		}
		lastStart = end
		end += w
	}
	// \s*[\r\n]+ : up to the last newline of the run.
	if lastNL >= 0 {
		return lastNL
	}
	// \s+(?!\S) : the whole run at the end of the text, else all but its
	// last rune when that leaves at least one.
	if end == len(s) {
		return end
	}
	if lastStart > i {
		return lastStart
	}
	// \s+
	return end
}

// regexSplitter splits with a regexp2 pattern, keeping matches and the
// text between them as pieces (the "Isolated" behaviour).
type regexSplitter struct {
	re *regexp2.Regexp
}

func newRegexSplitter(pattern string) (*regexSplitter, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compile pre-tokenizer regex %q: %w", pattern, err)
	}
	return &regexSplitter{re: re}, nil
}

func (r *regexSplitter) split(s string, emit func(start, end int)) error {
	if s == "" {
		return nil
	}
	runes := []rune(s)
	// offs[k] is the byte offset of rune k; invalid bytes are one rune each,
	// as in the []rune conversion.
	offs := make([]int, 0, len(runes)+1)
	for i := 0; i < len(s); {
		offs = append(offs, i)
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	offs = append(offs, len(s))
	prev := 0
	m, err := r.re.FindRunesMatch(runes)
	for ; err == nil && m != nil; m, err = r.re.FindNextMatch(m) {
		start, end := offs[m.Index], offs[m.Index+m.Length]
		if start == end {
			continue
		}
		if prev < start {
			emit(prev, start)
		}
		emit(start, end)
		prev = end
	}
	if err != nil {
		return fmt.Errorf("pre-tokenizer regex: %w", err)
	}
	if prev < len(s) {
		emit(prev, len(s))
	}
	return nil
}

// chainSplitter applies each splitter to the pieces of the previous one.
type chainSplitter []splitter

func (c chainSplitter) split(s string, emit func(start, end int)) error {
	return c.splitFrom(0, s, 0, emit)
}

func (c chainSplitter) splitFrom(k int, s string, base int, emit func(start, end int)) error {
	if k == len(c) {
		emit(base, base+len(s))
		return nil
	}
	var err error
	serr := c[k].split(s, func(start, end int) {
		if err == nil {
			err = c.splitFrom(k+1, s[start:end], base+start, emit)
		}
	})
	if serr != nil {
		return serr
	}
	return err
}
