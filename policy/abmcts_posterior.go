package policy

import (
	"math"
	"math/rand/v2"
)

// posterior is the sufficient statistics of one Thompson arm of AB-MCTS-A
// (TreeQuest ab_mcts_a/prob_state.py): a Normal-Inverse-χ² posterior over
// the mean reward (Gaussian) or a Beta posterior (Beta).
type posterior struct {
	n    float64 // observations
	mean float64 // running mean (Welford)
	m2   float64 // sum of squared deviations from the mean
	sum  float64 // sum of rewards (Beta)
}

// tell adds one reward r in [0, 1].
func (p *posterior) tell(r float64) {
	p.n++
	d := r - p.mean
	p.mean += d / p.n
	p.m2 += d * (r - p.mean)
	p.sum += r
}

// Gaussian prior of TreeQuest: m = 0, κ = 1, ν = 1, τ² = 0.1.
const (
	gaussM      = 0.0
	gaussKappa  = 1.0
	gaussNu     = 1.0
	gaussTauSq  = 0.1
	betaPriorAB = 0.5 // Jeffreys prior Beta(0.5, 0.5)
)

// sampleGaussian draws the posterior mean μ: σ² ~ InvGamma(νn/2, νn·τ²n/2),
// μ ~ N(mn, sqrt(σ²/κn)) (Murphy PML2 §3.4.3.3, as in TreeQuest).
func (p *posterior) sampleGaussian(r *rand.Rand) float64 {
	kn := gaussKappa + p.n
	nn := gaussNu + p.n
	mn := (gaussKappa*gaussM + p.n*p.mean) / kn
	tn := (gaussNu*gaussTauSq + p.m2 + p.n*gaussKappa*(gaussM-p.mean)*(gaussM-p.mean)/(gaussKappa+p.n)) / nn
	sigma2 := (nn * tn / 2) / gammaSample(r, nn/2)
	return mn + r.NormFloat64()*math.Sqrt(sigma2/kn)
}

// sampleBeta draws from Beta(0.5 + Σr, 0.5 + Σ(1−r)).
func (p *posterior) sampleBeta(r *rand.Rand) float64 {
	return betaSample(r, betaPriorAB+p.sum, betaPriorAB+p.n-p.sum)
}
