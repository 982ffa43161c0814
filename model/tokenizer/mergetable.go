package tokenizer

// mergeTable is an open-addressing hash table from a symbol pair
// (left<<32|right) to rank<<32|merged id: the innermost lookup of BPE,
// about twice as fast as a Go map here.
type mergeTable struct {
	slots []mergeSlot // key and value side by side: one cache line per probe
	shift uint        // 64 - log2(len(slots))
}

type mergeSlot struct{ key, val uint64 }

// emptyKey never occurs as a pair: ids are below 1<<24.
const emptyKey = ^uint64(0)

func newMergeTable(n int) *mergeTable {
	size, bits := 16, uint(4)
	for size < 2*n {
		size <<= 1
		bits++
	}
	t := &mergeTable{slots: make([]mergeSlot, size), shift: 64 - bits}
	for i := range t.slots {
		t.slots[i].key = emptyKey
	}
	return t
}

func (t *mergeTable) slot(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> t.shift }

// put sets key to val, replacing an earlier value (a later duplicate merge
// wins, as in the reference's HashMap collect).
func (t *mergeTable) put(key, val uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(key); ; i = (i + 1) & mask {
		switch s := &t.slots[i]; s.key {
		case emptyKey, key:
			s.key, s.val = key, val
			return
		}
	}
}

func (t *mergeTable) get(key uint64) (uint64, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(key); ; i = (i + 1) & mask {
		switch s := &t.slots[i]; s.key {
		case key:
			return s.val, true
		case emptyKey:
			return 0, false
		}
	}
}
