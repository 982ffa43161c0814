package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// attemptKey carries an *attemptState through a request's context, so the
// doer knows the request's temperature and can report Retry-After, which
// go-openai does not expose.
type attemptKey struct{}

type attemptState struct {
	zeroTemperature bool          // the request asks for temperature 0
	retryAfter      time.Duration // set from the response
}

// doer is the HTTPDoer handed to go-openai. It restores an explicit
// "temperature": 0 (go-openai omits zero values, and servers then default to
// 1) and records Retry-After.
type doer struct {
	client *http.Client
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(attemptKey{}).(*attemptState)
	if st != nil && st.zeroTemperature && req.Body != nil && req.Method == http.MethodPost {
		if err := setZeroTemperature(req); err != nil {
			return nil, err
		}
	}
	resp, err := d.client.Do(req)
	if resp != nil && st != nil {
		st.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, err
}

func setZeroTemperature(req *http.Request) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		if _, ok := m["temperature"]; !ok {
			m["temperature"] = json.RawMessage("0")
			if b, err := json.Marshal(m); err == nil {
				body = b
			}
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
