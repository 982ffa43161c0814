package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// bagForward is the bag model's forward pass in plain Go, over weights
// copied out of the context once. It computes what BagNet.Logits computes,
// group by group and without padding: the model is a few small matrix
// products over pooled embeddings, for which a graph backend's per-call
// cost (compilation per shape, tensor transfers, padded gathers) is most of
// the time on a CPU. Training keeps the graph; scoring uses this.
type bagForward struct {
	embed, hidden, headHidden, bins int
	emb                             []float32 // [buckets, embed]
	denseMean, denseStd             []float32 // [len(BagDense)]
	encW, encB                      []float32 // [hidden, 3·embed + len(BagDense)], [hidden]
	featMean, featStd               []float32 // [NumFeatures]
	w0, b0                          []float32 // [headHidden, hidden + NumFeatures], [headHidden]
	w1, b1                          []float32 // [bins, headHidden], [bins]
}

// newBagForward copies n's variables out of mctx, checking every shape.
func newBagForward(n *BagNet, mctx *mlctx.Context) (*bagForward, error) {
	c := n.Config
	nd := len(c.Dense())
	f := &bagForward{embed: c.Embed, hidden: c.Hidden, headHidden: n.HeadHidden, bins: n.Bins}
	in := 3*c.Embed + nd
	for _, v := range []struct {
		key  string
		dst  *[]float32
		dims []int
	}{
		{BagScope + ".embed.weight", &f.emb, []int{c.Buckets, c.Embed}},
		{BagScope + ".dense_mean", &f.denseMean, []int{nd}},
		{BagScope + ".dense_std", &f.denseStd, []int{nd}},
		{BagScope + ".encoder.weight", &f.encW, []int{c.Hidden, in}},
		{BagScope + ".encoder.bias", &f.encB, []int{c.Hidden}},
		{HeadScope + ".feature_mean", &f.featMean, []int{NumFeatures}},
		{HeadScope + ".feature_std", &f.featStd, []int{NumFeatures}},
		{HeadScope + ".dense_0.weight", &f.w0, []int{n.HeadHidden, c.Hidden + NumFeatures}},
		{HeadScope + ".dense_0.bias", &f.b0, []int{n.HeadHidden}},
		{HeadScope + ".dense_1.weight", &f.w1, []int{n.Bins, n.HeadHidden}},
		{HeadScope + ".dense_1.bias", &f.b1, []int{n.Bins}},
	} {
		data, err := variableFloats(mctx, v.key, v.dims)
		if err != nil {
			return nil, fmt.Errorf("bag forward: %w", err)
		}
		*v.dst = data
	}
	return f, nil
}

// errNoVariable means a variable was not created yet: a bundle fresh from
// NewBag creates its variables the first time its graph is built.
var errNoVariable = errors.New("no variable")

// variableFloats returns a copy of the float32 variable at the dotted key,
// which must have the shape dims.
func variableFloats(mctx *mlctx.Context, key string, dims []int) ([]float32, error) {
	c, name := ScopeOf(mctx, key)
	v := c.GetVariableByScopeAndName(c.Scope(), name)
	if v == nil {
		return nil, fmt.Errorf("%w %s", errNoVariable, key)
	}
	t, err := v.Value()
	if err != nil {
		return nil, fmt.Errorf("variable %s: %w", key, err)
	}
	got := t.Shape().Dimensions
	if len(got) != len(dims) {
		return nil, fmt.Errorf("variable %s has shape %v, want %v", key, got, dims)
	}
	for i := range dims {
		if got[i] != dims[i] {
			return nil, fmt.Errorf("variable %s has shape %v, want %v", key, got, dims)
		}
	}
	data, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return nil, fmt.Errorf("variable %s: %w", key, err)
	}
	return data, nil
}

// pool returns the mean of ids' embeddings (zeros for no ids), as the
// graph's weighted sum with weights 1/len(ids).
func (f *bagForward) pool(dst []float32, ids []int32) error {
	clear(dst)
	if len(ids) == 0 {
		return nil
	}
	w := 1 / float32(len(ids))
	rows := len(f.emb) / f.embed
	for _, id := range ids {
		if id < 0 || int(id) >= rows {
			return fmt.Errorf("feature id %d outside [0, %d)", id, rows)
		}
		row := f.emb[int(id)*f.embed : (int(id)+1)*f.embed]
		for j, v := range row {
			dst[j] += v * w
		}
	}
	return nil
}

// linear sets out = W·x + b for W [len(out), len(x)].
func linear(out, w, x, b []float32) {
	n := len(x)
	for o := range out {
		row := w[o*n : (o+1)*n]
		var s float32
		for i, v := range row {
			s += v * x[i]
		}
		out[o] = s + b[o]
	}
}

// silu applies x·σ(x) in place.
func silu(x []float32) {
	for i, v := range x {
		x[i] = v / (1 + float32(math.Exp(float64(-v))))
	}
}

// standardize writes clip((x − mean) / std, −8, 8) into dst.
func standardize(dst, x, mean, std []float32) {
	for i, v := range x {
		dst[i] = min(8, max(-8, (v-mean[i])/std[i]))
	}
}

// logits returns the logits [bins] of every edit of the encoded group g.
func (f *bagForward) logits(g *Encoded) ([][]float32, error) {
	nd := len(f.denseMean)
	e := f.embed
	z := make([]float32, 3*e+nd)
	pv, ev, prod := z[:e], z[e:2*e], z[2*e:3*e]
	if err := f.pool(pv, g.Prefix); err != nil {
		return nil, err
	}
	h := make([]float32, f.hidden+NumFeatures)
	standardize(h[f.hidden:], g.Features[:], f.featMean, f.featStd)
	h0 := make([]float32, f.headHidden)
	out := make([][]float32, len(g.Edits))
	for s, ids := range g.Edits {
		if len(g.Dense[s]) != nd {
			return nil, fmt.Errorf("edit %d has %d dense features, want %d", s, len(g.Dense[s]), nd)
		}
		if err := f.pool(ev, ids); err != nil {
			return nil, fmt.Errorf("edit %d: %w", s, err)
		}
		for j := range prod {
			prod[j] = pv[j] * ev[j]
		}
		standardize(z[3*e:], g.Dense[s], f.denseMean, f.denseStd)
		linear(h[:f.hidden], f.encW, z, f.encB)
		silu(h[:f.hidden])
		linear(h0, f.w0, h, f.b0)
		silu(h0)
		lg := make([]float32, f.bins)
		linear(lg, f.w1, h0, f.b1)
		for _, v := range lg {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("non-finite logit %g", v)
			}
		}
		out[s] = lg
	}
	return out, nil
}
