package tokenizer

import (
	"hash/maphash"
	"strings"
	"sync"
)

const (
	cacheShards = 32
	// cacheMaxPiece is the longest piece (bytes) that is cached; longer
	// pieces are rare and merged directly.
	cacheMaxPiece = 64
)

// pieceCache maps a pre-tokenized piece to its BPE ids. It is sharded by a
// hash of the piece, each shard behind its own lock and bounded: a full
// shard is emptied before the next insert (cheap, and the working set of
// code and tracebacks refills it quickly).
type pieceCache struct {
	seed     maphash.Seed
	perShard int
	shards   [cacheShards]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int32
}

// newPieceCache returns a cache of about capacity pieces, or nil (no
// caching) when capacity <= 0.
func newPieceCache(capacity int) *pieceCache {
	if capacity <= 0 {
		return nil
	}
	c := &pieceCache{seed: maphash.MakeSeed(), perShard: max(1, capacity/cacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]int32)
	}
	return c
}

func (c *pieceCache) shard(piece string) *cacheShard {
	return &c.shards[maphash.String(c.seed, piece)%cacheShards]
}

// get returns the cached ids of piece; callers must not modify them.
func (c *pieceCache) get(piece string) ([]int32, bool) {
	s := c.shard(piece)
	s.mu.RLock()
	ids, ok := s.m[piece]
	s.mu.RUnlock()
	return ids, ok
}

// put stores a copy of ids under a copy of piece (piece may point into a
// large input that must not be retained).
func (c *pieceCache) put(piece string, ids []int32) {
	s := c.shard(piece)
	own := append([]int32(nil), ids...)
	key := strings.Clone(piece)
	s.mu.Lock()
	if len(s.m) >= c.perShard {
		clear(s.m)
	}
	s.m[key] = own
	s.mu.Unlock()
}
