package tokenizer

import "sync"

// bpe is the merge table of a byte-level BPE model, keyed by raw bytes (the
// byte-level alphabet of tokenizer.json is undone at load time).
type bpe struct {
	// byteID is the initial symbol of each byte, -1 when the byte has no
	// symbol (it is then dropped, as the reference does without unk token).
	byteID [256]int32
	// unkID is the id of unk_token, -1 if none; fuseUnk merges runs of it.
	unkID   int32
	fuseUnk bool
	// merges maps the pair left<<32|right to rank<<32|merged id.
	merges *mergeTable
	// ignoreMerges makes a piece that is itself in vocab one token.
	ignoreMerges bool
	vocab        map[string]int32
}

// symbol is one node of the doubly linked list a word is merged in.
type symbol struct {
	id         int32
	prev, next int32 // indices, -1 at the ends
	gone       bool  // merged into its left neighbour
}

// candidate is a pending merge of the symbol at pos with its successor.
type candidate struct {
	rank  int32
	pos   int32
	newID int32
}

// less orders candidates as the reference does: lowest rank first, and on
// equal rank the leftmost position first.
func (a candidate) less(b candidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// mergeHeap is a binary min-heap of candidates (no interface dispatch).
type mergeHeap []candidate

func (h *mergeHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// init orders an unordered slice into a heap in O(n).
func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) pop() candidate {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	s.down(0)
	*h = s
	return top
}

// down sifts element i towards the leaves.
func (s mergeHeap) down(i int) {
	n := len(s)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(s[l]) {
			m = r
		}
		if !s[m].less(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}

// scratch holds the per-call buffers of merge, reused through a pool.
type scratch struct {
	syms []symbol
	heap mergeHeap
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// pair returns the merge of left and right, if any.
func (m *bpe) pair(left, right int32) (rank, newID int32, ok bool) {
	v, ok := m.merges.get(uint64(uint32(left))<<32 | uint64(uint32(right)))
	return int32(v >> 32), int32(uint32(v)), ok
}

// encode appends the ids of one pre-tokenized piece (raw bytes) to dst.
// Merging is O(n log n) in the piece length: a heap of candidate merges
// ordered by (rank, position) over a linked list of symbols, the algorithm
// of the Rust reference (tokenizers' Word::merge_all), stale entries being
// recognised and skipped when popped.
func (m *bpe) encode(dst []int32, piece string) []int32 {
	if m.ignoreMerges {
		if id, ok := m.vocab[piece]; ok {
			return append(dst, id)
		}
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	syms := sc.syms[:0]
	for i := 0; i < len(piece); i++ {
		id := m.byteID[piece[i]]
		if id < 0 {
			continue
		}
		if m.fuseUnk && id == m.unkID && len(syms) > 0 && syms[len(syms)-1].id == m.unkID {
			continue
		}
		n := int32(len(syms))
		syms = append(syms, symbol{id: id, prev: n - 1, next: n + 1})
	}
	if len(syms) == 0 {
		sc.syms = syms
		return dst
	}
	syms[len(syms)-1].next = -1
	if len(syms) == 1 {
		sc.syms = syms
		return append(dst, syms[0].id)
	}
	h := sc.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		if rank, newID, ok := m.pair(syms[i].id, syms[i+1].id); ok {
			h = append(h, candidate{rank: rank, pos: int32(i), newID: newID})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		cur := &syms[top.pos]
		if cur.gone || cur.next < 0 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		if _, newID, ok := m.pair(cur.id, right.id); !ok || newID != top.newID {
			continue // stale: one side changed since it was queued
		}
		cur.id = top.newID
		cur.next = right.next
		syms[nextPos].gone = true
		if right.next >= 0 {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if rank, newID, ok := m.pair(syms[cur.prev].id, cur.id); ok {
				h.push(candidate{rank: rank, pos: cur.prev, newID: newID})
			}
		}
		if cur.next >= 0 {
			if rank, newID, ok := m.pair(cur.id, syms[cur.next].id); ok {
				h.push(candidate{rank: rank, pos: top.pos, newID: newID})
			}
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		dst = append(dst, syms[i].id)
	}
	sc.syms, sc.heap = syms, h
	return dst
}
