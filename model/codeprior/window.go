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

// keywords are Python's keywords.
var keywords = func() map[string]bool {
	m := make(map[string]bool, len(keywordNames))
	for _, k := range keywordNames {
		m[k] = true
	}
	return m
}()

// unaryKeywords make a line trivial when one value follows them (return x,
// raise Error, import os).
var unaryKeywords = map[string]bool{"return": true, "yield": true, "raise": true, "del": true,
	"global": true, "nonlocal": true, "import": true, "assert": true}

// trivialLine reports whether a normalised line says too little to mark
// shared code: it does nothing a task could be recognised by. That is a
// line of punctuation; a lone keyword or value (pass, else:, a docstring);
// a decorator (@property); a plain binding of one value to a name or an
// attribute (self.items = items, n = 0, NAME = "text"); or a keyword with
// one value (return x, raise ValueError, import os). A value is a literal,
// an empty list, dict or tuple, a name or a dotted chain of names. Without the bindings, windows of
// boilerplate that every class has (three self.a = a in a row) matched
// thousands of unrelated files.
func trivialLine(line []normTok) bool {
	var toks []normTok
	for _, t := range line {
		if t.role != 0 || t.sym != ":" && t.sym != ";" { // a header's colon says nothing
			toks = append(toks, t)
		}
	}
	value := func(i int) int { // the end of a value starting at i, or -1
		switch {
		case i >= len(toks):
			return -1
		case toks[i].role == 0 && slices.Contains(literalSymbols, toks[i].sym):
			return i + 1
		case i+1 < len(toks) && toks[i].role == 0 && toks[i+1].role == 0 &&
			slices.Contains([]string{"[]", "{}", "()"}, toks[i].sym+toks[i+1].sym):
			return i + 2 // an empty list, dict or tuple
		case toks[i].role == 0 && (isOp(toks[i].sym) || keywords[toks[i].sym] && toks[i].sym != "None" &&
			toks[i].sym != "True" && toks[i].sym != "False"):
			return -1
		}
		j := i + 1
		for j+1 < len(toks) && toks[j].role == 0 && toks[j].sym == "." && (toks[j+1].role != 0 || !isOp(toks[j+1].sym)) {
			j += 2
		}
		return j
	}
	isKw := func(i int) bool { return i < len(toks) && toks[i].role == 0 && keywords[toks[i].sym] }
	words := 0
	for _, t := range toks {
		if t.role != 0 || !isOp(t.sym) {
			words++
		}
	}
	switch {
	case words == 0:
		return true
	case len(toks) == 1:
		return isKw(0) || value(0) == 1
	case toks[0].role == 0 && toks[0].sym == "@":
		return value(1) == len(toks)
	case isKw(0) && unaryKeywords[toks[0].sym]:
		return value(1) == len(toks)
	}
	e := value(0)
	return e > 0 && e < len(toks) && toks[e].role == 0 && toks[e].sym == "=" && value(e+1) == len(toks)
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
