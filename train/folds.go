package train

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"
)

// Folds assigns tasks to k folds of near-equal size: tasks are ordered by
// sha256(seed, task id) and dealt round-robin, so a task's fold depends on
// the seed and the task set only.
func Folds(taskIDs []string, k int, seed uint64) map[string]int {
	type keyed struct {
		id  string
		key [32]byte
	}
	var ks []keyed
	seen := map[string]bool{}
	for _, id := range taskIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], seed)
		ks = append(ks, keyed{id, sha256.Sum256(append(b[:], id...))})
	}
	sort.Slice(ks, func(i, j int) bool { return string(ks[i].key[:]) < string(ks[j].key[:]) })
	out := make(map[string]int, len(ks))
	for i, kk := range ks {
		out[kk.id] = i % k
	}
	return out
}
