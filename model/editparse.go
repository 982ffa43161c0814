package model

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// editKind classifies an edit text.
type editKind int

const (
	editUnparsed editKind = iota // prose without a recognizable code change
	editChange                   // change `A` to `B` / replace `A` with `B`
	editUseVar                   // use `new` instead of `old` in `line`
	editRemove                   // remove `A` / delete `A`
)

// parsedEdit is what can be read from an edit text: the line it names
// (0 when none) and the code before and after the change (the whole line
// where the text quotes it).
type parsedEdit struct {
	kind          editKind
	line          int
	before, after string
	old, new      string // editUseVar: the variable replaced and its replacement
}

var (
	reLine    = regexp.MustCompile(`(?i)\bline\s+(\d{1,6})\b`)
	reChange  = regexp.MustCompile("(?is)\\b(?:change|replace)\\s+`([^`]*)`\\s+(?:to|with|by|into)\\s+`([^`]*)`")
	reUseVar  = regexp.MustCompile("(?is)\\buse\\s+`([^`]*)`\\s+instead\\s+of\\s+`([^`]*)`(?:\\s+in\\s+`([^`]*)`)?")
	reRemove  = regexp.MustCompile("(?is)\\b(?:remove|delete|drop)\\s+(?:the\\s+(?:line|statement)\\s+)?`([^`]*)`")
	reSuspect = regexp.MustCompile(`(?m)^-\s*line\s+(\d{1,6})\s*\(([0-9.]+)\)`)
	reLikely  = regexp.MustCompile(`(?i)most likely the fault is on line\s+(\d{1,6})`)
)

// maxEditParse bounds the text the regular expressions scan.
const maxEditParse = 4096

// parseEdit reads an edit text in the forms proposers write (the mutate
// proposer's, and the common LLM phrasings with code in backticks).
func parseEdit(text string) parsedEdit {
	if len(text) > maxEditParse {
		text = text[:maxEditParse]
	}
	var p parsedEdit
	may := mayContain(text)
	if may("line") {
		if m := reLine.FindStringSubmatch(text); m != nil {
			p.line, _ = strconv.Atoi(m[1])
		}
	}
	switch {
	case may("use") && may("instead") && matchInto(reUseVar, text, func(m []string) {
		p.kind, p.new, p.old = editUseVar, m[1], m[2]
		if m[3] != "" {
			p.before = m[3]
			p.after = replaceToken(m[3], m[2], m[1])
		} else {
			p.before, p.after = m[2], m[1]
		}
	}):
	case (may("change") || may("replace")) &&
		matchInto(reChange, text, func(m []string) { p.kind, p.before, p.after = editChange, m[1], m[2] }):
	case (may("remove") || may("delete") || may("drop")) &&
		matchInto(reRemove, text, func(m []string) { p.kind, p.before, p.after = editRemove, m[1], "pass" }):
	}
	return p
}

// mayContain returns a test of whether s can contain a lower-case word
// under a case-insensitive match: an ASCII s must hold it in some case; any
// other s may (Unicode case folding maps a few non-ASCII letters onto ASCII
// ones: ſ onto s, the Kelvin sign onto k). It lets the parser skip regular
// expressions that cannot match, which are most of the time it spends.
func mayContain(s string) func(word string) bool {
	always := func(string) bool { return true }
	if !prefilter {
		return always
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return always
		}
	}
	lower := strings.ToLower(s)
	return func(word string) bool { return strings.Contains(lower, word) }
}

// prefilter switches mayContain on; tests switch it off to compare.
var prefilter = true

func matchInto(re *regexp.Regexp, s string, fn func([]string)) bool {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	fn(m)
	return true
}

// replaceToken replaces whole-token occurrences of old in s by repl.
func replaceToken(s, old, repl string) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		j := strings.Index(s[i:], old)
		if j < 0 {
			break
		}
		j += i
		end := j + len(old)
		leftOK := j == 0 || !isIdentPart(s[j-1])
		rightOK := end == len(s) || !isIdentPart(s[end])
		b.WriteString(s[i:j])
		if leftOK && rightOK {
			b.WriteString(repl)
		} else {
			b.WriteString(old)
		}
		i = end
	}
	b.WriteString(s[i:])
	return b.String()
}

// suspicion reads a diagnosis's ranked suspicious lines ("- line N (score)")
// and its "most likely" line.
type suspicion struct {
	rank   map[int]int
	score  map[int]float64
	likely int
}

func parseSuspicion(diagnosis string) suspicion {
	if len(diagnosis) > 4*maxEditParse {
		diagnosis = diagnosis[:4*maxEditParse]
	}
	s := suspicion{rank: map[int]int{}, score: map[int]float64{}}
	var found [][]string
	if !prefilter || strings.Contains(diagnosis, "line") {
		found = reSuspect.FindAllStringSubmatch(diagnosis, 32)
	}
	for i, m := range found {
		l, _ := strconv.Atoi(m[1])
		if _, ok := s.rank[l]; ok {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		s.rank[l], s.score[l] = i, v
	}
	if !mayContain(diagnosis)("most likely") {
		return s
	}
	if m := reLikely.FindStringSubmatch(diagnosis); m != nil {
		s.likely, _ = strconv.Atoi(m[1])
	}
	return s
}

// tokenDiff returns the tokens of before missing from after and those of
// after missing from before (multiset difference, in order).
func tokenDiff(before, after string) (removed, added []string) {
	tb, ta := codeTokens(before), codeTokens(after)
	cnt := map[string]int{}
	for _, t := range ta {
		cnt[t]++
	}
	for _, t := range tb {
		if cnt[t] > 0 {
			cnt[t]--
			continue
		}
		removed = append(removed, t)
	}
	cnt = map[string]int{}
	for _, t := range tb {
		cnt[t]++
	}
	for _, t := range ta {
		if cnt[t] > 0 {
			cnt[t]--
			continue
		}
		added = append(added, t)
	}
	return removed, added
}
