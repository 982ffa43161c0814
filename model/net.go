package model

import (
	"fmt"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/priority"
)

// Encoded is the edges of one parent in model input form. Net.Encode makes
// it from priority.Edge values; training and scoring both go through that
// one function, so an edge's training input and its scoring input are
// equal field by field.
type Encoded struct {
	// Prefix is the parent's shared part: tokens (qwen3) or hashed feature
	// ids (bag) of its feedback and diagnosis.
	Prefix []int32
	// Edits holds one entry per edge: the edit's tokens or feature ids.
	Edits [][]int32
	// Dense holds per edge the numeric inputs beyond the four parent
	// features (bag only; nil otherwise), raw: the graph standardizes them.
	Dense [][]float32
	// Features are the parent's four raw features (priority.Edge.Features).
	Features [NumFeatures]float32
	// B is each edge's remaining depth (for s(e); not a model input).
	B []int
}

// Batch is a padded model input of Rows rows × K edit slots. Slots maps
// slot r·K+s to (group, edit) of the encoded groups it was made from, or
// (-1, -1) for padding.
type Batch struct {
	Inputs  []*tensors.Tensor
	Rows, K int
	Slots   [][2]int32
}

// Net is one architecture of the priority model: how edges become inputs
// (Encode), how inputs are laid out (Batches) and the graph from inputs to
// logits [R, K, bins] (Logits). Its variables live in the Model's context.
type Net interface {
	// Arch names the architecture ("qwen3", "bag").
	Arch() string
	// Encode turns the edges of one parent (same feedback, diagnosis,
	// program and features) into model input.
	Encode(edges []priority.Edge) (Encoded, error)
	// Batches lays out groups into padded batches of at most maxRows rows,
	// covering every edit of every group once.
	Batches(groups []Encoded, maxRows int) ([]Batch, error)
	// Logits builds the graph: batch inputs → logits [R, K, bins] float32.
	// Graph function: panics on malformed shapes.
	Logits(mctx *mlctx.Context, inputs []*Node) *Node
}

// parentKey groups edges of one parent for Encode.
type parentKey struct {
	feedback, diagnosis, program, parentEdit string
	features                                 [NumFeatures]float32
}

func keyOf(e *priority.Edge) parentKey {
	return parentKey{e.Feedback, e.Diagnosis, e.Program, e.ParentEdit, e.Features()}
}

// GroupByParent splits edges into groups that share a parent, in order of
// first appearance; where[i] = (group, position) of edges[i].
func GroupByParent(edges []priority.Edge) (groups [][]priority.Edge, where [][2]int) {
	idx := map[parentKey]int{}
	where = make([][2]int, len(edges))
	for i := range edges {
		k := keyOf(&edges[i])
		g, ok := idx[k]
		if !ok {
			g = len(groups)
			idx[k] = g
			groups = append(groups, nil)
		}
		where[i] = [2]int{g, len(groups[g])}
		groups[g] = append(groups[g], edges[i])
	}
	return groups, where
}

// checkGroup validates edges of one parent against a model of bins bins.
func checkGroup(edges []priority.Edge, bins int) error {
	if len(edges) == 0 {
		return fmt.Errorf("encode: no edges")
	}
	for i := range edges {
		e := &edges[i]
		if err := e.Validate(); err != nil {
			return fmt.Errorf("edge %d: %w", i, err)
		}
		// A shallower tree is fine (its b and t fit the model's bins); a
		// deeper one asks about distances the model has no bin for.
		if e.MaxDepth+1 > bins {
			return fmt.Errorf("edge %d: depth limit %d, above the model's %d", i, e.MaxDepth, bins-1)
		}
		if i > 0 && keyOf(e) != keyOf(&edges[0]) {
			return fmt.Errorf("edge %d: parent differs from edge 0's", i)
		}
	}
	return nil
}
