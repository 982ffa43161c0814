package model

import "fmt"

// batch is the flat input of one execution: rows × length, rows × k slots.
type batch struct {
	rows, length, k int
	tokens          []int32   // [rows·length]
	positions       []int32   // [rows·length]
	segments        []int32   // [rows·length]; -1 padding, 0 prefix, s ≥ 1 edit s
	last            []int32   // [rows·k]: last token of each edit slot
	features        []float32 // [rows·k·NumFeatures]
}

// rowSpec is one packed row: a prefix and up to k edits.
type rowSpec struct {
	prefix   []int32
	edits    [][]int32
	features [NumFeatures]float32
}

// rowLen is the number of real tokens of r.
func (r rowSpec) rowLen() int {
	n := len(r.prefix)
	for _, e := range r.edits {
		n += len(e)
	}
	return n
}

// lengthBucket rounds n up to a bucket (32, 64, 128, 256, then multiples of
// 128): few distinct shapes, so few recompilations.
func lengthBucket(n int) int {
	for _, b := range []int{32, 64, 128, 256} {
		if n <= b {
			return b
		}
	}
	return (n + 127) / 128 * 128
}

// rowsBucket rounds n up to a power of two, at most maxRows.
func rowsBucket(n, maxRows int) int {
	b := 1
	for b < n {
		b *= 2
	}
	return min(b, max(maxRows, n))
}

// makeBatch lays out rows (each ≤ length tokens, ≤ k edits) into a padded
// batch of nRows rows. Every edit s of a row sees the prefix and itself; its
// positions continue from the prefix (start at len(prefix)), as if it were
// scored alone after the prefix.
func makeBatch(rows []rowSpec, nRows, length, k int) (*batch, error) {
	b := &batch{rows: nRows, length: length, k: k,
		tokens: make([]int32, nRows*length), positions: make([]int32, nRows*length),
		segments: make([]int32, nRows*length), last: make([]int32, nRows*k),
		features: make([]float32, nRows*k*NumFeatures)}
	for i := range b.segments {
		b.segments[i] = -1
	}
	for r, row := range rows {
		if row.rowLen() > length || len(row.edits) > k || len(row.prefix) == 0 {
			return nil, fmt.Errorf("pack: row of %d tokens and %d edits does not fit %d×%d (or has no prefix)",
				row.rowLen(), len(row.edits), length, k)
		}
		base := r * length
		copy(b.tokens[base:], row.prefix)
		for j := range row.prefix {
			b.positions[base+j] = int32(j)
			b.segments[base+j] = 0
		}
		off := len(row.prefix)
		for s, e := range row.edits {
			copy(b.tokens[base+off:], e)
			for j := range e {
				b.positions[base+off+j] = int32(len(row.prefix) + j)
				b.segments[base+off+j] = int32(s + 1)
			}
			off += len(e)
			lastPos := off - 1
			if len(e) == 0 { // an empty edit is scored on the prefix's last token
				lastPos = len(row.prefix) - 1
			}
			b.last[r*k+s] = int32(lastPos)
			copy(b.features[(r*k+s)*NumFeatures:], row.features[:])
		}
	}
	return b, nil
}
