package codeprior

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		n := 1 + rng.IntN(maxOrder)
		ids := make([]uint16, n)
		for i := range ids {
			ids[i] = uint16(rng.IntN(maxVocab + 1))
		}
		g := pack(ids)
		back := make([]uint16, n)
		unpack(g, back)
		switch {
		case !slices.Equal(back, ids):
			t.Fatalf("unpack(pack(%v)) = %v", ids, back)
		case g.last() != ids[n-1] || g.ctx() != pack(ids[:n-1]):
			t.Fatalf("%v: last or context wrong", ids)
		case g.suffix(n-1) != pack(ids[1:]) || !g.fits(n) || n > 1 && ids[0] != 0 && g.fits(n-1):
			t.Fatalf("%v: suffix or fits wrong", ids)
		}
		other := make([]uint16, n)
		for i := range other {
			other[i] = uint16(rng.IntN(maxVocab + 1))
		}
		h := pack(other)
		if got := cmpGram(g, h); got != slices.Compare(ids, other) {
			t.Fatalf("cmp(%v, %v) = %d", ids, other, got)
		}
		if sum, over := h.add(g.sub(h)); sum != g || over != (cmpGram(g, h) < 0) {
			t.Fatalf("%v - %v + %v: %v, overflow %v", ids, other, other, sum, over)
		}
	}
}
