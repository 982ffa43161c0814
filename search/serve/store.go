package serve

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// store holds the live sessions: at most max of them, each dropped after
// idle time without a request.
type store struct {
	mu   sync.Mutex
	m    map[string]*session
	max  int
	idle time.Duration
	now  func() time.Time
}

func newStore(max int, idle time.Duration, now func() time.Time) *store {
	return &store{m: map[string]*session{}, max: max, idle: idle, now: now}
}

// newID returns a random session id: 128 bits in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

func (st *store) touch(s *session) { s.lastUsed.Store(st.now().UnixNano()) }

func (st *store) idleFor(s *session, now time.Time) time.Duration {
	return now.Sub(time.Unix(0, s.lastUsed.Load()))
}

// add registers s, first dropping expired sessions when full; it returns
// the expired sessions (to be ended by the caller) and an error when the
// store stays full.
func (st *store) add(s *session) ([]*session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var expired []*session
	if len(st.m) >= st.max {
		expired = st.sweepLocked()
	}
	if len(st.m) >= st.max {
		return expired, errorf(http.StatusServiceUnavailable, "session limit reached (%d open); delete finished sessions", st.max)
	}
	st.touch(s)
	st.m[s.id] = s
	return expired, nil
}

// get returns the live session id and marks it used; an expired one is
// dropped and returned as expired instead.
func (st *store) get(id string) (s, expired *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s = st.m[id]
	if s == nil {
		return nil, nil
	}
	if st.idleFor(s, st.now()) > st.idle {
		delete(st.m, id)
		return nil, s
	}
	st.touch(s)
	return s, nil
}

// remove drops session id and returns it (nil when absent).
func (st *store) remove(id string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.m[id]
	delete(st.m, id)
	return s
}

// sweep drops every expired session and returns them.
func (st *store) sweep() []*session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sweepLocked()
}

func (st *store) sweepLocked() []*session {
	now := st.now()
	var out []*session
	for id, s := range st.m {
		if st.idleFor(s, now) > st.idle {
			delete(st.m, id)
			out = append(out, s)
		}
	}
	return out
}

// drain drops every session and returns them (at shutdown).
func (st *store) drain() []*session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*session, 0, len(st.m))
	for id, s := range st.m {
		delete(st.m, id)
		out = append(out, s)
	}
	return out
}

func (st *store) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.m)
}

// adopt registers s, a copy rebuilt from the session log, unless a copy
// of the same session is already held: then it returns that one. When
// full, it drops the least recently used copy: with a log, nothing is
// lost, the copy is rebuilt when next used.
func (st *store) adopt(s *session) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	if old := st.m[s.id]; old != nil {
		st.touch(old)
		return old
	}
	if len(st.m) >= st.max {
		var lru *session
		for _, c := range st.m {
			if lru == nil || c.lastUsed.Load() < lru.lastUsed.Load() {
				lru = c
			}
		}
		delete(st.m, lru.id)
	}
	st.touch(s)
	st.m[s.id] = s
	return s
}

// drop forgets s if it is the copy held for its id.
func (st *store) drop(s *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m[s.id] == s {
		delete(st.m, s.id)
	}
}

// lookupCopy returns the copy held for id (nil when none) without
// touching it.
func (st *store) lookupCopy(id string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[id]
}
