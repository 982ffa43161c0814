package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"triage/corpus"
)

// BenchmarkLayers measures what each layer costs in CPU time (this process
// and every worker and run it started, from getrusage, so other load on the
// machine does not count): per suite of the embedded benchmark set with two
// workers, with every layer on and with one layer off at a time, and the
// start-up of a two-worker pool. The README's cost table comes from
//
//	go test ./search/sandbox -run '^$' -bench Layers -benchtime 1x
func BenchmarkLayers(b *testing.B) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		b.Skip("no python")
	}
	if os.Geteuid() != 0 {
		b.Skip("the layers need root")
	}
	suites, err := BenchSuites()
	if err != nil {
		b.Fatal(err)
	}
	const rounds = 2
	n := rounds * len(suites)
	configs := []struct {
		name string
		off  layerSet
	}{
		{"all", nil},
		{"no-recheck", layerSet{layerRecheck: true}},
		{"no-reference-ids", layerSet{layerReferenceIDs: true}},
		{"no-audit-hook", layerSet{layerAuditHook: true}},
		{"no-static-check", layerSet{layerStatic: true}},
		{"no-seccomp", layerSet{layerSeccomp: true}},
		{"no-mount-allowlist", layerSet{layerAllowlist: true}},
	}
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				startup, _ := layerCPU(b, c.off, suites, 0)
				total, solved := layerCPU(b, c.off, suites, n)
				b.ReportMetric(startup*1000, "startup-cpu-ms")
				b.ReportMetric((total-startup)*1000/float64(n), "cpu-ms/suite")
				b.ReportMetric(float64(solved), "solved")
			}
		})
	}
}

// layerCPU starts a two-worker pool without the layers in off, runs n
// suites, closes it and returns the CPU seconds spent and the solved count.
func layerCPU(b *testing.B, off layerSet, suites []Suite, n int) (float64, int) {
	b.Helper()
	cpu0 := cpuSeconds()
	p, err := New(Options{Workers: 2, disabled: off})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]corpus.Execution, n)
	if n > 0 {
		if _, err := runAll(context.Background(), p, n, 2, func(i int) Suite { return suites[i%len(suites)] }, out, nil, "layers"); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		b.Fatal(err)
	}
	solved := 0
	for _, ex := range out {
		if ex.Solved() {
			solved++
		}
	}
	return cpuSeconds() - cpu0, solved
}
