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
		tamper  []string
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
		case "tamper":
			tamper = append(tamper, ev.Why)
		case "done":
			done = true
			if ev.Exit != nil {
				exit = *ev.Exit
			}
		}
	}
	switch {
	case resp.Forged > 0 || len(tamper) > 0:
		return expectation{why: "the collection was refused something: " + strings.Join(tamper, "; ")}
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

// confirm applies the independent re-check to ex, a run the pytest harness
// reported as passing every test: it stays solved only when the re-check's
// one authenticated report has as many tests as ex and all of them passed.
func confirm(ex corpus.Execution, resp wireResponse, failed *corpus.Execution, o Options) corpus.Execution {
	names := make([]string, len(ex.Tests))
	for i, t := range ex.Tests {
		names[i] = testFilePrefix + t.Name
	}
	ms := ex.DurationMS
	if failed != nil {
		ms += failed.DurationMS
		if failed.Status == corpus.StatusTimeout {
			return notFinished(names, ms, o)
		}
		return tamperExecution(names, []string{"passed under pytest, but the re-check's worker died: " + firstLine(failed.Feedback)}, ms, o)
	}
	ms += resp.WallMS
	if resp.TimedOut {
		return notFinished(names, ms, o)
	}
	var reasons []string
	rc := resp.Recheck
	if rc == nil {
		return tamperExecution(names, []string{"passed under pytest, but the re-check returned nothing"}, ms, o)
	}
	reasons = append(reasons, rc.Tamper...)
	if rc.Forged > 0 {
		reasons = append(reasons, fmt.Sprintf("the re-check's result channel carried %d forged message(s)", rc.Forged))
	}
	if len(rc.Reports) != 1 {
		reasons = append(reasons, fmt.Sprintf("passed under pytest, but the re-check ended with %d reports %s", len(rc.Reports), describeExit(resp)))
	} else {
		r := rc.Reports[0]
		switch {
		case r.Tamper != "":
			reasons = append(reasons, "the re-check found "+r.Tamper)
		case r.Unsupported != "":
			reasons = append(reasons, "not confirmed: the re-check harness does not support "+r.Unsupported)
		case r.LoadError != "":
			reasons = append(reasons, "passed under pytest, but the test module did not load in the re-check: "+r.LoadError)
		case r.N != len(ex.Tests):
			reasons = append(reasons, fmt.Sprintf("passed under pytest, but the re-check ran %d tests where pytest ran %d", r.N, len(ex.Tests)))
		case strings.Trim(r.Verdicts, "p") != "":
			failedN := len(r.Verdicts) - strings.Count(r.Verdicts, "p")
			reasons = append(reasons, fmt.Sprintf("passed under pytest, but the re-check failed %d of %d tests (%s)", failedN, r.N, r.First))
		}
	}
	if len(reasons) > 0 {
		return tamperExecution(names, reasons, ms, o)
	}
	ex.DurationMS = ms
	return ex
}

// notFinished is the Execution of a run whose re-check ran out of time.
func notFinished(names []string, ms float64, o Options) corpus.Execution {
	limit := o.Timeout.String()
	if o.CPULimit > 0 {
		limit = fmt.Sprintf("%v of CPU time (wall-clock backstop %v)", o.CPULimit, o.Timeout)
	}
	ex := failedExecution(corpus.StatusTimeout, "TIMEOUT: passed under pytest, but the independent re-check did not finish within "+limit, ms)
	for _, n := range names {
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: testName(n), Message: "not run: timeout"})
	}
	return ex
}
