package sandbox

import (
	"context"
	"crypto/sha256"
	"sync"

	"triage/corpus"
)

// cacheKey hashes (program, tests) unambiguously: the program's length
// prefixes it so no two pairs share a key.
func cacheKey(program, tests string) [32]byte {
	h := sha256.New()
	var n [8]byte
	l := uint64(len(program))
	for i := range n {
		n[i] = byte(l >> (8 * i))
	}
	h.Write(n[:])
	h.Write([]byte(program))
	h.Write([]byte(tests))
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// CachedExecutor is an Executor that remembers the result of every
// (program, tests) pair by sha256, and runs a pair once even when asked
// concurrently. Errors (cancellation, infrastructure) are not cached.
type CachedExecutor struct {
	inner corpus.Executor

	mu      sync.Mutex
	entries map[[32]byte]*cacheEntry
	hits    int64
	misses  int64
}

type cacheEntry struct {
	done chan struct{}
	ex   corpus.Execution
	err  error
}

// Cached wraps e with a result cache keyed by sha256 of (program, tests).
func Cached(e corpus.Executor) corpus.Executor {
	return &CachedExecutor{inner: e, entries: map[[32]byte]*cacheEntry{}}
}

// Run returns the cached Execution of (program, tests), running it first if needed.
func (c *CachedExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	k := cacheKey(program, tests)
	for {
		c.mu.Lock()
		e, ok := c.entries[k]
		if !ok {
			e = &cacheEntry{done: make(chan struct{})}
			c.entries[k] = e
			c.misses++
			c.mu.Unlock()
			e.ex, e.err = c.inner.Run(ctx, program, tests)
			if e.err != nil {
				c.mu.Lock()
				delete(c.entries, k)
				c.mu.Unlock()
			}
			close(e.done)
			return cloneExecution(e.ex), e.err
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return corpus.Execution{}, ctx.Err()
		}
		if e.err != nil {
			continue // the first caller failed (e.g. was cancelled): try again
		}
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
		return cloneExecution(e.ex), nil
	}
}

// Stats returns the number of cache hits and misses so far.
func (c *CachedExecutor) Stats() (hits, misses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// cloneExecution deep-copies the slices so callers cannot change the cache.
func cloneExecution(ex corpus.Execution) corpus.Execution {
	if ex.Tests != nil {
		tests := make([]corpus.TestResult, len(ex.Tests))
		copy(tests, ex.Tests)
		for i := range tests {
			if tests[i].Lines != nil {
				tests[i].Lines = append([]int32(nil), tests[i].Lines...)
			}
		}
		ex.Tests = tests
	}
	return ex
}
