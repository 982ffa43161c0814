package sandbox

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// BenchmarkLayers measures what each layer costs, in CPU time of the
// worker's processes as they report it (so other load on the machine counts
// as little as possible, and every figure of one run is taken under the same
// conditions): the start-up phases of a worker; the processes of a run and
// of a reference collection on the same worker, alternating over the
// benchmark set's reference solutions; and the processes of a run on workers
// that lack one layer each, taking the benchmark set's suites in turn across
// all of them. The README's cost table comes from
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
	ctx := context.Background()
	b.Run("startup", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, err := New(Options{Workers: 2})
			if err != nil {
				b.Fatal(err)
			}
			sum := map[string]float64{}
			for _, s := range p.all {
				for k, v := range s.w.hello.StartupCPUMS {
					sum[k] += v / float64(len(p.all))
				}
			}
			p.Close()
			for k, v := range sum {
				b.ReportMetric(v, k+"-ms")
			}
		}
	})
	b.Run("requests", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, err := New(Options{Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			s := <-p.slots
			times := map[string][]float64{}
			for round := 0; round < 3; round++ {
				for _, su := range suites {
					if !strings.HasSuffix(su.Name, "/ref") {
						continue
					}
					for _, kind := range []string{kindRun, kindCollect} {
						program := su.Program
						if kind == kindCollect {
							program = ""
						}
						resp, failed, err := p.exchange(ctx, s, p.request(kind, program, su.Tests, p.opts), p.opts)
						if err != nil || failed != nil {
							b.Fatalf("%s %s: %v %v", kind, su.Name, err, failed)
						}
						times[kind] = append(times[kind], resp.ChildCPUMS)
					}
				}
			}
			p.slots <- s
			p.Close()
			for kind, xs := range times {
				b.ReportMetric(median(xs), kind+"-child-ms")
			}
		}
	})
	b.Run("without-one-layer", func(b *testing.B) {
		configs := []struct {
			name string
			off  layerSet
		}{
			{"all", nil},
			{"no-seccomp", layerSet{layerSeccomp: true}},
			{"no-mount-allowlist", layerSet{layerAllowlist: true}},
			{"no-direct-runner", layerSet{layerDirect: true}},
			{"no-fork-server", layerSet{layerForkServer: true}},
			{"none-of-these", layerSet{layerSeccomp: true, layerAllowlist: true}},
		}
		for i := 0; i < b.N; i++ {
			pools := make([]*Pool, len(configs))
			for j, c := range configs {
				p, err := New(Options{Workers: 1, disabled: c.off})
				if err != nil {
					b.Fatal(err)
				}
				pools[j] = p
			}
			times := make([][]float64, len(configs))
			for round := 0; round < 2; round++ {
				for _, su := range suites {
					for j, p := range pools {
						s := <-p.slots
						resp, failed, err := p.exchange(ctx, s, p.request(kindRun, su.Program, su.Tests, p.opts), p.opts)
						p.slots <- s
						if err != nil || failed != nil {
							continue // the crash programs of the set
						}
						times[j] = append(times[j], resp.ChildCPUMS)
					}
				}
			}
			for j, p := range pools {
				p.Close()
				b.ReportMetric(median(times[j]), configs[j].name+"-run-child-ms")
			}
		}
	})
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
