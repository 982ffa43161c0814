package priority

import (
	"errors"
	"math"
	"testing"
)

func TestS(t *testing.T) {
	for _, c := range []struct {
		d    Dist
		b    int
		want float64
	}{
		{Dist{1, 0, 0, 0, 0}, 4, 1},
		{Dist{0, 0, 0, 0, 1}, 4, 0},
		{Dist{0, 1, 0, 0, 0}, 4, 0.75},     // F = 0,1,1,1
		{Dist{0.5, 0.5, 0, 0, 0}, 2, 0.75}, // F = .5, 1
		{Dist{0.5, 0.5, 0, 0, 0}, 1, 0.5},
		{Dist{0.1, 0.2, 0.3, 0.4, 0}, 4, (0.1 + 0.3 + 0.6 + 1.0) / 4},
	} {
		got, err := c.d.S(c.b)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v.S(%d) = %v, %v; want %v", c.d, c.b, got, err, c.want)
		}
	}
	for _, b := range []int{0, -1, 5} {
		if _, err := (Dist{0.2, 0.2, 0.2, 0.2, 0.2}).S(b); !errors.Is(err, ErrRemaining) {
			t.Errorf("S(%d) error = %v, want ErrRemaining", b, err)
		}
	}
	for _, bad := range []Dist{{}, {1}, {0.5, 0.6}, {-0.1, 1.1}, {math.NaN(), 1}, {math.Inf(1), 0}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%v) = nil", bad)
		}
	}
}

func TestEdgeValidateAndFeatures(t *testing.T) {
	ok := Edge{PassRate: 0.5, FailedFrac: 0.25, Depth: 2, MaxDepth: 4, Remaining: 2, Program: string(make([]byte, 4096))}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	f := ok.Features()
	want := [NumFeatures]float32{0.5, 0.5, 0.25, 1}
	for i := range f {
		if math.Abs(float64(f[i]-want[i])) > 1e-6 {
			t.Errorf("feature %d = %v, want %v", i, f[i], want[i])
		}
	}
	for _, bad := range []Edge{
		{PassRate: 1.5, MaxDepth: 4, Remaining: 4},
		{PassRate: math.NaN(), MaxDepth: 4, Remaining: 4},
		{FailedFrac: -1, MaxDepth: 4, Remaining: 4},
		{MaxDepth: 0},
		{MaxDepth: 1000, Remaining: 1000},
		{Depth: 4, MaxDepth: 4, Remaining: 0},
		{Depth: 1, MaxDepth: 4, Remaining: 4},
		{MaxDepth: 4, Remaining: 4, ProgramLen: -3},
	} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
}

func TestSoftmax(t *testing.T) {
	d := Softmax([]float32{1000, 1000, -1000})
	if err := d.Validate(); err != nil || math.Abs(d[0]-0.5) > 1e-12 || d[2] != 0 {
		t.Errorf("Softmax = %v, %v", d, err)
	}
}

func TestDistHorizon(t *testing.T) {
	d := Dist{0.1, 0.2, 0.3, 0.15, 0.25}
	cases := []struct {
		D    int
		want Dist
	}{
		{4, d}, {9, d}, {0, d},
		{3, Dist{0.1, 0.2, 0.3, 0.4}},
		{1, Dist{0.1, 0.9}},
	}
	for _, tc := range cases {
		got := d.Horizon(tc.D)
		if len(got) != len(tc.want) {
			t.Fatalf("D=%d: %v, want %v", tc.D, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Fatalf("D=%d: %v, want %v", tc.D, got, tc.want)
			}
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("D=%d: %v", tc.D, err)
		}
	}
	// s(e) at b ≤ D does not change when the horizon shrinks to D.
	for b := 1; b <= 2; b++ {
		full, _ := d.S(b)
		short, _ := d.Horizon(2).S(b)
		if math.Abs(full-short) > 1e-12 {
			t.Errorf("S(%d): %v, after Horizon(2) %v", b, full, short)
		}
	}
}
