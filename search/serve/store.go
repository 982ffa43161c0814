package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"triage/corpus"
	"triage/search/serve/api"
)

// sessionStore keeps the server's sessions; the handlers reach sessions
// through it only. memStore (below) holds them in memory; logStore
// (durable.go) in a session log (Options.Store), rebuilding a copy from the
// log wherever one is missing.
type sessionStore interface {
	// add keeps ss, new and valid (recorded first where it is kept), and
	// answers req, its creation request.
	add(ctx context.Context, ss *session, req api.CreateSessionRequest) error
	// ref resolves session id for a request. memStore looks it up now (404
	// for none or an expired one); logStore checks at the ref's use, where
	// it rebuilds or catches up its copy under the session's lock.
	ref(ctx context.Context, id string) (sessionRef, error)
	// end ends session id for why ("deleted"), saving it to SessionsDir
	// when set, and returns its last state.
	end(ctx context.Context, id, why string) (api.Session, error)
	// expire ends the sessions idle for longer than SessionIdle.
	expire()
	// close ends or lets go of every session held here (at shutdown).
	close() error
	// len counts the sessions held here.
	len() int
	// health reports on the store for /healthz (nil: nothing to report).
	health(ctx context.Context) *api.StoreHealth
}

// sessionRef is one request's handle on a session.
type sessionRef interface {
	describe(ctx context.Context) (api.Session, error)
	// ask chooses up to n edges; requestID makes a resent ask safe where
	// the store records asks.
	ask(ctx context.Context, n int, requestID string) (api.AskResponse, error)
	tell(ctx context.Context, e corpus.EdgeID, child *api.Program) (api.TellResponse, error)
	// tree returns the session (its id and root index name an export)
	// and a snapshot of its tree.
	tree(ctx context.Context) (*session, *corpus.Tree, error)
}

// newID returns a random session id: 128 bits in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// memStore keeps sessions in memory: at most MaxSessions, each ended after
// SessionIdle without a request; every session that ends is saved to
// SessionsDir when set.
type memStore struct {
	srv *Server
	m   *sessionMap
}

func newMemStore(srv *Server) *memStore {
	return &memStore{srv: srv, m: newSessionMap(srv.opts.MaxSessions, srv.opts.SessionIdle, srv.opts.Now)}
}

func (st *memStore) add(_ context.Context, ss *session, _ api.CreateSessionRequest) error {
	expired, err := st.m.add(ss)
	for _, e := range expired {
		st.endSession(e, "expired")
	}
	return err
}

func (st *memStore) ref(_ context.Context, id string) (sessionRef, error) {
	ss, expired := st.m.get(id)
	if expired != nil {
		st.endSession(expired, "expired")
		return nil, errorf(http.StatusNotFound, "session %s expired after %v idle", id, st.srv.opts.SessionIdle)
	}
	if ss == nil {
		return nil, errorf(http.StatusNotFound, "no session %q", id)
	}
	return memRef{st.srv, ss}, nil
}

func (st *memStore) end(_ context.Context, id, why string) (api.Session, error) {
	ss := st.m.remove(id)
	if ss == nil {
		return api.Session{}, errorf(http.StatusNotFound, "no session %q", id)
	}
	desc := ss.describe(st.srv.opts.SessionIdle, st.srv.opts.Now())
	if err := st.endSession(ss, why); err != nil {
		return api.Session{}, fmt.Errorf("session %s %s, but saving it failed: %w", ss.id, why, err)
	}
	return desc, nil
}

func (st *memStore) expire() {
	for _, ss := range st.m.sweep() {
		st.endSession(ss, "expired")
	}
}

func (st *memStore) close() error {
	var errs []error
	for _, ss := range st.m.drain() {
		errs = append(errs, st.endSession(ss, "shutdown"))
	}
	return errors.Join(errs...)
}

func (st *memStore) len() int { return st.m.len() }

func (st *memStore) health(context.Context) *api.StoreHealth { return nil }

// endSession marks ss ended, counts it and saves it when configured.
func (st *memStore) endSession(ss *session, why string) error {
	if !ss.end() {
		return nil
	}
	s := st.srv
	s.countEnd(why)
	if s.opts.SessionsDir == "" {
		return nil
	}
	return s.saveLogged(ss.id, why, ss.snapshot(), ss.req.RootIndex)
}

// memRef is a session held in memory.
type memRef struct {
	srv *Server
	ss  *session
}

func (r memRef) describe(context.Context) (api.Session, error) {
	return r.ss.describe(r.srv.opts.SessionIdle, r.srv.opts.Now()), nil
}

// ask ignores requestID: nothing records an ask to answer it again.
func (r memRef) ask(ctx context.Context, n int, _ string) (api.AskResponse, error) {
	return r.ss.ask(ctx, n)
}

func (r memRef) tell(_ context.Context, e corpus.EdgeID, child *api.Program) (api.TellResponse, error) {
	return r.ss.tell(e, child)
}

func (r memRef) tree(context.Context) (*session, *corpus.Tree, error) {
	return r.ss, r.ss.snapshot(), nil
}

// sessionMap holds sessions by id: memStore's sessions, or logStore's
// copies. It holds at most max of them, each dropped after idle time
// without a request.
type sessionMap struct {
	mu   sync.Mutex
	m    map[string]*session
	max  int
	idle time.Duration
	now  func() time.Time
}

func newSessionMap(max int, idle time.Duration, now func() time.Time) *sessionMap {
	return &sessionMap{m: map[string]*session{}, max: max, idle: idle, now: now}
}

func (st *sessionMap) touch(s *session) { s.lastUsed.Store(st.now().UnixNano()) }

func (st *sessionMap) idleFor(s *session, now time.Time) time.Duration {
	return now.Sub(time.Unix(0, s.lastUsed.Load()))
}

// add registers s, first dropping expired sessions when full; it returns
// the expired sessions (to be ended by the caller) and an error when the
// map stays full.
func (st *sessionMap) add(s *session) ([]*session, error) {
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
func (st *sessionMap) get(id string) (s, expired *session) {
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
func (st *sessionMap) remove(id string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.m[id]
	delete(st.m, id)
	return s
}

// sweep drops every expired session and returns them.
func (st *sessionMap) sweep() []*session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sweepLocked()
}

func (st *sessionMap) sweepLocked() []*session {
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
func (st *sessionMap) drain() []*session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*session, 0, len(st.m))
	for id, s := range st.m {
		delete(st.m, id)
		out = append(out, s)
	}
	return out
}

func (st *sessionMap) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.m)
}

// adopt registers s, a copy rebuilt from the session log, unless a copy
// of the same session is already held: then it returns that one. When
// full, it drops the least recently used copy: with a log, nothing is
// lost, the copy is rebuilt when next used.
func (st *sessionMap) adopt(s *session) *session {
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
func (st *sessionMap) drop(s *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m[s.id] == s {
		delete(st.m, s.id)
	}
}

// lookupCopy returns the copy held for id (nil when none) without
// touching it.
func (st *sessionMap) lookupCopy(id string) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[id]
}
