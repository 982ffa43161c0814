package train

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

func TestFolds(t *testing.T) {
	ids := make([]string, 0, 103)
	for i := range 101 {
		ids = append(ids, fmt.Sprintf("task-%d", i))
	}
	ids = append(ids, "task-3", "task-7") // repeated: a task has many trees
	for _, k := range []int{2, 5, 7} {
		f := Folds(ids, k, 1)
		if len(f) != 101 {
			t.Fatalf("k=%d: %d tasks assigned, want 101", k, len(f))
		}
		size := make([]int, k)
		for id, i := range f {
			if i < 0 || i >= k {
				t.Fatalf("k=%d: task %s in fold %d", k, id, i)
			}
			size[i]++
		}
		if slices.Max(size)-slices.Min(size) > 1 {
			t.Errorf("k=%d: fold sizes %v, want within one of each other", k, size)
		}
		// Deterministic: the same ids in another order give the same folds.
		rev := slices.Clone(ids)
		slices.Reverse(rev)
		if g := Folds(rev, k, 1); !maps.Equal(f, g) {
			t.Errorf("k=%d: the order of the ids changed the folds", k)
		}
		if g := Folds(ids, k, 2); maps.Equal(f, g) {
			t.Errorf("k=%d: seeds 1 and 2 gave the same folds", k)
		}
	}
}
