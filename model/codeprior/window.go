package codeprior

import (
	"hash/fnv"
	"slices"
	"strconv"
)

// WindowLines is the number of consecutive non-trivial lines that two
// programs must share, after normalisation, to count as overlapping.
const WindowLines = 3

// normTok is one token of a normalised line: a fixed symbol, or a name
// whose placeholder is numbered within each window (role 'v' for a name,
// 'a' for an attribute after a dot).
type normTok struct {
	sym  string
	role byte
}

// normalizedLines returns the non-trivial logical lines of src in normal
// form: comments, whitespace and indentation gone, literals abstracted to
// their kinds and names not kept by the model to placeholders, as the model
// abstracts them (abstractTokens), except that a placeholder keeps its name
// until a window numbers it, so that a window is compared up to renaming.
func normalizedLines(src string) [][]normTok {
	var lines [][]normTok
	var cur []normTok
	afterDot := false
	for _, t := range lex(src) {
		switch t.kind {
		case kNewline:
			if !trivialLine(cur) {
				lines = append(lines, cur)
			}
			cur = nil
		case kIndent, kDedent:
		case kName:
			switch {
			case afterDot && (attrKept[t.text]), !afterDot && (bareKept[t.text]):
				cur = append(cur, normTok{sym: t.text})
			case afterDot:
				cur = append(cur, normTok{sym: t.text, role: 'a'})
			default:
				cur = append(cur, normTok{sym: t.text, role: 'v'})
			}
		case kNumber:
			cur = append(cur, normTok{sym: numberKind(t.text)})
		case kString:
			cur = append(cur, normTok{sym: stringKind(t.text)})
		case kOp:
			cur = append(cur, normTok{sym: t.text})
		default:
			cur = append(cur, normTok{sym: symUnk})
		}
		afterDot = t.kind == kOp && t.text == "."
	}
	if len(cur) > 0 && !trivialLine(cur) {
		lines = append(lines, cur)
	}
	return lines
}

// trivialKeywords are the keywords that make a line trivial when it holds
// nothing else but punctuation.
var trivialKeywords = map[string]bool{"pass": true, "return": true, "else": true, "try": true,
	"finally": true, "break": true, "continue": true, "None": true, "True": true, "False": true,
	"except": true, "yield": true, "raise": true, "global": true, "nonlocal": true, "del": true}

// trivialLine reports whether a normalised line says too little to mark
// shared code: it holds no name or literal, or a single one that is a
// literal or one of trivialKeywords (a lone pass, return, else:, a docstring,
// a closing bracket).
func trivialLine(line []normTok) bool {
	words := 0
	var word normTok
	for _, t := range line {
		if t.role != 0 || !isOp(t.sym) {
			words++
			word = t
		}
	}
	switch {
	case words == 0:
		return true
	case words > 1:
		return false
	case word.role != 0:
		return false
	}
	return trivialKeywords[word.sym] || slices.Contains(literalSymbols, word.sym)
}

// windowHashes returns the hash of every run of WindowLines consecutive
// normalised lines, with placeholders numbered by first use in the run.
func windowHashes(lines [][]normTok) []uint64 {
	if len(lines) < WindowLines {
		return nil
	}
	out := make([]uint64, 0, len(lines)-WindowLines+1)
	names := map[string]int{}
	for i := 0; i+WindowLines <= len(lines); i++ {
		clear(names)
		h := fnv.New64a()
		for _, line := range lines[i : i+WindowLines] {
			for _, t := range line {
				s := t.sym
				if t.role != 0 {
					key := string(t.role) + s
					n, ok := names[key]
					if !ok {
						n = len(names)
						names[key] = n
					}
					s = "\x01" + string(t.role) + strconv.Itoa(n)
				}
				h.Write([]byte(s))
				h.Write([]byte{0})
			}
			h.Write([]byte{'\n'})
		}
		out = append(out, h.Sum64())
	}
	return out
}

// Windows returns the distinct normalised windows of a program, sorted.
func Windows(src string) []uint64 {
	w := windowHashes(normalizedLines(src))
	slices.Sort(w)
	return slices.Compact(w)
}
