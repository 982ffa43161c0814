package model

import (
	"fmt"
	"sort"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/priority"
)

// Qwen3Net is the paper's architecture as a Net: the edge is serialized
// into tokens (SerializeParent + SerializeEdit, with section markers and
// token caps), the edits of one parent are packed after one copy of its
// text (each edit attending to the prefix and itself), and the Qwen3
// decoder's hidden state at each edit's last token ⊕ the standardized
// parent features go through the head.
type Qwen3Net struct {
	M      *Model
	Tok    Tokenizer
	Limits Limits
	// EditsPerRow is the most edits packed behind one prefix (default 3 = k;
	// 1 scores every edge as its own sequence).
	EditsPerRow int
	// Inputs switches off the parent's or the edit's text (ablations): the
	// section markers stay, the text goes.
	Inputs InputSet
}

// Arch implements Net.
func (n *Qwen3Net) Arch() string { return "qwen3" }

func (n *Qwen3Net) editsPerRow() int {
	if n.EditsPerRow <= 0 {
		return 3
	}
	return n.EditsPerRow
}

// Encode implements Net: the serialized parent prefix and edits.
func (n *Qwen3Net) Encode(edges []priority.Edge) (Encoded, error) {
	if n.Tok == nil {
		return Encoded{}, fmt.Errorf("qwen3: no tokenizer")
	}
	if err := checkGroup(edges, n.M.Opts.Bins); err != nil {
		return Encoded{}, fmt.Errorf("qwen3: %w", err)
	}
	lim := n.Limits
	if lim == (Limits{}) {
		lim = DefaultLimits()
	}
	par := edges[0]
	if n.Inputs.NoParentText {
		par.Feedback, par.Diagnosis = "", ""
	}
	enc := Encoded{Prefix: SerializeParent(n.Tok, lim, &par), Features: edges[0].Features()}
	if n.Inputs.NoLength {
		enc.Features[3] = 0
	}
	for i := range edges {
		edit := edges[i].Edit
		if n.Inputs.NoEditText {
			edit = ""
		}
		enc.Edits = append(enc.Edits, SerializeEdit(n.Tok, lim, edit))
		enc.B = append(enc.B, edges[i].Remaining)
	}
	return enc, nil
}

// Batches implements Net: rows of one prefix and up to EditsPerRow edits,
// sorted by length so a batch pads little, padded to a length bucket and a
// power-of-two row count (few shapes, few compilations).
func (n *Qwen3Net) Batches(groups []Encoded, maxRows int) ([]Batch, error) {
	if maxRows <= 0 {
		maxRows = 8
	}
	k := n.editsPerRow()
	type place struct{ g, e int32 }
	var rows []rowSpec
	var places [][]place
	for g, grp := range groups {
		if len(grp.Prefix) == 0 {
			return nil, fmt.Errorf("qwen3: group %d has an empty prefix", g)
		}
		for _, ids := range append([][]int32{grp.Prefix}, grp.Edits...) {
			for _, id := range ids {
				if id < 0 || int(id) >= n.M.Config.VocabSize {
					return nil, fmt.Errorf("qwen3: group %d: token %d outside the vocabulary of %d", g, id, n.M.Config.VocabSize)
				}
			}
		}
		for start := 0; start < len(grp.Edits); start += k {
			end := min(start+k, len(grp.Edits))
			rows = append(rows, rowSpec{prefix: grp.Prefix, edits: grp.Edits[start:end], features: grp.Features})
			var pl []place
			for e := start; e < end; e++ {
				pl = append(pl, place{int32(g), int32(e)})
			}
			places = append(places, pl)
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rows[order[a]].rowLen() < rows[order[b]].rowLen() })
	var out []Batch
	for start := 0; start < len(order); start += maxRows {
		end := min(start+maxRows, len(order))
		var br []rowSpec
		maxLen := 0
		for _, r := range order[start:end] {
			br = append(br, rows[r])
			maxLen = max(maxLen, rows[r].rowLen())
		}
		nRows, length := rowsBucket(len(br), maxRows), lengthBucket(maxLen)
		b, err := makeBatch(br, nRows, length, k)
		if err != nil {
			return nil, fmt.Errorf("qwen3: %w", err)
		}
		slots := make([][2]int32, nRows*k)
		for i := range slots {
			slots[i] = [2]int32{-1, -1}
		}
		for i, r := range order[start:end] {
			for j, pl := range places[r] {
				slots[i*k+j] = [2]int32{pl.g, pl.e}
			}
		}
		out = append(out, Batch{Rows: nRows, K: k, Slots: slots, Inputs: []*tensors.Tensor{
			tensors.FromFlatDataAndDimensions(b.tokens, nRows, length),
			tensors.FromFlatDataAndDimensions(b.positions, nRows, length),
			tensors.FromFlatDataAndDimensions(b.segments, nRows, length),
			tensors.FromFlatDataAndDimensions(b.last, nRows, k),
			tensors.FromFlatDataAndDimensions(b.features, nRows, k, NumFeatures),
		}})
	}
	return out, nil
}

// Logits implements Net: inputs are tokens, positions, segments [R, T],
// last [R, K] and features [R, K, 4].
func (n *Qwen3Net) Logits(mctx *mlctx.Context, in []*Node) *Node {
	if len(in) != 5 {
		panic(fmt.Sprintf("qwen3: %d inputs, want 5 (tokens, positions, segments, last, features)", len(in)))
	}
	return n.M.Logits(mctx, in[0], in[1], in[2], in[3], in[4])
}
