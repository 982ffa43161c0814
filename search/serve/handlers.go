package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"triage/search/serve/api"

	"triage/policy"
)

// writeJSON answers v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, api.Error{Error: msg})
}

// fail answers err: its own status for a statusError, 413 for a body over
// the limit, 503 for the request's deadline or a full model queue, 500
// otherwise (logged).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var se *statusError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &se):
		if se.code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, se.code, se.msg)
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", mbe.Limit))
	case errors.Is(err, policy.ErrQueueFull):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "the model is overloaded: "+err.Error())
	case isCtxErr(err) && r.Context().Err() != nil:
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("request timed out after %v", s.opts.RequestTimeout))
	default:
		s.opts.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// decode reads one JSON object into v: unknown fields, malformed or
// truncated JSON, wrong types and trailing data are 400 with the field or
// position named; a body over the limit is 413.
func decode(r *http.Request, v any) error { return decodeBody(r, v, false) }

// decodeBody is decode; with optional set an empty body leaves v as is.
func decodeBody(r *http.Request, v any, optional bool) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if optional && err == io.EOF {
		return nil
	}
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			var mbe *http.MaxBytesError
			if errors.As(terr, &mbe) {
				return terr
			}
			return errorf(http.StatusBadRequest, "trailing data after the JSON object")
		}
		return nil
	}
	var mbe *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, "empty body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "truncated JSON")
	case errors.As(err, &syn):
		return errorf(http.StatusBadRequest, "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return errorf(http.StatusBadRequest, "field %s: cannot use JSON %s as %v", field, typ.Value, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(http.StatusBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errorf(http.StatusBadRequest, "bad JSON: %v", err)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := api.Health{Status: "ok", Learned: s.opts.Scorer != nil, Sessions: s.sessions.len(), Store: s.sessions.health(r.Context())}
	if !h.Learned {
		h.LearnedError = s.opts.ScorerError
	}
	code := http.StatusOK
	if h.Store != nil && !h.Store.OK {
		// Not ready: nothing could be acknowledged durably.
		h.Status, code = "store_unavailable", http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}

// batchStats is implemented by a batching scorer (policy.Batcher).
type batchStats interface{ Stats() policy.BatchStats }

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	var bs *policy.BatchStats
	if b, ok := s.opts.Scorer.(batchStats); ok {
		st := b.Stats()
		bs = &st
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = s.metrics.write(w, s.sessions.len(), bs)
}

func (s *Server) noScorer() error {
	return errorf(http.StatusNotImplemented, "no learned scorer on this server: %s (%s)", s.opts.ScorerError, s.opts.ScorerHint)
}

func (s *Server) handlePriorities(w http.ResponseWriter, r *http.Request) {
	var req api.PrioritiesRequest
	if err := decode(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if s.opts.Scorer == nil {
		s.fail(w, r, s.noScorer())
		return
	}
	if len(req.Edges) > s.opts.MaxEdges {
		s.fail(w, r, errorf(http.StatusBadRequest, "%d edges, at most %d per request", len(req.Edges), s.opts.MaxEdges))
		return
	}
	for i := range req.Edges {
		if err := req.Edges[i].Validate(); err != nil {
			s.fail(w, r, errorf(http.StatusBadRequest, "edges[%d]: %v", i, err))
			return
		}
	}
	dists, err := s.opts.Scorer.Score(r.Context(), req.Edges)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(dists) != len(req.Edges) {
		s.fail(w, r, fmt.Errorf("scorer returned %d distributions for %d edges", len(dists), len(req.Edges)))
		return
	}
	resp := api.PrioritiesResponse{Priorities: make([]api.Priority, len(dists))}
	for i, d := range dists {
		e := &req.Edges[i]
		if err := d.Validate(); err != nil {
			s.fail(w, r, fmt.Errorf("scorer: edge %d: %w", i, err))
			return
		}
		if len(d) != e.MaxDepth+1 {
			s.fail(w, r, fmt.Errorf("scorer: edge %d: %d bins for max_depth %d", i, len(d), e.MaxDepth))
			return
		}
		sc, err := d.S(e.Remaining)
		if err != nil {
			s.fail(w, r, fmt.Errorf("scorer: edge %d: %w", i, err))
			return
		}
		resp.Priorities[i] = api.Priority{Dist: d, S: sc}
	}
	s.metrics.add(&s.metrics.priorityEdges, uint64(len(dists)))
	writeJSON(w, http.StatusOK, resp)
}

// scoredPolicy builds a policy that needs the server's scorer (learned,
// hybrid); learned sessions share one policy value.
func (s *Server) scoredPolicy(name string, params policy.Params) (policy.Policy, error) {
	if s.opts.Scorer == nil {
		return nil, s.noScorer()
	}
	if name == "learned" {
		return s.learned, nil
	}
	p, err := policy.NewScored(name, params, s.opts.Scorer)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	return p, nil
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req api.CreateSessionRequest
	if err := decode(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	ss, err := newSession(newID(), req, s.opts.MaxBudget, s.scoredPolicy)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.sessions.add(r.Context(), ss, req); err != nil {
		s.fail(w, r, err)
		return
	}
	s.metrics.add(&s.metrics.sessionsCreated, 1)
	w.Header().Set("Location", "/v1/sessions/"+ss.id)
	writeJSON(w, http.StatusCreated, ss.describe(s.opts.SessionIdle, s.opts.Now()))
}

// lookup returns the session named in the path, or answers its error (404
// for none here, or an expired one, in memory; a session of the log is
// checked at its use).
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) sessionRef {
	ref, err := s.sessions.ref(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return nil
	}
	return ref
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	ref := s.lookup(w, r)
	if ref == nil {
		return
	}
	desc, err := ref.describe(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, desc)
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	desc, err := s.sessions.end(r.Context(), r.PathValue("id"), "deleted")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, desc)
}

func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	ref := s.lookup(w, r)
	if ref == nil {
		return
	}
	var req api.AskRequest
	if err := decodeBody(r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.N == 0 {
		req.N = 1
	}
	if req.N < 0 || req.N > s.opts.MaxAsk {
		s.fail(w, r, errorf(http.StatusBadRequest, "n %d outside [1, %d]", req.N, s.opts.MaxAsk))
		return
	}
	if len(req.RequestID) > 128 {
		s.fail(w, r, errorf(http.StatusBadRequest, "request_id of %d bytes, at most 128", len(req.RequestID)))
		return
	}
	resp, err := ref.ask(r.Context(), req.N, req.RequestID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleTell(w http.ResponseWriter, r *http.Request) {
	ref := s.lookup(w, r)
	if ref == nil {
		return
	}
	var req api.TellRequest
	if err := decode(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	resp, err := ref.tell(r.Context(), req.Edge, &req.Child)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !resp.Repeated {
		s.metrics.add(&s.metrics.expansions, 1)
	}
	writeJSON(w, http.StatusOK, resp)
}
