package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"triage/corpus"
	"triage/policy"
	"triage/search/serve/api"
	"triage/search/serve/sessionlog"
)

// logStore is the sessionStore of durable sessions (Options.Store set):
// every creation, ask that chose edges, tell and end is appended to the
// session's log before it is answered, and a session's state is a function
// of its log (the normalized request with its root, the learned scorer's
// id, then the asks and tells in order). A server without a copy of a
// session rebuilds it by replaying the log through the same code that
// answered the requests; a copy behind a shared store applies only the
// records it has not seen. Appends are at the next sequence number, so of
// two replicas changing one session the store accepts one; the other drops
// its copy, rebuilds and retries. Open sessions outlive the server, which
// drops its copies at shutdown: a session ends when it is deleted, or idle
// in the store for longer than SessionIdle.
type logStore struct {
	srv    *Server
	log    sessionlog.Store
	copies *sessionMap // the copies held here, caught up at each use
}

func newLogStore(srv *Server) *logStore {
	return &logStore{srv: srv, log: srv.opts.Store, copies: newSessionMap(srv.opts.MaxSessions, srv.opts.SessionIdle, srv.opts.Now)}
}

// Log records, as JSON in the store.
type (
	createRecord struct {
		// Request is the normalized request, its root included.
		Request api.CreateSessionRequest `json:"request"`
		// Scorer is the learned scorer's id (Options.ScorerID) of a
		// learned session.
		Scorer string `json:"scorer,omitempty"`
	}
	askRecord struct {
		N         int             `json:"n"`
		Edges     []corpus.EdgeID `json:"edges"`
		RequestID string          `json:"request_id,omitempty"`
	}
	tellRecord struct {
		Edge  corpus.EdgeID `json:"edge"`
		Child api.Program   `json:"child"`
	}
	endRecord struct {
		Why string `json:"why"`
	}
)

// conflictRetries bounds the retries of a request whose append lost a race
// with another replica.
const conflictRetries = 5

// errRetry marks a copy that lost an append race: drop it and retry.
var errRetry = errors.New("the session moved on in the store")

// errDirty wraps an error after which a copy may differ from its log.
type errDirty struct{ err error }

func (e errDirty) Error() string { return e.err.Error() }
func (e errDirty) Unwrap() error { return e.err }

// storeOp runs one store operation, timing it for /metrics.
func (d *logStore) storeOp(op string, f func() error) error {
	start := time.Now()
	err := f()
	d.srv.metrics.observeStore(op, time.Since(start), err)
	return err
}

// storeError is the answer to a store that failed: 503 with the reason.
func storeError(what string, err error) error {
	if errors.Is(err, sessionlog.ErrNewerFormat) {
		return errorf(http.StatusServiceUnavailable, "session store: %s: %v", what, err)
	}
	return errorf(http.StatusServiceUnavailable, "session store unavailable: %s: %v", what, err)
}

// appendLocked appends v as the next record of ss's log.
func (d *logStore) appendLocked(ctx context.Context, ss *session, kind sessionlog.Kind, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("session %s: encode %s record: %w", ss.id, kind, err)
	}
	rec := sessionlog.Record{Seq: ss.seq + 1, Kind: kind, Data: data}
	if kind == sessionlog.KindCreate {
		rec.Seq = 0
	}
	err = d.storeOp("append", func() error { return d.log.Append(ctx, ss.id, rec) })
	switch {
	case err == nil:
		ss.seq = rec.Seq
		return nil
	case errors.Is(err, sessionlog.ErrConflict):
		d.srv.metrics.add(&d.srv.metrics.storeConflicts, 1)
		return errDirty{errRetry}
	case errors.Is(err, sessionlog.ErrEnded):
		return errDirty{errorf(http.StatusNotFound, "session %s ended", ss.id)}
	}
	return errDirty{storeError(fmt.Sprintf("record the %s of session %s (not acknowledged)", kind, ss.id), err)}
}

// add records a new session before it is acknowledged, and keeps its copy.
func (d *logStore) add(ctx context.Context, ss *session, req api.CreateSessionRequest) error {
	if err := d.create(ctx, ss, req); err != nil {
		return err
	}
	d.copies.adopt(ss)
	return nil
}

// create appends ss's creation record.
func (d *logStore) create(ctx context.Context, ss *session, req api.CreateSessionRequest) error {
	rec := createRecord{Request: ss.req}
	rec.Request.Root = req.Root
	if policy.NeedsScorer(ss.req.Policy) {
		rec.Scorer = d.srv.opts.ScorerID
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	err := d.appendLocked(ctx, ss, sessionlog.KindCreate, rec)
	if errors.Is(err, errRetry) {
		return fmt.Errorf("session id %s is taken in the store", ss.id)
	}
	return err
}

// ref defers to the ref's use: each use runs under withSession.
func (d *logStore) ref(_ context.Context, id string) (sessionRef, error) { return logRef{d, id}, nil }

// logRef is a session of the log, named by id.
type logRef struct {
	d  *logStore
	id string
}

func (r logRef) describe(ctx context.Context) (api.Session, error) { return r.d.describe(ctx, r.id) }

func (r logRef) ask(ctx context.Context, n int, requestID string) (api.AskResponse, error) {
	return r.d.ask(ctx, r.id, n, requestID)
}

func (r logRef) tell(ctx context.Context, e corpus.EdgeID, child *api.Program) (api.TellResponse, error) {
	return r.d.tell(ctx, r.id, e, child)
}

func (r logRef) tree(ctx context.Context) (*session, *corpus.Tree, error) {
	return r.d.snapshot(ctx, r.id)
}

func (d *logStore) len() int { return d.copies.len() }

// close lets go of the copies: open sessions stay open in the store, for
// the next server.
func (d *logStore) close() error {
	d.copies.drain()
	return nil
}

// expire runs expireIdle within a minute.
func (d *logStore) expire() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d.expireIdle(ctx)
}

// withSession runs fn on session id's copy, caught up with the log and
// locked: fn appends what it changes. A copy that lost an append race is
// dropped and fn retried on a fresh one; a copy that may differ from its
// log after an error is dropped, to be rebuilt on its next use.
func (d *logStore) withSession(ctx context.Context, id string, fn func(ss *session) error) error {
	return d.withCopy(ctx, id, false, fn)
}

// withCopy is withSession; with exportOnly, on a copy that may be rebuilt
// only for export (see open).
func (d *logStore) withCopy(ctx context.Context, id string, exportOnly bool, fn func(ss *session) error) error {
	for attempt := 0; ; attempt++ {
		ss, err := d.open(ctx, id, exportOnly)
		if err != nil {
			return err
		}
		ss.mu.Lock()
		err = d.catchUpLocked(ctx, ss)
		if err == nil {
			err = fn(ss)
		}
		ss.mu.Unlock()
		var dirty errDirty
		if errors.As(err, &dirty) {
			d.copies.drop(ss)
			err = dirty.err
		}
		if errors.Is(err, errRetry) && attempt < conflictRetries {
			continue
		}
		if errors.Is(err, errRetry) {
			return errorf(http.StatusConflict, "session %s is being changed through another replica; retry", id)
		}
		return err
	}
}

// open returns the copy of session id held here, or rebuilds it from the
// log. With exportOnly, a learned session of another checkpoint is
// rebuilt with its recorded choices, for its tree; it cannot ask.
func (d *logStore) open(ctx context.Context, id string, exportOnly bool) (*session, error) {
	if ss, _ := d.copies.get(id); ss != nil {
		return ss, nil
	}
	var recs []sessionlog.Record
	err := d.storeOp("load", func() (err error) {
		recs, err = d.log.Load(ctx, id, 0)
		return err
	})
	switch {
	case errors.Is(err, sessionlog.ErrNotFound):
		return nil, errorf(http.StatusNotFound, "no session %q", id)
	case err != nil:
		return nil, storeError("load session "+id, err)
	}
	ss, err := d.rebuild(ctx, id, recs, exportOnly)
	if err != nil {
		return nil, err
	}
	d.srv.metrics.add(&d.srv.metrics.sessionsRebuilt, 1)
	if ss.script != nil {
		return ss, nil // not kept: it cannot ask
	}
	return d.copies.adopt(ss), nil
}

// decodeRecord reads one record strictly: a field this build does not know
// is an error, not ignored.
func decodeRecord(id string, r sessionlog.Record, v any) error {
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("session %s record %d (%s): %w", id, r.Seq, r.Kind, err)
	}
	return nil
}

// rebuild makes a session from its log.
func (d *logStore) rebuild(ctx context.Context, id string, recs []sessionlog.Record, exportOnly bool) (*session, error) {
	if len(recs) == 0 || recs[0].Seq != 0 || recs[0].Kind != sessionlog.KindCreate {
		return nil, fmt.Errorf("session %s: the log does not start with its creation", id)
	}
	if last := recs[len(recs)-1]; last.Kind == sessionlog.KindEnd {
		var end endRecord
		_ = decodeRecord(id, last, &end)
		return nil, errorf(http.StatusNotFound, "session %s ended (%s)", id, end.Why)
	}
	var cr createRecord
	if err := decodeRecord(id, recs[0], &cr); err != nil {
		return nil, err
	}
	var script *scripted
	scored := d.srv.scoredPolicy
	if policy.NeedsScorer(cr.Request.Policy) && cr.Scorer != d.srv.opts.ScorerID {
		if !exportOnly {
			return nil, errorf(http.StatusConflict, "session %s was started on learned scorer %s and this server runs %s: a session never changes scorer; serve it from a replica with that checkpoint", id, orNone(cr.Scorer), orNone(d.srv.opts.ScorerID))
		}
		script = &scripted{name: cr.Request.Policy}
		scored = func(string, policy.Params) (policy.Policy, error) { return script, nil }
	}
	ss, err := newSession(id, cr.Request, cr.Request.Budget, scored)
	if err != nil {
		return nil, fmt.Errorf("session %s: replay its creation: %w", id, err)
	}
	ss.script = script
	for _, r := range recs[1:] {
		if err := d.applyLocked(ctx, ss, r); err != nil {
			return nil, err
		}
	}
	return ss, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// catchUpLocked applies the records other replicas appended since ss's
// last one (shared stores only: a bbolt file has one writer).
func (d *logStore) catchUpLocked(ctx context.Context, ss *session) error {
	if !d.log.Shared() || ss.ended {
		return nil
	}
	var recs []sessionlog.Record
	err := d.storeOp("load", func() (err error) {
		recs, err = d.log.Load(ctx, ss.id, ss.seq+1)
		return err
	})
	if err != nil {
		return errDirty{storeError("catch up session "+ss.id, err)}
	}
	for _, r := range recs {
		if err := d.applyLocked(ctx, ss, r); err != nil {
			return errDirty{err}
		}
	}
	return nil
}

// applyLocked replays one record on ss. An ask must choose the recorded
// edges: a policy is a function of its seed and its calls, so another
// choice means the log and this build disagree, and is an error.
func (d *logStore) applyLocked(ctx context.Context, ss *session, r sessionlog.Record) error {
	if r.Seq != ss.seq+1 {
		return fmt.Errorf("session %s: record %d after %d", ss.id, r.Seq, ss.seq)
	}
	switch r.Kind {
	case sessionlog.KindAsk:
		var a askRecord
		if err := decodeRecord(ss.id, r, &a); err != nil {
			return err
		}
		if ss.script != nil {
			ss.script.next = append(ss.script.next, a.Edges)
		}
		resp, err := ss.askLocked(ctx, a.N)
		if err != nil {
			return fmt.Errorf("session %s: replay ask %d: %w", ss.id, r.Seq, err)
		}
		got := make([]corpus.EdgeID, len(resp.Edges))
		for i, e := range resp.Edges {
			got[i] = e.Edge
		}
		if !slices.Equal(got, a.Edges) {
			return fmt.Errorf("session %s: replay of ask %d chose edges %v, the log says %v", ss.id, r.Seq, got, a.Edges)
		}
		ss.lastAskID, ss.lastAskSeq, ss.lastAskEdges = a.RequestID, r.Seq, resp.Edges
	case sessionlog.KindTell:
		var t tellRecord
		if err := decodeRecord(ss.id, r, &t); err != nil {
			return err
		}
		if _, err := ss.tellLocked(t.Edge, &t.Child); err != nil {
			return fmt.Errorf("session %s: replay tell %d: %w", ss.id, r.Seq, err)
		}
	case sessionlog.KindEnd:
		var end endRecord
		_ = decodeRecord(ss.id, r, &end)
		ss.seq = r.Seq
		ss.ended = true
		return errorf(http.StatusNotFound, "session %s ended (%s)", ss.id, end.Why)
	default:
		return fmt.Errorf("session %s record %d: unknown kind %q", ss.id, r.Seq, r.Kind)
	}
	ss.seq = r.Seq
	return nil
}

// ask is session.ask, recorded before it is answered; a resent ask (the
// same request id as the last record) is answered again.
func (d *logStore) ask(ctx context.Context, id string, n int, reqID string) (resp api.AskResponse, err error) {
	err = d.withSession(ctx, id, func(ss *session) error {
		if ss.ended {
			return errEnded
		}
		if reqID != "" && reqID == ss.lastAskID && ss.lastAskSeq == ss.seq {
			resp = api.AskResponse{Edges: slices.Clone(ss.lastAskEdges), State: ss.stateLocked(),
				Frontier: len(ss.core.Frontier()), Outstanding: ss.core.Outstanding()}
			return nil
		}
		if resp, err = ss.askLocked(ctx, n); err != nil {
			return errDirty{err} // the policy may have moved
		}
		if len(resp.Edges) == 0 {
			return nil
		}
		rec := askRecord{N: n, Edges: make([]corpus.EdgeID, len(resp.Edges)), RequestID: reqID}
		for i, e := range resp.Edges {
			rec.Edges[i] = e.Edge
		}
		if err := d.appendLocked(ctx, ss, sessionlog.KindAsk, rec); err != nil {
			return err
		}
		ss.lastAskID, ss.lastAskSeq, ss.lastAskEdges = reqID, ss.seq, resp.Edges
		return nil
	})
	return resp, err
}

// tell is session.tell, recorded before it is answered.
func (d *logStore) tell(ctx context.Context, id string, e corpus.EdgeID, child *api.Program) (resp api.TellResponse, err error) {
	err = d.withSession(ctx, id, func(ss *session) error {
		if resp, err = ss.tellLocked(e, child); err != nil || resp.Repeated {
			return err // a tell that fails changes nothing
		}
		return d.appendLocked(ctx, ss, sessionlog.KindTell, tellRecord{Edge: e, Child: *child})
	})
	return resp, err
}

// describe is the session's state, caught up.
func (d *logStore) describe(ctx context.Context, id string) (desc api.Session, err error) {
	err = d.withSession(ctx, id, func(ss *session) error {
		if ss.ended {
			return errEnded
		}
		desc = ss.describeLocked(d.srv.opts.SessionIdle, d.srv.opts.Now())
		return nil
	})
	return desc, err
}

// snapshot is the session's tree, caught up.
func (d *logStore) snapshot(ctx context.Context, id string) (ss *session, t *corpus.Tree, err error) {
	err = d.withSession(ctx, id, func(c *session) error {
		if c.ended {
			return errEnded
		}
		ss, t = c, c.snapshotLocked()
		return nil
	})
	return ss, t, err
}

// end records the end of session id, drops its copy and exports it
// (SessionsDir) as memStore does. A learned session of another checkpoint
// is ended too, from its recorded choices.
func (d *logStore) end(ctx context.Context, id, why string) (desc api.Session, err error) {
	s := d.srv
	var ended *session
	err = d.withCopy(ctx, id, true, func(ss *session) error {
		if ss.ended {
			return errEnded
		}
		desc = ss.describeLocked(s.opts.SessionIdle, s.opts.Now())
		// Exported before the end is recorded: a crash in between leaves
		// the session open, to be exported again (the same file) when
		// it ends, never ended and not exported.
		if s.opts.SessionsDir != "" {
			if err := s.saveLogged(ss.id, why, ss.snapshotLocked(), ss.req.RootIndex); err != nil {
				return errorf(http.StatusInternalServerError, "session %s not ended: saving it failed: %v", ss.id, err)
			}
		}
		if err := d.appendLocked(ctx, ss, sessionlog.KindEnd, endRecord{Why: why}); err != nil {
			return err
		}
		ss.ended = true
		ended = ss
		return nil
	})
	if err != nil {
		return api.Session{}, err
	}
	d.copies.drop(ended)
	s.countEnd(why)
	return desc, nil
}

// expireIdle drops the copies idle here (they stay in the log) and ends
// the sessions idle in the store for longer than SessionIdle, unless this
// server used them since.
func (d *logStore) expireIdle(ctx context.Context) {
	s := d.srv
	d.copies.sweep()
	now := s.opts.Now()
	var ids []string
	err := d.storeOp("stale", func() (err error) {
		ids, err = d.log.Stale(ctx, now.Add(-s.opts.SessionIdle), 256)
		return err
	})
	if err != nil {
		s.opts.Logger.Warn("session store: list idle sessions", "err", err)
		return
	}
	for _, id := range ids {
		if c := d.copies.lookupCopy(id); c != nil && d.copies.idleFor(c, now) <= s.opts.SessionIdle {
			continue
		}
		if _, err := d.end(ctx, id, "expired"); err != nil && !errors.Is(err, errEnded) {
			var se *statusError
			if !errors.As(err, &se) || se.code != http.StatusNotFound {
				s.opts.Logger.Warn("expire session", "session", id, "err", err)
			}
		}
	}
}

// scripted is the policy of a session rebuilt only to be exported: its
// asks return the edges the log recorded.
type scripted struct {
	name string // the session's policy (learned or hybrid)
	next [][]corpus.EdgeID
}

func (p *scripted) Name() string                              { return p.name }
func (p *scripted) Start(*corpus.Tree, uint64) policy.Episode { return p }
func (p *scripted) Tell(corpus.EdgeID, *corpus.Node) error    { return nil }

func (p *scripted) Ask(_ context.Context, _ []corpus.EdgeID, _ int) ([]corpus.EdgeID, error) {
	if len(p.next) == 0 {
		return nil, errors.New("this session runs on another learned scorer; it can only be exported here")
	}
	e := p.next[0]
	p.next = p.next[1:]
	return e, nil
}

// health checks the store for /healthz.
func (d *logStore) health(ctx context.Context) *api.StoreHealth {
	h := &api.StoreHealth{Store: d.log.Describe(), Shared: d.log.Shared(), OK: true}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	err := d.storeOp("ping", func() error { return d.log.Ping(ctx) })
	h.PingMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		h.OK, h.Error = false, err.Error()
	}
	return h
}
