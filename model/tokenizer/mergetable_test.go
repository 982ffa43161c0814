package tokenizer

import (
	"slices"
	"testing"
)

func TestMergeTable(t *testing.T) {
	m := newMergeTable(100)
	for i := uint64(0); i < 100; i++ {
		m.put(i<<32|(i+1), i*10)
	}
	m.put(5<<32|6, 999) // a later duplicate wins
	for i := uint64(0); i < 100; i++ {
		want := i * 10
		if i == 5 {
			want = 999
		}
		if v, ok := m.get(i<<32 | (i + 1)); !ok || v != want {
			t.Errorf("get(%d) = %d, %v; want %d", i, v, ok, want)
		}
	}
	for _, k := range []uint64{0, 3<<32 | 3, 2<<32 | 2, 1 << 40} {
		if _, ok := m.get(k); ok {
			t.Errorf("get(%#x) found a missing key", k)
		}
	}
}

func TestPieceCacheBounded(t *testing.T) {
	c := newPieceCache(cacheShards * 2)
	for i := range 1000 {
		c.put(string(rune('a'+i%26))+string(rune(i)), []int32{int32(i)})
	}
	total := 0
	for i := range c.shards {
		total += len(c.shards[i].m)
		if len(c.shards[i].m) > c.perShard {
			t.Errorf("shard %d holds %d > %d", i, len(c.shards[i].m), c.perShard)
		}
	}
	if total == 0 {
		t.Error("cache is empty after puts")
	}
	ids := []int32{1, 2, 3}
	c.put("xyz", ids)
	ids[0] = 42 // the cache keeps its own copy
	if got, ok := c.get("xyz"); !ok || !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("get(xyz) = %v, %v", got, ok)
	}
	if newPieceCache(0) != nil {
		t.Error("newPieceCache(0) should disable caching")
	}
}
