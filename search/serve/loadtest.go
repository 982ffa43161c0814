package serve

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"triage/search/serve/api"

	"triage/model/priority"
)

// LoadOptions configure LoadTest.
type LoadOptions struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL   string
	Token string
	// Clients post concurrently, each waiting for its answer before the
	// next request (default 64), for Duration (default 30 s).
	Clients  int
	Duration time.Duration
	// EdgesPerRequest is the edges of one request (default 3: the k edits
	// of one parent, what one search step scores).
	EdgesPerRequest int
	// Timeout bounds one request (default 60 s).
	Timeout time.Duration
}

// LoadResult is what LoadTest measured.
type LoadResult struct {
	Clients         int     `json:"clients"`
	EdgesPerRequest int     `json:"edges_per_request"`
	Seconds         float64 `json:"seconds"`
	Requests        int     `json:"requests"`
	Errors          int     `json:"errors"`
	RequestsPerSec  float64 `json:"requests_per_sec"`
	EdgesPerSec     float64 `json:"edges_per_sec"`
	P50Ms           float64 `json:"p50_ms"`
	P90Ms           float64 `json:"p90_ms"`
	P99Ms           float64 `json:"p99_ms"`
	MaxMs           float64 `json:"max_ms"`
	FirstError      string  `json:"first_error,omitempty"`
}

// LoadTest posts /v1/priorities from Clients concurrent clients for
// Duration and reports latency percentiles, throughput and errors (any
// answer but 200 with one priority per edge). A request's time includes
// encoding it and decoding the answer, as a client in Go would spend. Requests still in flight at
// the end are waited for and counted.
func LoadTest(ctx context.Context, o LoadOptions) (LoadResult, error) {
	if o.Clients == 0 {
		o.Clients = 64
	}
	if o.Duration == 0 {
		o.Duration = 30 * time.Second
	}
	if o.EdgesPerRequest == 0 {
		o.EdgesPerRequest = 3
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Clients < 0 || o.Duration < 0 || o.EdgesPerRequest < 0 || o.Timeout < 0 {
		return LoadResult{}, fmt.Errorf("load test: negative option in %+v", o)
	}
	tr := &http.Transport{MaxIdleConns: o.Clients, MaxIdleConnsPerHost: o.Clients, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &api.Client{BaseURL: o.URL, Token: o.Token, HTTP: &http.Client{Transport: tr, Timeout: o.Timeout}}

	type clientStats struct {
		lat      []time.Duration
		errors   int
		firstErr string
	}
	stats := make([]clientStats, o.Clients)
	start := time.Now()
	deadline := start.Add(o.Duration)
	// One goroutine per simulated client, all at once: the load is the
	// point, so this is not bounded work for an errgroup limit.
	var wg sync.WaitGroup
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &stats[c]
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				edges := loadEdges(c, i, o.EdgesPerRequest)
				t0 := time.Now()
				got, err := client.Priorities(ctx, edges)
				if err == nil && len(got) != len(edges) {
					err = fmt.Errorf("%d priorities for %d edges", len(got), len(edges))
				}
				st.lat = append(st.lat, time.Since(t0))
				if err != nil {
					st.errors++
					if st.firstErr == "" {
						st.firstErr = err.Error()
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return LoadResult{}, err
	}
	elapsed := time.Since(start)
	res := LoadResult{Clients: o.Clients, EdgesPerRequest: o.EdgesPerRequest, Seconds: elapsed.Seconds()}
	var all []time.Duration
	for _, st := range stats {
		all = append(all, st.lat...)
		res.Errors += st.errors
		if res.FirstError == "" {
			res.FirstError = st.firstErr
		}
	}
	res.Requests = len(all)
	ok := res.Requests - res.Errors
	res.RequestsPerSec = float64(ok) / elapsed.Seconds()
	res.EdgesPerSec = float64(ok*o.EdgesPerRequest) / elapsed.Seconds()
	slices.Sort(all)
	res.P50Ms, res.P90Ms, res.P99Ms = quantileMs(all, 0.50), quantileMs(all, 0.90), quantileMs(all, 0.99)
	if len(all) > 0 {
		res.MaxMs = ms(all[len(all)-1])
	}
	return res, nil
}

// quantileMs is the q-quantile of sorted (nearest rank), in milliseconds.
func quantileMs(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadEdges are n edges of one parent with texts of the sizes the model
// reads (feedback ≈ 375 tokens, diagnosis ≈ 470, edit ≈ 175, at about four
// bytes a token), distinct per client and request.
func loadEdges(client, req, n int) []priority.Edge {
	tag := fmt.Sprintf("client %d request %d", client, req)
	feedback := "FAILED test_solution.py::test_case - AssertionError: assert f(3) == 6 (" + tag + ")\n" + strings.Repeat("E   where 5 = f(3)\n", 80)
	diagnosis := "The loop stops one step early (" + tag + "); " + strings.Repeat("the range bound excludes the last index, so the sum misses it. ", 30)
	program := "def f(n):\n" + strings.Repeat("    total = sum(range(n))\n", 30) + "    return total\n"
	out := make([]priority.Edge, n)
	for i := range out {
		out[i] = priority.Edge{
			Feedback: feedback, Diagnosis: diagnosis, Program: program,
			Edit:     fmt.Sprintf("Edit %d: change range(n) to range(n + 1) in line %d. ", i, i+2) + strings.Repeat("This includes n itself. ", 28),
			PassRate: float64(req%10) / 10, FailedFrac: 1 - float64(req%10)/10,
			Depth: req % 4, MaxDepth: 4, Remaining: 4 - req%4,
		}
	}
	return out
}
