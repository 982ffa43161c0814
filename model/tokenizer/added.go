package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AddedToken is an entry of tokenizer.json's added_tokens: a string that is
// cut out of the text before normalization and BPE and becomes one id.
type AddedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in a text, leftmost-longest, as the
// reference's Aho-Corasick (MatchKind::LeftmostLongest) does.
type addedMatcher struct {
	// byFirst lists, for each first byte, the tokens starting with it,
	// longest first.
	byFirst [256][]*AddedToken
	any     bool
}

func newAddedMatcher(tokens []*AddedToken, content func(*AddedToken) string) *addedMatcher {
	m := &addedMatcher{}
	for _, t := range tokens {
		c := content(t)
		if c == "" {
			continue
		}
		m.byFirst[c[0]] = append(m.byFirst[c[0]], t)
		m.any = true
	}
	for b := range m.byFirst {
		l := m.byFirst[b]
		sort.SliceStable(l, func(i, j int) bool { return len(content(l[i])) > len(content(l[j])) })
	}
	return m
}

// segment is a piece of the input: either text to tokenize or one added
// token (id >= 0).
type segment struct {
	text string
	id   int32
}

// split cuts s at the added tokens it contains and appends the pieces to
// dst. content gives the string each token matches (its content, or its
// normalized content). lstrip/rstrip/single_word follow the reference's
// AddedVocabulary::find_matches.
func (m *addedMatcher) split(dst []segment, s string, content func(*AddedToken) string) []segment {
	if !m.any {
		return append(dst, segment{text: s, id: -1})
	}
	done := 0 // end of the last emitted segment
	for i := 0; i < len(s); i++ {
		cands := m.byFirst[s[i]]
		if len(cands) == 0 {
			continue
		}
		var tok *AddedToken
		for _, t := range cands {
			if strings.HasPrefix(s[i:], content(t)) {
				tok = t
				break
			}
		}
		if tok == nil {
			continue
		}
		start, stop := i, i+len(content(tok))
		if tok.SingleWord && (endsWithWord(s[:start]) || startsWithWord(s[stop:])) {
			i = stop - 1 // matches do not overlap, as in the reference
			continue
		}
		if tok.LStrip {
			start = max(done, len(strings.TrimRightFunc(s[:start], unicode.IsSpace)))
		}
		if tok.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if done < start {
			dst = append(dst, segment{text: s[done:start], id: -1})
		}
		dst = append(dst, segment{id: tok.ID})
		done = stop
		i = stop - 1
	}
	if done < len(s) {
		dst = append(dst, segment{text: s[done:], id: -1})
	}
	return dst
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func endsWithWord(s string) bool {
	r, w := utf8.DecodeLastRuneInString(s)
	return w > 0 && isWordRune(r)
}

func startsWithWord(s string) bool {
	r, w := utf8.DecodeRuneInString(s)
	return w > 0 && isWordRune(r)
}
