package policy

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParamSet maps policy names to their hyperparameters: the JSON file that
// `triage tune` writes and `triage eval --params` reads, e.g.
// {"rex": {"C": 20}}.
type ParamSet map[string]Params

// ReadParamSet parses a ParamSet from JSON, rejecting unknown policies and
// hyperparameters (each is checked by building the policy).
func ReadParamSet(r io.Reader) (ParamSet, error) {
	var ps ParamSet
	dec := json.NewDecoder(r)
	if err := dec.Decode(&ps); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	for name, p := range ps {
		if err := CheckParams(name, p); err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
	}
	return ps, nil
}

// GridPoint is one assignment of a tuning grid.
type GridPoint = Params

// ParseGrid parses a grid such as "C=1,5,10,20;beta=0.7,0.8" into every
// combination of its values, in order (the first key varies slowest).
func ParseGrid(spec string) ([]GridPoint, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return []GridPoint{{}}, nil
	}
	type axis struct {
		key  string
		vals []float64
	}
	var axes []axis
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ";") {
		key, list, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("grid %q: want key=v1,v2,... separated by ';'", part)
		}
		if seen[key] {
			return nil, fmt.Errorf("grid: key %q given twice", key)
		}
		seen[key] = true
		var vals []float64
		for _, s := range strings.Split(list, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("grid %s: bad value %q", key, s)
			}
			vals = append(vals, v)
		}
		axes = append(axes, axis{key, vals})
	}
	points := []GridPoint{{}}
	for _, a := range axes {
		var next []GridPoint
		for _, p := range points {
			for _, v := range a.vals {
				q := Params{}
				for k, x := range p {
					q[k] = x
				}
				q[a.key] = v
				next = append(next, q)
			}
		}
		points = next
		if len(points) > 10000 {
			return nil, fmt.Errorf("grid: more than 10000 points")
		}
	}
	return points, nil
}

// String formats p as "k=v,k=v" with sorted keys.
func (p Params) String() string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%g", k, p[k])
	}
	return b.String()
}
