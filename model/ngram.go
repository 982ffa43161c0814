package model

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// NGram is a token n-gram language model of correct code with hashed
// counts: the bag architecture's stand-in for what a pretrained code model
// knows about how programs look. It is fitted on the programs that pass
// every test in the training split (CodeTriage's corpora hold them: every
// fix) and stored in the checkpoint. An edit that makes its line more
// natural under it tends to undo a bug; that difference (LogProb of the
// line after the edit minus before) is one of the bag model's inputs.
//
// P(w | ctx) interpolates relative frequencies of orders Order..1 with
// fixed weights, plus a floor, so every line has a finite log-probability.
type NGram struct {
	Order int
	// Counts[h] is the count of the n-gram or context whose salted hash
	// (mod len(Counts)) is h, saturating. len(Counts) is a power of two.
	Counts []int32
	// Vocab is the number of distinct tokens seen.
	Vocab int
}

// ErrNGram reports an unusable n-gram table.
var ErrNGram = errors.New("n-gram model")

// NewNGram returns an empty model of the given order (1..4) with 2^bits
// hashed counters.
func NewNGram(order, bits int) (*NGram, error) {
	if order < 1 || order > 4 {
		return nil, fmt.Errorf("%w: order %d, want 1..4", ErrNGram, order)
	}
	if bits < 8 || bits > 26 {
		return nil, fmt.Errorf("%w: %d hash bits, want 8..26", ErrNGram, bits)
	}
	return &NGram{Order: order, Counts: make([]int32, 1<<bits)}, nil
}

// Validate checks a loaded model.
func (m *NGram) Validate() error {
	n := len(m.Counts)
	if m.Order < 1 || m.Order > 4 || n < 256 || n&(n-1) != 0 || m.Vocab < 0 {
		return fmt.Errorf("%w: order %d, %d counters, vocab %d", ErrNGram, m.Order, n, m.Vocab)
	}
	for i, c := range m.Counts {
		if c < 0 {
			return fmt.Errorf("%w: counter %d is negative", ErrNGram, i)
		}
	}
	return nil
}

const (
	ngramBOS = "\x00<s>"
	ngramEOS = "\x00</s>"
)

// lineTokens returns the tokens of one line framed by Order−1 starts and an end.
func (m *NGram) lineTokens(line string) []string {
	t := make([]string, 0, 16)
	for i := 1; i < m.Order; i++ {
		t = append(t, ngramBOS)
	}
	t = append(t, codeTokens(line)...)
	return append(t, ngramEOS)
}

// slot hashes a token sequence; ctx marks a context count (the sequence
// without its last token) as opposed to an n-gram count.
func (m *NGram) slot(toks []string, ctx bool) int {
	h := fnv.New64a()
	var tag [2]byte
	tag[0] = byte(len(toks))
	if ctx {
		tag[1] = 1
	}
	h.Write(tag[:])
	for _, t := range toks {
		h.Write([]byte(t))
		h.Write([]byte{0xff})
	}
	return int(h.Sum64() & uint64(len(m.Counts)-1))
}

func (m *NGram) add(i int) {
	if m.Counts[i] < math.MaxInt32 {
		m.Counts[i]++
	}
}

// Fit adds the lines of a program to the counts.
func (m *NGram) Fit(program string, seen map[string]bool) {
	for _, line := range strings.Split(program, "\n") {
		t := m.lineTokens(line)
		for i := m.Order - 1; i < len(t); i++ {
			if seen != nil && !seen[t[i]] {
				seen[t[i]] = true
				m.Vocab++
			}
			for k := 1; k <= m.Order; k++ {
				g := t[i-k+1 : i+1]
				m.add(m.slot(g, false))
				m.add(m.slot(g[:k-1], true))
			}
		}
	}
}

// interpolation weights, highest order first.
var ngramWeights = [4][]float64{
	{1},
	{0.7, 0.3},
	{0.6, 0.3, 0.1},
	{0.5, 0.25, 0.15, 0.1},
}

// LogProb is the natural-log probability of one line of code (its tokens
// and the line end).
func (m *NGram) LogProb(line string) float64 {
	t := m.lineTokens(line)
	w := ngramWeights[m.Order-1]
	floor := 1e-4 / float64(m.Vocab+1)
	var s float64
	for i := m.Order - 1; i < len(t); i++ {
		p := floor
		for j, k := 0, m.Order; k >= 1; j, k = j+1, k-1 {
			g := t[i-k+1 : i+1]
			if c := m.Counts[m.slot(g[:k-1], true)]; c > 0 {
				p += w[j] * math.Min(1, float64(m.Counts[m.slot(g, false)])/float64(c))
			}
		}
		s += math.Log(p)
	}
	return s
}
