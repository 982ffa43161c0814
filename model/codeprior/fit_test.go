package codeprior

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Ids of the small test vocabulary: <s>, </s>, <unk>, then words.
const (
	tBOS = iota
	tEOS
	tUnk
	tA
	tB
	tC
	tD
	tVocab
)

func testSeqs(progs ...[]uint16) *sequences {
	s := &sequences{}
	for _, p := range progs {
		s.add(append(append([]uint16{tBOS}, p...), tEOS))
	}
	return s
}

// TestUnigramKnownExample checks a unigram model against numbers worked
// by hand. One program "a a b": counts a 2, b 1, </s> 1; counts of counts
// n1 = 2, n2 = 1, n3 = n4 = 0, so Y = 2/(2+2) = 0.5, D1 = 1 - 2·0.5·1/2 =
// 0.5, D2 = 2 - 3·0.5·0/1 = 2, D3+ = 1.5 (n3 = 0: the fallback). The mass
// taken, γ = (0.5·2 + 2·1)/4 = 0.75, is spread over the 6 symbols that can
// be predicted (every id but <s>): p(a) = (2-2)/4 + 0.75/6 = 0.125,
// p(b) = p(</s>) = (1-0.5)/4 + 0.125 = 0.25, p(<unk>) = p(c) = p(d) = 0.125.
func TestUnigramKnownExample(t *testing.T) {
	counts := countNGrams(testSeqs([]uint16{tA, tA, tB}), 1, tVocab, tBOS)
	m, ds, err := buildLM(counts, []int{1}, tBOS)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0] != [3]float64{0.5, 2, 1.5} {
		t.Errorf("discounts %v, want [0.5 2 1.5]", ds[0])
	}
	want := map[uint16]float64{tA: 0.125, tB: 0.25, tEOS: 0.25, tUnk: 0.125, tC: 0.125, tD: 0.125}
	for w, p := range want {
		if got := math.Exp(m.logProb(nil, w)); math.Abs(got-p) > 1e-7 {
			t.Errorf("p(%d) = %v, want %v", w, got, p)
		}
	}
}

// refKN is interpolated modified Kneser–Ney written from its definition
// with maps: the reference the sort-based fit is compared with.
type refKN struct {
	order int
	adj   []map[string]float64 // adjusted counts by order, keyed by the n-gram
	ds    [][3]float64
}

func key(ids []uint16) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}

func newRefKN(progs [][]uint16, order int) *refKN {
	r := &refKN{order: order}
	raw := make([]map[string]float64, order+1)
	for n := 1; n <= order; n++ {
		raw[n] = map[string]float64{}
		for _, p := range progs {
			seq := append(append([]uint16{tBOS}, p...), tEOS)
			for end := max(n-1, 1); end < len(seq); end++ {
				raw[n][key(seq[end-n+1:end+1])]++
			}
		}
	}
	r.adj = make([]map[string]float64, order+1)
	r.ds = make([][3]float64, order+1)
	for n := 1; n <= order; n++ {
		r.adj[n] = map[string]float64{}
		for g, c := range raw[n] {
			switch {
			case n == order || g[0] == tBOS:
				r.adj[n][g] = c
			default:
				left := 0.0
				for up := range raw[n+1] {
					if up[1:] == g {
						left++
					}
				}
				r.adj[n][g] = left
			}
		}
		var adj []uint32
		for _, a := range r.adj[n] {
			adj = append(adj, uint32(a))
		}
		r.ds[n] = discounts(adj)
	}
	return r
}

func (r *refKN) prob(ctx []uint16, w uint16) float64 {
	n := len(ctx) + 1
	lower := 1.0 / (tVocab - 1)
	if n > 1 {
		lower = r.prob(ctx[1:], w)
	}
	var sum, mass float64
	for g, a := range r.adj[n] {
		if g[:n-1] == key(ctx) {
			sum += a
			mass += discount(r.ds[n], uint32(a))
		}
	}
	if sum == 0 {
		return lower
	}
	a := r.adj[n][key(append(append([]uint16{}, ctx...), w))]
	return math.Max(a-discount(r.ds[n], uint32(a)), 0)/sum + mass/sum*lower
}

// smallCorpus is a few programs over the test vocabulary.
var smallCorpus = [][]uint16{
	{tA, tB, tC, tA, tB, tD},
	{tA, tB, tC},
	{tB, tC, tA, tB, tC, tC, tD},
	{tD, tA, tB},
	{tA},
	{tC, tB, tA, tB, tC, tA},
}

// contexts returns every context of length order-1 over the vocabulary
// (and the shorter ones that start with <s>).
func contexts(order int) [][]uint16 {
	out := [][]uint16{{}}
	for n := 1; n < order; n++ {
		var next [][]uint16
		for _, c := range out {
			for w := uint16(0); w < tVocab; w++ {
				if w == tBOS && len(c) > 0 {
					continue // <s> only opens a program
				}
				next = append(next, append(append([]uint16{}, c...), w))
			}
		}
		out = next
	}
	return out
}

// TestKNMatchesDefinition: unpruned, the stored backoff model gives the
// interpolated estimate of the definition for every context and symbol.
func TestKNMatchesDefinition(t *testing.T) {
	for _, order := range []int{3, 7} {
		knMatchesDefinition(t, order)
	}
}

func knMatchesDefinition(t *testing.T, order int) {
	ref := newRefKN(smallCorpus, order)
	counts := countNGrams(testSeqs(smallCorpus...), order, tVocab, tBOS)
	minCount := make([]int, order)
	for i := range minCount {
		minCount[i] = 1
	}
	m, ds, err := buildLM(counts, minCount, tBOS)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= order; n++ {
		if ds[n-1] != ref.ds[n] {
			t.Errorf("order %d: discounts %v, want %v", n, ds[n-1], ref.ds[n])
		}
	}
	checked := 0
	ctxs := contexts(min(order, 3))
	for _, p := range smallCorpus { // and the long contexts of the programs
		seq := append([]uint16{tBOS}, p...)
		for i := range seq {
			ctxs = append(ctxs, seq[max(0, i-order+2):i+1])
		}
	}
	for _, ctx := range ctxs {
		for w := uint16(1); w < tVocab; w++ {
			got, want := math.Exp(m.logProb(ctx, w)), ref.prob(ctx, w)
			if math.Abs(got-want) > 3e-4*want+1e-9 { // float32, and 1/4096 in the log backoff
				t.Errorf("order %d: p(%d | %v) = %v, want %v", order, w, ctx, got, want)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("checked %d probabilities", checked)
	}
}

// TestKNSumsToOne: every context's distribution over the vocabulary (less
// <s>) sums to one, pruned or not, on seen and unseen contexts.
func TestKNSumsToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var progs [][]uint16
	for range 40 {
		p := make([]uint16, 3+rng.IntN(12))
		for i := range p {
			p[i] = tA + uint16(rng.IntN(tVocab-tA))
		}
		progs = append(progs, p)
	}
	for _, c := range []struct {
		order    int
		minCount []int
	}{
		{2, []int{1, 1}}, {3, []int{1, 1, 1}}, {4, []int{1, 2, 2, 3}}, {5, []int{1, 1, 2, 2, 2}}, {4, []int{1, 100, 100, 100}},
		{7, []int{1, 1, 1, 1, 1, 1, 1}}, {8, []int{1, 2, 2, 2, 2, 2, 2, 2}},
	} {
		counts := countNGrams(testSeqs(progs...), c.order, tVocab, tBOS)
		m, _, err := buildLM(counts, c.minCount, tBOS)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		ctxs := contexts(min(c.order, 4))
		for _, p := range progs { // and every long context of the programs
			seq := append([]uint16{tBOS}, p...)
			for i := range seq {
				ctxs = append(ctxs, seq[max(0, i-c.order+2):i+1])
			}
		}
		for _, ctx := range ctxs {
			sum := 0.0
			for w := uint16(1); w < tVocab; w++ {
				sum += math.Exp(m.logProb(ctx, w))
			}
			worst = max(worst, math.Abs(sum-1))
		}
		if worst > 3e-4 {
			t.Errorf("order %d, cutoffs %v: a context sums to 1 ± %v", c.order, c.minCount, worst)
		}
		if math.Exp(float64(m.uni[tBOS])) > 1e-30 {
			t.Errorf("order %d: <s> is predicted", c.order)
		}
	}
}

func TestQuantize(t *testing.T) {
	vals := []float64{-1, -2, -2, -3}
	book, codes := quantize(vals)
	for i, v := range vals {
		if float64(book[codes[i]]) != v {
			t.Errorf("%v coded as %v with only 3 distinct values", v, book[codes[i]])
		}
	}
	many := make([]float64, 10000)
	for i := range many {
		many[i] = -float64(i) / 1000
	}
	book, codes = quantize(many)
	if len(book) != 256 {
		t.Fatalf("codebook of %d values", len(book))
	}
	for i, v := range many {
		if math.Abs(float64(book[codes[i]])-v) > 0.03 {
			t.Errorf("%v coded as %v", v, book[codes[i]])
		}
	}
}
