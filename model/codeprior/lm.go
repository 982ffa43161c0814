package codeprior

import (
	"math"
	"slices"
)

// lm is a backoff n-gram model of symbol ids in the form ARPA files and
// KenLM use: for an n-gram (h, w) that the model keeps, log p(w | h) is
// stored; otherwise p(w | h) = b(h) · p(w | h minus its first symbol),
// with b(h) = 1 when h is not kept either. The stored values come from an
// interpolated modified Kneser–Ney estimate (fit.go), pruned and quantised;
// the backoff weights are recomputed after both so that every context's
// distribution sums to one.
type lm struct {
	order int
	// uni[w] is log p(w) and uniBack[w] log b(w); uni[<s>] is
	// noProb: <s> is never predicted.
	uni, uniBack []float32
	// For orders n = 2..order, index n-2: the kept n-grams' keys (the ids
	// packed first-symbol-most-significant, sorted), their log-probability
	// codes into book, and (below the top order) their log backoff in
	// units of 1/backScale.
	keys  [][]gram
	codes [][]uint8
	book  [][]float32
	back  [][]int32
}

// noProb is the stored log-probability of a symbol the model never
// predicts (<s>).
const noProb = -99

// backScale is the resolution of stored log backoff weights (written as
// varints: two bytes where |log b| < 2), and maxBack bounds them.
const (
	backScale = 1 << 12
	maxBack   = 64 * backScale
)

// find returns the index of key among the kept n-grams of order n ≥ 2.
func (m *lm) find(n int, key gram) (int, bool) {
	return slices.BinarySearchFunc(m.keys[n-2], key, cmpGram)
}

// ctxIndex is the index of key's context in the table of the order below
// (the symbol itself for order 2).
func (m *lm) ctxIndex(n int, key gram) (uint64, bool) {
	c := key.ctx()
	if n == 2 {
		return c.lo, c.hi == 0 && c.lo < uint64(len(m.uni))
	}
	i, ok := m.find(n-1, c)
	return uint64(i), ok
}

// logBack is the log backoff weight of context h (a kept n-gram of any
// order below the top, or 0 when it is not kept).
func (m *lm) logBack(h []uint16) float64 {
	if len(h) == 1 {
		return float64(m.uniBack[h[0]])
	}
	if i, ok := m.find(len(h), pack(h)); ok {
		return float64(m.back[len(h)-2][i]) / backScale
	}
	return 0
}

// logProb is the natural-log probability of w after ctx (the symbols
// before it; only the last order-1 count).
func (m *lm) logProb(ctx []uint16, w uint16) float64 {
	if len(ctx) > m.order-1 {
		ctx = ctx[len(ctx)-(m.order-1):]
	}
	var back float64
	for n := len(ctx) + 1; n >= 2; n-- {
		h := ctx[len(ctx)-(n-1):]
		if i, ok := m.find(n, pack(h).push(w)); ok {
			return back + float64(m.book[n-2][m.codes[n-2][i]])
		}
		back += m.logBack(h)
	}
	return back + float64(m.uni[w])
}

// entries is the number of kept n-grams of every order.
func (m *lm) entries() []int {
	e := []int{len(m.uni)}
	for _, k := range m.keys {
		e = append(e, len(k))
	}
	return e
}

// logProbs scores a symbol sequence that starts with <s>: out[i] is the
// log-probability of seq[i] after the symbols before it (out[0], for <s>,
// is 0).
func (m *lm) logProbs(seq []uint16) []float64 {
	out := make([]float64, len(seq))
	for i := 1; i < len(seq); i++ {
		lo := max(0, i-(m.order-1))
		out[i] = m.logProb(seq[lo:i], seq[i])
	}
	return out
}

// finite reports whether a stored value is a usable log value.
func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
