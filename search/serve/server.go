// Package serve is the HTTP server of `triage serve`: the priority model
// (POST /v1/priorities) and ask–tell search sessions over any policy
// (/v1/sessions), for repair agents written in any language. The wire
// types are in search/serve/api; docs/serve.md documents the API with examples.
//
// A Server holds no model itself: it is given a policy.Scorer (usually a
// policy.Batcher over the model, so that concurrent requests share one
// model execution) or none, in which case the baselines still work and the
// learned policy and /v1/priorities answer 501.
//
// The handlers reach sessions through one sessionStore (store.go): in
// memory, or in a session log when Options.Store makes them durable
// (durable.go).
//
// Imports: the engine (search) for its sessions, search/serve/api for the
// wire, search/serve/sessionlog for durable sessions (durable.go), corpus,
// policy and model/priority.
package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"triage/corpus"
	"triage/policy"
	"triage/search/serve/sessionlog"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// Scorer is the learned priority model; nil when none is loaded, and
	// then ScorerError says why (it is shown to clients).
	Scorer      policy.Scorer
	ScorerError string
	// ScorerHint tells a client what would give the server a scorer
	// (default: that a checkpoint would, and that baselines need none).
	ScorerHint string
	// MaxBodyBytes bounds a request body (default 8 MiB; larger: 413).
	MaxBodyBytes int64
	// RequestTimeout bounds the handling of one request (default 60 s).
	RequestTimeout time.Duration
	// MaxEdges bounds the edges of one /v1/priorities request (default
	// 1024) and MaxAsk the n of one ask (default 64).
	MaxEdges, MaxAsk int
	// MaxSessions bounds the open sessions (default 1024); SessionIdle is
	// how long a session lives without a request (default 15 min).
	MaxSessions int
	SessionIdle time.Duration
	// MaxBudget bounds a session's budget, and so its tree (default 1000).
	MaxBudget int
	// Token, when set, is the bearer token every request but /healthz
	// must carry.
	Token string
	// SessionsDir, when set, receives every session that ends (deleted,
	// expired or open at shutdown) as a corpus shard.
	SessionsDir string
	// ShutdownTimeout bounds the wait for requests in flight when Serve's
	// context ends (default 30 s).
	ShutdownTimeout time.Duration
	// Store, when set, makes sessions durable: every creation, ask, tell
	// and end is recorded before it is answered, and any server on the
	// same store rebuilds a session from its log (see durable.go). The
	// caller opens and closes it. ScorerID names the learned scorer (the
	// checkpoint's sha256); a learned session is only ever served by the
	// scorer it started on.
	Store    sessionlog.Store
	ScorerID string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Now is the clock of session expiry (default time.Now).
	Now func() time.Time
}

func (o *Options) defaults() error {
	if o.MaxBodyBytes < 0 || o.RequestTimeout < 0 || o.MaxEdges < 0 || o.MaxAsk < 0 || o.MaxSessions < 0 ||
		o.SessionIdle < 0 || o.MaxBudget < 0 || o.ShutdownTimeout < 0 {
		return errors.New("serve: negative limit in options")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 8 << 20
	}
	defDur(&o.RequestTimeout, 60*time.Second)
	def(&o.MaxEdges, 1024)
	def(&o.MaxAsk, 64)
	def(&o.MaxSessions, 1024)
	defDur(&o.SessionIdle, 15*time.Minute)
	def(&o.MaxBudget, 1000)
	defDur(&o.ShutdownTimeout, 30*time.Second)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ScorerHint == "" {
		o.ScorerHint = "start the server with a checkpoint; baseline policies work without one"
	}
	if o.Scorer == nil && o.ScorerError == "" {
		o.ScorerError = "no checkpoint is loaded"
	}
	return nil
}

// Server answers the API. Build it with New; serve it with Serve (or
// mount Handler in your own http.Server and call Close when done).
type Server struct {
	opts     Options
	sessions sessionStore
	metrics  *metrics
	mux      *http.ServeMux
	handler  http.Handler
	learned  policy.Policy
	saveMu   sync.Mutex // serializes writes to SessionsDir
}

// New returns a Server.
func New(opts Options) (*Server, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, metrics: newMetrics()}
	if opts.Store != nil {
		s.sessions = newLogStore(s)
	} else {
		s.sessions = newMemStore(s)
	}
	if opts.Scorer != nil {
		p, err := policy.NewLearned(opts.Scorer)
		if err != nil {
			return nil, err
		}
		s.learned = p
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.handler = s.wrap(s.mux)
	return s, nil
}

// routes lists every route of the API.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /metrics", s.handleMetrics)
	s.mux.HandleFunc("POST /v1/priorities", s.handlePriorities)
	s.mux.HandleFunc("POST /v1/sessions", s.handleCreate)
	s.mux.HandleFunc("GET /v1/sessions/{id}", s.handleGet)
	s.mux.HandleFunc("DELETE /v1/sessions/{id}", s.handleDelete)
	s.mux.HandleFunc("POST /v1/sessions/{id}/ask", s.handleAsk)
	s.mux.HandleFunc("POST /v1/sessions/{id}/tell", s.handleTell)
	s.mux.HandleFunc("GET /v1/sessions/{id}/tree", s.handleTree)
}

// Handler returns the server's http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap adds, outside in: metrics per route, panic recovery, unknown routes
// as JSON errors, the bearer token, the body limit and the request timeout.
func (s *Server) wrap(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, route := mux.Handler(r)
		if route == "" {
			route = "unmatched"
		}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.metrics.add(&s.metrics.panics, 1)
				s.opts.Logger.Error("handler panic", "route", route, "panic", v, "stack", string(debug.Stack()))
				if sw.code == 0 {
					writeError(sw, http.StatusInternalServerError, "internal error")
				}
			}
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			s.metrics.observe(route, code, time.Since(start))
		}()
		if route == "unmatched" {
			s.unmatched(sw, r)
			return
		}
		if s.opts.Token != "" && route != "GET /healthz" && !s.authorized(r) {
			sw.Header().Set("WWW-Authenticate", `Bearer realm="triage"`)
			writeError(sw, http.StatusUnauthorized, "missing or wrong bearer token")
			return
		}
		r.Body = http.MaxBytesReader(sw, r.Body, s.opts.MaxBodyBytes)
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		mux.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// unmatched answers a request no route takes: 405 with Allow when the path
// exists under another method, else 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := s.mux.Handler(probe); p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", ")))
		return
	}
	writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.opts.Token)) == 1
}

// Serve answers on ln until ctx ends, then shuts down gracefully: it stops
// accepting connections, waits up to ShutdownTimeout for the requests in
// flight, and ends the open sessions (saving them to SessionsDir). A nil
// return means a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.RequestTimeout,
		WriteTimeout:      s.opts.RequestTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	janitorDone := make(chan struct{})
	stopJanitor := make(chan struct{})
	go func() {
		defer close(janitorDone)
		s.janitor(stopJanitor)
	}()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		s.opts.Logger.Info("shutting down: finishing requests in flight", "timeout", s.opts.ShutdownTimeout)
		sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	close(stopJanitor)
	<-janitorDone
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// janitor drops idle sessions until stop is closed.
func (s *Server) janitor(stop <-chan struct{}) {
	tick := time.NewTicker(min(max(s.opts.SessionIdle/4, time.Second), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			s.expire()
		}
	}
}

// expire ends every session idle for longer than SessionIdle.
func (s *Server) expire() { s.sessions.expire() }

// Close ends every open session (saving each to SessionsDir when set);
// durable sessions stay open in their store, for the next server. Serve
// calls it; call it yourself when you mount Handler elsewhere.
func (s *Server) Close() error { return s.sessions.close() }

func (s *Server) countEnd(why string) {
	switch why {
	case "expired":
		s.metrics.add(&s.metrics.sessionsExpired, 1)
	case "deleted":
		s.metrics.add(&s.metrics.sessionsDeleted, 1)
	}
}

// saveLogged saves a session's tree to SessionsDir and logs it.
func (s *Server) saveLogged(id, why string, t *corpus.Tree, rootIndex int) error {
	path, err := s.save(id, t, rootIndex)
	if err != nil {
		s.opts.Logger.Error("save session", "session", id, "err", err)
		return err
	}
	s.opts.Logger.Info("session saved", "session", id, "why", why, "path", path)
	return nil
}
