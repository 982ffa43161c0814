// Package codeprior is a prior of Python from code outside the task
// corpora: an identifier-abstracted n-gram language model (interpolated
// modified Kneser–Ney, pruned and quantised into one artifact) fitted on the
// interpreter's standard library and Debian's Python packages, with every
// file that shares code with a task reference left out. It stands in for
// what a pretrained code model brings to repair and a model trained from
// scratch on repair trees lacks: how Python usually looks. Its inputs to
// the priority model are the change in log-probability that an edit makes
// to the edited lines and to the program (EditFeatures). docs/prior.md
// says what is in it and how to rebuild it.
//
// Imports: nothing of triage.
package codeprior

import (
	"fmt"
	"strings"
)

// Model is a loaded code prior. It is read-only and safe for concurrent use.
type Model struct {
	header *Header
	vocab  *vocab
	lm     *lm
}

// Load reads an artifact written by Build, checking every table.
func Load(data []byte) (*Model, error) {
	h, m, err := decode(data)
	if err != nil {
		return nil, err
	}
	v, err := newVocab(h.Vocab)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArtifact, err)
	}
	return &Model{header: h, vocab: v, lm: m}, nil
}

// Header returns the artifact's metadata (a copy; its slices are shared
// and must not be modified).
func (m *Model) Header() Header { return *m.header }

// Order is the model's n-gram order.
func (m *Model) Order() int { return m.lm.order }

// TokenScore is one symbol of a scored program.
type TokenScore struct {
	// Line is the 1-based line the symbol is charged to: a token's own
	// line, a line end's last line, an indentation change's next line.
	Line int
	// Symbol is the abstracted token ("for", "<v0>", "<nl>", "</s>").
	Symbol string
	// LogProb is its natural-log probability after the symbols before it.
	LogProb float64
}

// Score is a program scored symbol by symbol.
type Score struct {
	// Tokens are every symbol after the start, through the end (</s>).
	Tokens []TokenScore
	// Total is the sum of their log-probabilities.
	Total float64
}

// Mean is the mean log-probability per symbol (0 without symbols).
func (s Score) Mean() float64 {
	if len(s.Tokens) == 0 {
		return 0
	}
	return s.Total / float64(len(s.Tokens))
}

// Lines sums the log-probabilities of the symbols charged to lines from..to
// (1-based, inclusive) and counts them.
func (s Score) Lines(from, to int) (total float64, n int) {
	for _, t := range s.Tokens {
		if t.Line >= from && t.Line <= to {
			total += t.LogProb
			n++
		}
	}
	return total, n
}

// Program scores a whole program.
func (m *Model) Program(src string) Score {
	syms := m.vocab.symbols(src)
	ids := make([]uint16, len(syms))
	for i, s := range syms {
		ids[i] = s.id
	}
	lp := m.lm.logProbs(ids)
	sc := Score{Tokens: make([]TokenScore, 0, len(syms)-1)}
	for i := 1; i < len(syms); i++ {
		sc.Tokens = append(sc.Tokens, TokenScore{Line: int(syms[i].line), Symbol: m.vocab.syms[ids[i]], LogProb: lp[i]})
		sc.Total += lp[i]
	}
	return sc
}

// Line scores one line of code on its own, its indentation removed: its
// symbols and its line end, without the program's end.
func (m *Model) Line(line string) Score {
	sc := m.Program(strings.TrimLeft(line, " \t\f"))
	if n := len(sc.Tokens); n > 0 {
		sc.Total -= sc.Tokens[n-1].LogProb
		sc.Tokens = sc.Tokens[:n-1]
	}
	return sc
}

// EditFeatures are what the prior says of an edit that turned a parent
// program into a child: the change in log-probability of the lines it
// edited and of the whole program.
type EditFeatures struct {
	// Lines is the log-probability of the child's edited lines minus that
	// of the parent lines they replace, each scored in its whole program;
	// LinesMean is the same per symbol (a side without symbols counts 0).
	Lines, LinesMean float64
	// Program is the child's total log-probability minus the parent's;
	// ProgramMean the change in the mean per symbol.
	Program, ProgramMean float64
	// ParentLines and ChildLines are the edited line ranges, 1-based and
	// inclusive ([from, from-1] when a side has none: a pure insertion or
	// deletion); the lines outside them are the programs' common prefix
	// and suffix.
	ParentLines, ChildLines [2]int
	// ParentSymbols and ChildSymbols count the symbols in those lines.
	ParentSymbols, ChildSymbols int
}

// EditFeatures scores parent and child and compares them. Identical
// programs give zero features.
func (m *Model) EditFeatures(parent, child string) EditFeatures {
	return m.EditFeaturesFrom(m.Program(parent), parent, child)
}

// EditFeaturesFrom is EditFeatures with the parent already scored (ps =
// m.Program(parent)): a parent's edits share its score.
func (m *Model) EditFeaturesFrom(ps Score, parent, child string) EditFeatures {
	cs := m.Program(child)
	pl, cl := EditedLines(parent, child)
	f := EditFeatures{ParentLines: pl, ChildLines: cl, Program: cs.Total - ps.Total, ProgramMean: cs.Mean() - ps.Mean()}
	var pt, ct float64
	pt, f.ParentSymbols = ps.Lines(pl[0], pl[1])
	ct, f.ChildSymbols = cs.Lines(cl[0], cl[1])
	f.Lines = ct - pt
	f.LinesMean = meanOf(ct, f.ChildSymbols) - meanOf(pt, f.ParentSymbols)
	return f
}

func meanOf(total float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return total / float64(n)
}

// ApplyEdit returns the child program an edit text describes, for scoring
// an edit before it is expanded: parent with the first occurrence of before
// in its line `line` (1-based) replaced by after, or, where that line does
// not hold it (or line is 0), the first occurrence in the whole program.
// The edit forms the proposers write ("Line 3: change `A` to `B`", "use
// `x` instead of `y` in `L`", "remove `S`") give line, before and after
// (model's parseEdit reads them). ok is false when before is empty or
// occurs nowhere.
func ApplyEdit(parent string, line int, before, after string) (child string, ok bool) {
	if before == "" {
		return parent, false
	}
	if line > 0 {
		start := 0
		for i := 1; i < line && start >= 0; i++ {
			if j := strings.IndexByte(parent[start:], '\n'); j >= 0 {
				start += j + 1
			} else {
				start = -1
			}
		}
		if start >= 0 {
			end := len(parent)
			if j := strings.IndexByte(parent[start:], '\n'); j >= 0 {
				end = start + j
			}
			if k := strings.Index(parent[start:end], before); k >= 0 {
				at := start + k
				return parent[:at] + after + parent[at+len(before):], true
			}
		}
	}
	if k := strings.Index(parent, before); k >= 0 {
		return parent[:k] + after + parent[k+len(before):], true
	}
	return parent, false
}

// EditedLines returns the lines of parent and child that differ: what is
// left of each once their longest common prefix and suffix of lines are
// removed, as 1-based inclusive ranges.
func EditedLines(parent, child string) (p, c [2]int) {
	a, b := strings.Split(parent, "\n"), strings.Split(child, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && strings.TrimRight(a[pre], "\r") == strings.TrimRight(b[pre], "\r") {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre &&
		strings.TrimRight(a[len(a)-1-suf], "\r") == strings.TrimRight(b[len(b)-1-suf], "\r") {
		suf++
	}
	return [2]int{pre + 1, len(a) - suf}, [2]int{pre + 1, len(b) - suf}
}
