package sandbox

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"

	"triage/corpus"
)

// expectation is what the pool knows of a test file before any program
// runs: the node ids pytest collects from it when a stand-in takes the
// program's place. Unknown when the test file computes its parameters from
// the program (the stand-in was used), fails to collect, or its collection
// did not finish.
type expectation struct {
	known bool
	ids   []string
	why   string
}

// maxExpectations bounds the pool's cache of test-file collections.
const maxExpectations = 4096

// expectationFor returns the expected test ids of tests, collecting them on
// slot s's worker the first time a test file is seen. Runs that ask for the
// same new test file at once share one collection: the first collects on
// its own slot, the others wait for its result instead of each spending a
// run on it.
func (p *Pool) expectationFor(ctx context.Context, s *slot, tests string) (expectation, error) {
	if p.opts.disabled[layerReferenceIDs] {
		return expectation{why: "switched off"}, nil
	}
	key := sha256.Sum256([]byte(tests))
	for {
		p.expMu.Lock()
		if e, ok := p.expected[key]; ok {
			p.expMu.Unlock()
			return e, nil
		}
		wait, busy := p.expFlight[key]
		if !busy {
			done := make(chan struct{})
			p.expFlight[key] = done
			p.expMu.Unlock()
			defer func() {
				p.expMu.Lock()
				delete(p.expFlight, key)
				p.expMu.Unlock()
				close(done)
			}()
			return p.collectExpectation(ctx, s, key, tests)
		}
		p.expMu.Unlock()
		// Another run collects this file: wait for it, then look again. A
		// collection that left nothing in the cache (it did not finish, or
		// its run ended) makes this run collect it itself.
		select {
		case <-ctx.Done():
			return expectation{}, ctx.Err()
		case <-wait:
		}
	}
}

// collectExpectation collects tests on slot s's worker and caches what it
// learns under key.
func (p *Pool) collectExpectation(ctx context.Context, s *slot, key [32]byte, tests string) (expectation, error) {
	p.collects.Add(1)
	resp, failed, err := p.exchange(ctx, s, p.request(kindCollect, "", tests, p.opts), p.opts)
	if err != nil {
		return expectation{}, err
	}
	if failed != nil {
		// A timeout or crash of the collection may not recur: not cached.
		return expectation{why: "the collection of the test file did not finish: " + firstLine(failed.Feedback)}, nil
	}
	if resp.StaticIDs {
		p.staticIDs.Add(1)
	}
	e := expectationFrom(resp)
	p.expMu.Lock()
	if len(p.expected) >= maxExpectations {
		for k := range p.expected {
			delete(p.expected, k)
			break
		}
	}
	p.expected[key] = e
	p.expMu.Unlock()
	return e, nil
}

// expectationFrom reads a collect response.
func expectationFrom(resp wireResponse) expectation {
	var (
		ids     []string
		have    bool
		done    bool
		touched bool
		errs    int
		exit    = -1
	)
	for _, ev := range resp.Events {
		switch ev.T {
		case "collected":
			ids, have = ev.Names, true
		case "collect_error":
			errs++
		case "stub_touched":
			touched = true
		case "done":
			done = true
			if ev.Exit != nil {
				exit = *ev.Exit
			}
		}
	}
	switch {
	case touched:
		return expectation{why: "the test file uses the program while it is collected"}
	case errs > 0 || !have || !done || (exit != 0 && exit != 5) || resp.TimedOut:
		return expectation{why: "the test file does not collect without a program"}
	}
	if ids == nil {
		ids = []string{}
	}
	return expectation{known: true, ids: ids}
}

// sameIDs reports whether a and b hold the same ids, in any order.
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := make(map[string]int, len(a))
	for _, x := range a {
		count[x]++
	}
	for _, x := range b {
		count[x]--
		if count[x] < 0 {
			return false
		}
	}
	return true
}

// idDifference describes how got differs from want, briefly.
func idDifference(got, want []string) string {
	in := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var extra, missing []string
	for _, x := range got {
		if !w[x] {
			extra = append(extra, testName(x))
		}
	}
	for _, x := range want {
		if !g[x] {
			missing = append(missing, testName(x))
		}
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "not in the test file: "+clip(strings.Join(extra, ", "), 200))
	}
	if len(missing) > 0 {
		parts = append(parts, "missing: "+clip(strings.Join(missing, ", "), 200))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d ids collected, %d expected", len(got), len(want)))
	}
	return strings.Join(parts, "; ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// tamperExecution is the Execution of a run whose verdicts cannot be
// trusted: every test of names fails and the feedback gives the reasons.
func tamperExecution(names []string, reasons []string, ms float64, o Options) corpus.Execution {
	ex := corpus.Execution{Status: corpus.StatusTamper, Tests: make([]corpus.TestResult, 0, len(names)), FailedFrac: 1, DurationMS: ms}
	for _, n := range names {
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: testName(n), Message: "tamper"})
	}
	var b strings.Builder
	b.WriteString("TAMPER: the run's verdicts cannot be trusted; every test counts as failed.\n")
	seen := map[string]bool{}
	for _, r := range reasons {
		if seen[r] {
			continue
		}
		seen[r] = true
		b.WriteString("- " + r + "\n")
	}
	if len(names) > 0 {
		fmt.Fprintf(&b, "0 passed, %d failed of %d tests\n", len(names), len(names))
	}
	ex.Feedback = truncateFeedback(b.String(), o.FeedbackChars)
	return ex
}
