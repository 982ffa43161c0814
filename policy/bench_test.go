package policy_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"triage/policy/policytest"
)

// BenchmarkDecision measures one Ask(frontier, 1) of every policy on a tree
// whose frontier holds 100, 1,000 or 10,000 pending edits (k = 3), after
// every expanded edge has been told. Reported as ns/decision (wall) and
// cpu-ns/decision (CPU time of the benchmark's thread, which a loaded
// machine does not inflate).
func BenchmarkDecision(b *testing.B) {
	for _, size := range []int{100, 1000, 10000} {
		tr, expanded, pending := policytest.Wide(3, size)
		for name, mk := range allPolicies(b) {
			b.Run(fmt.Sprintf("%s/frontier=%d", name, size), func(b *testing.B) {
				p, err := mk()
				if err != nil {
					b.Fatal(err)
				}
				ep := p.Start(tr, 1)
				for _, e := range expanded {
					if err := ep.Tell(e, tr.Node(tr.Edges[e].Child)); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := ep.Ask(context.Background(), pending, 1); err != nil { // warm caches (learned scores here)
					b.Fatal(err)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0, okCPU := threadCPU()
				b.ResetTimer()
				for b.Loop() {
					if _, err := ep.Ask(context.Background(), pending, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
				if cpu1, ok := threadCPU(); ok && okCPU {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/decision")
				}
			})
		}
	}
}
