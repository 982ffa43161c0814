package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"triage/corpus"
	"triage/model/priority"
)

// Client calls a triage server with the wire types of this package. The
// zero HTTP uses http.DefaultClient.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8080
	Token   string
	HTTP    *http.Client
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Message) }

// do sends in as JSON (nil: no body) and decodes the answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e Error
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return &StatusError{Code: resp.StatusCode, Message: e.Error}
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// Priorities scores edges (POST /v1/priorities).
func (c *Client) Priorities(ctx context.Context, edges []priority.Edge) ([]Priority, error) {
	var out PrioritiesResponse
	err := c.do(ctx, http.MethodPost, "/v1/priorities", PrioritiesRequest{Edges: edges}, &out)
	return out.Priorities, err
}

// CreateSession starts a session (POST /v1/sessions).
func (c *Client) CreateSession(ctx context.Context, req CreateSessionRequest) (Session, error) {
	var out Session
	err := c.do(ctx, http.MethodPost, "/v1/sessions", req, &out)
	return out, err
}

// Ask asks for up to n edges to expand.
func (c *Client) Ask(ctx context.Context, id string, n int) (AskResponse, error) {
	var out AskResponse
	// A fresh id per call: a transport that resends the request resends
	// the id, and gets the same edges.
	err := c.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(id)+"/ask", AskRequest{N: n, RequestID: requestID()}, &out)
	return out, err
}

// Tell reports that edge was expanded into child.
func (c *Client) Tell(ctx context.Context, id string, edge corpus.EdgeID, child Program) (TellResponse, error) {
	var out TellResponse
	err := c.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(id)+"/tell", TellRequest{Edge: edge, Child: child}, &out)
	return out, err
}

// Session returns a session's state.
func (c *Client) Session(ctx context.Context, id string) (Session, error) {
	var out Session
	err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id), nil, &out)
	return out, err
}

// DeleteSession ends a session and returns its final state.
func (c *Client) DeleteSession(ctx context.Context, id string) (Session, error) {
	var out Session
	err := c.do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(id), nil, &out)
	return out, err
}

// Tree exports a session's tree: format "json" or "parquet" (raw bytes).
func (c *Client) Tree(ctx context.Context, id, format string) ([]byte, error) {
	var out []byte
	err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id)+"/tree?format="+url.QueryEscape(format), nil, &out)
	return out, err
}

// ProgramOf converts node n of a recorded tree to the wire, with the edits
// that keep (nil: all of them), in order.
func ProgramOf(t *corpus.Tree, n *corpus.Node, keep func(corpus.EdgeID) bool) Program {
	pr, ff := n.Exec.PassRate, n.Exec.FailedFrac
	p := Program{Program: n.Program, Status: n.Exec.Status, PassRate: &pr, FailedFrac: &ff,
		Feedback: n.Exec.Feedback, DurationMS: n.Exec.DurationMS, Diagnosis: n.Diagnosis,
		ReviseTokens: n.ReviseTokens, ProposeTokens: n.ProposeTokens,
		ReviseFailed: n.ReviseFailed, ProposeFailed: n.ProposeFailed}
	for _, tr := range n.Exec.Tests {
		p.Tests = append(p.Tests, Test{Name: tr.Name, Passed: tr.Passed, DurationMS: tr.DurationMS, Message: tr.Message})
	}
	for _, e := range n.Edges {
		if keep == nil || keep(e) {
			ed := t.Edges[e].Edit
			p.Edits = append(p.Edits, Edit{Text: ed.Text, Payload: ed.Payload})
		}
	}
	return p
}

// requestID returns a fresh ask request id: 64 random bits in hex.
func requestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}
