package codeprior

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Special symbols of the model's vocabulary.
const (
	symBOS    = "<s>"  // the start of a program: context only, never predicted
	symEOS    = "</s>" // the end of a program
	symUnk    = "<unk>"
	symNL     = "<nl>" // the end of a logical line
	symIndent = "<indent>"
	symDedent = "<dedent>"
)

// Placeholders: a name that is not kept becomes the position of that name
// in a move-to-front list of the program's names so far (<v0> the most
// recently used one), <vfar> when it was used longer ago, <vnew> on its
// first use. Attribute names after a dot have their own list (<a0>...).
// A model of these symbols learns how names are used (x = x + 1 is
// "<vk> = <v0> + 1"), which transfers between programs that name things
// differently.
//
// Four and two slots: on the tuning trees (MBPP's validation split, the
// bundled tasks' train and validation splits; docs/prior.md) 4/2 did as
// well as 8/4 on both sources in a smaller model, 2/1 better on MBPP's
// short programs and worse on the bundled ones, and no recency at all
// (new or seen only) clearly worse.
const (
	varSlots  = 4
	attrSlots = 2
)

// literalSymbols are the kinds literals are abstracted to; 0, 1 and 2 are
// kept as themselves (they carry off-by-one and base cases).
var literalSymbols = []string{"0", "1", "2", "<int>", "<float>", "<imag>",
	"<str>", "<str0>", "<str1>", "<str3>", "<fstr>", "<bytes>"}

// bareKept and attrKept are the names kept bare (bareNames) and after a
// dot (attrNames).
var bareKept, attrKept = func() (map[string]bool, map[string]bool) {
	b := make(map[string]bool, len(bareNames))
	for _, n := range bareNames {
		b[n] = true
	}
	a := make(map[string]bool, len(attrNames))
	for _, n := range attrNames {
		a[n] = true
	}
	return b, a
}()

// Vocabulary returns the model's symbols in id order: the specials,
// Python's operators, the literal kinds, the placeholders, then the kept
// names sorted. It depends only on this package's lists (names.go from the
// interpreter), so a model built by this version reads the same ids.
func Vocabulary() []string {
	v := []string{symBOS, symEOS, symUnk, symNL, symIndent, symDedent}
	v = append(v, operators...)
	v = append(v, literalSymbols...)
	for i := range varSlots {
		v = append(v, "<v"+strconv.Itoa(i)+">")
	}
	v = append(v, "<vfar>", "<vnew>")
	for i := range attrSlots {
		v = append(v, "<a"+strconv.Itoa(i)+">")
	}
	v = append(v, "<afar>", "<anew>")
	seen := make(map[string]bool, len(v))
	for _, s := range v {
		seen[s] = true
	}
	var names []string
	for _, list := range [][]string{bareNames, attrNames} {
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return append(v, names...)
}

// maxVocab bounds the vocabulary so an n-gram of order maxOrder packs into
// a gram (idBits bits a symbol in 128).
const (
	idBits   = 12
	maxVocab = 1<<idBits - 1
	maxOrder = 128 / idBits
)

// vocab maps symbols to ids.
type vocab struct {
	syms []string
	ids  map[string]uint16
	bos  uint16
	eos  uint16
	unk  uint16
}

func newVocab(syms []string) (*vocab, error) {
	if len(syms) == 0 || len(syms) > maxVocab {
		return nil, fmt.Errorf("vocabulary of %d symbols, want 1..%d", len(syms), maxVocab)
	}
	v := &vocab{syms: syms, ids: make(map[string]uint16, len(syms))}
	for i, s := range syms {
		if _, dup := v.ids[s]; dup {
			return nil, fmt.Errorf("vocabulary: symbol %q twice", s)
		}
		v.ids[s] = uint16(i)
	}
	for _, sp := range []struct {
		sym string
		id  *uint16
	}{{symBOS, &v.bos}, {symEOS, &v.eos}, {symUnk, &v.unk}} {
		id, ok := v.ids[sp.sym]
		if !ok {
			return nil, fmt.Errorf("vocabulary has no %s", sp.sym)
		}
		*sp.id = id
	}
	return v, nil
}

func (v *vocab) id(s string) uint16 {
	if id, ok := v.ids[s]; ok {
		return id
	}
	return v.unk
}

// sym is one abstracted token: its id and the 1-based physical line it is
// charged to.
type sym struct {
	id   uint16
	line int32
}

// mtf is a move-to-front list of names: the placeholder of a name is its
// rank by last use.
type mtf struct {
	recent []string
	seen   map[string]bool
	prefix string
	slots  int
}

func newMTF(prefix string, slots int) *mtf {
	return &mtf{prefix: prefix, slots: slots, seen: map[string]bool{}}
}

func (m *mtf) symbol(name string) string {
	i := slices.Index(m.recent, name)
	var s string
	switch {
	case i >= 0:
		s = m.prefix + strconv.Itoa(i) + ">"
		m.recent = slices.Delete(m.recent, i, i+1)
	case m.seen[name]:
		s = m.prefix + "far>"
	default:
		s = m.prefix + "new>"
		m.seen[name] = true
	}
	m.recent = slices.Insert(m.recent, 0, name)
	if len(m.recent) > m.slots {
		m.recent = m.recent[:m.slots]
	}
	return s
}

// abstractTokens turns lexed tokens into the model's symbols, calling emit
// with each symbol and the line it is charged to.
func abstractTokens(toks []token, emit func(s string, line int)) {
	vars, attrs := newMTF("<v", varSlots), newMTF("<a", attrSlots)
	afterDot := false
	for _, t := range toks {
		s := ""
		switch t.kind {
		case kName:
			switch {
			case afterDot && (attrKept[t.text]):
				s = t.text
			case afterDot:
				s = attrs.symbol(t.text)
			case bareKept[t.text]:
				s = t.text
			default:
				s = vars.symbol(t.text)
			}
		case kNumber:
			s = numberKind(t.text)
		case kString:
			s = stringKind(t.text)
		case kOp:
			s = t.text
		case kNewline:
			s = symNL
		case kIndent:
			s = symIndent
		case kDedent:
			s = symDedent
		default:
			s = symUnk
		}
		afterDot = t.kind == kOp && t.text == "."
		emit(s, t.line)
	}
}

// numberKind abstracts a numeric literal.
func numberKind(text string) string {
	switch {
	case text == "0" || text == "1" || text == "2":
		return text
	case strings.HasSuffix(text, "j") || strings.HasSuffix(text, "J"):
		return "<imag>"
	case len(text) > 1 && text[0] == '0' && strings.ContainsAny(text[1:2], "xXoObB"):
		return "<int>"
	case strings.ContainsAny(text, ".eE"):
		return "<float>"
	}
	return "<int>"
}

// stringKind abstracts a string literal (prefix and quotes included).
func stringKind(text string) string {
	q := strings.IndexAny(text, `"'`)
	if q < 0 {
		return "<str>"
	}
	prefix := strings.ToLower(text[:q])
	switch {
	case strings.Contains(prefix, "f"):
		return "<fstr>"
	case strings.Contains(prefix, "b"):
		return "<bytes>"
	}
	body := text[q:]
	n := 1
	if len(body) >= 6 && body[1] == body[0] && body[2] == body[0] {
		return "<str3>"
	}
	body = body[n:]
	if len(body) > 0 && body[len(body)-1] == text[q] {
		body = body[:len(body)-1]
	}
	switch {
	case body == "":
		return "<str0>"
	case utf8.RuneCountInString(body) == 1 || len(body) == 2 && body[0] == '\\':
		return "<str1>"
	}
	return "<str>"
}

// symbols lexes and abstracts src into ids, framed by <s> and </s>.
func (v *vocab) symbols(src string) []sym {
	toks := lex(src)
	out := make([]sym, 0, len(toks)+2)
	out = append(out, sym{id: v.bos, line: 1})
	last := 1
	abstractTokens(toks, func(s string, line int) {
		out = append(out, sym{id: v.id(s), line: int32(line)})
		last = line
	})
	return append(out, sym{id: v.eos, line: int32(last)})
}
