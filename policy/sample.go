package policy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"triage/corpus"
)

// gammaSample draws from Gamma(shape, 1) by Marsaglia and Tsang's method
// (shape < 1 via the boost Gamma(shape+1)·U^(1/shape)). shape must be > 0.
func gammaSample(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return gammaSample(r, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// betaSample draws from Beta(a, b), a, b > 0.
func betaSample(r *rand.Rand, a, b float64) float64 {
	x := gammaSample(r, a)
	y := gammaSample(r, b)
	if x+y == 0 {
		return 0.5
	}
	return x / (x + y)
}

// keyedRand gives an order-independent random stream per key: reseeding one
// PCG from (per-Ask salt, key) makes the draws for a node independent of the
// order in which nodes are visited.
type keyedRand struct {
	pcg *rand.PCG
	r   *rand.Rand
}

func newKeyedRand() keyedRand {
	p := rand.NewPCG(0, 0)
	return keyedRand{pcg: p, r: rand.New(p)}
}

// at reseeds the stream for (salt, key) and returns it.
func (k keyedRand) at(salt uint64, key int) *rand.Rand {
	k.pcg.Seed(salt, mix64(uint64(key)+0x632be59bd9b4e019))
	return k.r
}

func errEdgeRange(e corpus.EdgeID, n int) error {
	return fmt.Errorf("edge %d out of range [0, %d)", e, n)
}
