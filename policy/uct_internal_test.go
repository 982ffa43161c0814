package policy

import (
	"math"
	"testing"
)

// TestUCTValue pins the selection value to numbers worked out by hand
// (C = 0.7): V + C·sqrt(2·ln N_parent / N), and V + 1 for N = 0. TSAPR
// selects with it (search/tsapr), whose scripted search checks the same
// values in its rounds.
func TestUCTValue(t *testing.T) {
	tests := []struct {
		v       float64
		n       int32
		nParent float64
		want    float64
	}{
		{0.5, 1, 2, 1.3241870157608322},
		{0.35, 1, 3, 1.3876126651572576},
		{0.2, 4, 10, 0.9510881092012715},
		{-1, 0, 7, 0},
	}
	for _, tt := range tests {
		if got := uctValue(tt.v, tt.n, math.Log(tt.nParent), 0.7); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("uctValue(V %v, N %d, N_parent %v) = %v, want %v", tt.v, tt.n, tt.nParent, got, tt.want)
		}
	}
}
