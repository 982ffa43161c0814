package policy_test

import (
	"math"
	"strings"
	"testing"

	"triage/policy"
)

func TestParseGrid(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []string
		bad  bool
	}{
		{"", []string{""}, false},
		{"C=1,5,10,20", []string{"C=1", "C=5", "C=10", "C=20"}, false},
		{"C=0.5,0.7; beta=0.8", []string{"C=0.5,beta=0.8", "C=0.7,beta=0.8"}, false},
		{"C", nil, true},
		{"C=1;C=2", nil, true},
		{"C=x", nil, true},
		{"C=NaN", nil, true},
		{"=1", nil, true},
	} {
		got, err := policy.ParseGrid(c.spec)
		if c.bad {
			if err == nil {
				t.Errorf("ParseGrid(%q) = %v, want an error", c.spec, got)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ParseGrid(%q): %v", c.spec, err)
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if strings.Join(s, "|") != strings.Join(c.want, "|") {
			t.Errorf("ParseGrid(%q) = %v, want %v", c.spec, s, c.want)
		}
	}
}

func TestReadParamSet(t *testing.T) {
	ps, err := policy.ReadParamSet(strings.NewReader(`{"rex": {"C": 5}, "uct": {"C": 0.5, "beta": 0.8}, "hybrid": {"C": 2, "temp": 0.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ps["rex"]["C"] != 5 || ps["uct"]["beta"] != 0.8 || ps["hybrid"]["temp"] != 0.5 {
		t.Errorf("got %v", ps)
	}
	for _, bad := range []string{`{"rex": {"C": -1}}`, `{"nosuch": {}}`, `{"rex": {"D": 1}}`, `{"hybrid": {"temp": 0}}`, `{"hybrid": {"norm": 0.5}}`, `{"learned": {"C": 1}}`, `[1]`, `{`} {
		if _, err := policy.ReadParamSet(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadParamSet(%s) = nil error", bad)
		}
	}
}

func FuzzParseGrid(f *testing.F) {
	for _, s := range []string{"C=1,5", "C=1;beta=0.5,0.8", "", ";", "a=1e308,-1e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		pts, err := policy.ParseGrid(spec)
		if err != nil {
			return
		}
		for _, p := range pts {
			for k, v := range p {
				if math.IsNaN(v) || math.IsInf(v, 0) || k == "" {
					t.Fatalf("ParseGrid(%q) gave %s=%v", spec, k, v)
				}
			}
		}
	})
}

func FuzzReadParamSet(f *testing.F) {
	for _, s := range []string{`{"rex": {"C": 5}}`, `{}`, `{"bgmcts": {"budget": 4}}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := policy.ReadParamSet(strings.NewReader(s))
		if err != nil {
			return
		}
		for name, p := range ps {
			if err := policy.CheckParams(name, p); err != nil {
				t.Fatalf("accepted %s %v that CheckParams rejects: %v", name, p, err)
			}
		}
	})
}
