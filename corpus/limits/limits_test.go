package limits_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/corpus/manifest"
)

func TestTimeLimits(t *testing.T) {
	d := limits.DefaultTimeLimits()
	d.HarnessFactor, d.HarnessFloor, d.ProgramFloor = 0, 0, 0 // the whole count, as before the split
	tests := []struct {
		l    limits.TimeLimits
		ref  time.Duration
		want time.Duration
	}{
		{d, 4 * time.Millisecond, d.Floor},
		{d, 100 * time.Millisecond, time.Second},
		{d, 123456 * time.Microsecond, 1235 * time.Millisecond}, // rounded up to a millisecond
		{d, 5 * time.Second, d.Cap},
		{limits.TimeLimits{Fixed: 3 * time.Second}, time.Millisecond, 3 * time.Second},
		{limits.TimeLimits{Floor: time.Millisecond, Factor: 1.5, Cap: time.Second}, 1001 * time.Microsecond, 2 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := tc.l.For(tc.ref); got != tc.want {
			t.Errorf("%+v.For(%v) = %v, want %v", tc.l, tc.ref, got, tc.want)
		}
	}
	refused(t, []limits.TimeLimits{{Fixed: -1}, {Floor: 0, Factor: 2, Cap: time.Second},
		{Floor: 2 * time.Second, Factor: 2, Cap: time.Second}, {Floor: 1, Factor: 0.5, Cap: 2},
		{Clock: "cpus", Floor: 1, Factor: 2, Cap: 2}, {Clock: limits.ClockCPU, Floor: 1, Factor: 2, Cap: 2, WallFactor: 0.5},
		{Clock: limits.ClockCPU, Floor: 1, Factor: 2, Cap: 2, WallFloor: -1}})
	if d.Validate() != nil || limits.DefaultTimeLimits().Validate() != nil || limits.DefaultWallTimeLimits().Validate() != nil {
		t.Error("defaults invalid")
	}
}

// TestTimeLimitsClock: CPU limits run with a wall-clock backstop and count
// the reference's CPU time; wall limits count its wall time; limits read
// from a manifest written before CPU limits are on the wall clock, and a
// resume with CPU limits names the setting.
func TestTimeLimitsClock(t *testing.T) {
	cpu, wall := limits.DefaultTimeLimits(), limits.DefaultWallTimeLimits()
	if got := cpu.Run(100 * time.Millisecond); got.CPU != 100*time.Millisecond || got.Timeout != limits.DefaultWallFloor {
		t.Errorf("cpu.Run(100ms) = %+v, want the CPU limit and the backstop floor", got)
	}
	if got := cpu.Run(time.Second); got.Timeout != 10*time.Second {
		t.Errorf("cpu.Run(1s) = %+v, want a backstop of 10 s", got)
	}
	if got := wall.Run(time.Second); got.CPU != 0 || got.Timeout != time.Second {
		t.Errorf("wall.Run(1s) = %+v", got)
	}
	ex := corpus.Execution{DurationMS: 300, CPUMS: 12}
	if cpu.Reference(ex) != 12 || wall.Reference(ex) != 300 || cpu.Reference(corpus.Execution{DurationMS: 300}) != 300 {
		t.Errorf("Reference: cpu %v, wall %v", cpu.Reference(ex), wall.Reference(ex))
	}
	var old limits.TimeLimits
	if err := json.Unmarshal([]byte(`{"floor":"250ms","factor":10,"cap":"10s"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old != wall {
		t.Errorf("old manifest's limits %+v, want %+v", old, wall)
	}
	var back limits.TimeLimits
	b, _ := json.Marshal(cpu)
	if err := json.Unmarshal(b, &back); err != nil || back != cpu {
		t.Errorf("round trip of %s: %+v, %v", b, back, err)
	}
	diff := manifest.DiffSettings(manifest.BuildSettings{Limits: old}, manifest.BuildSettings{Limits: cpu})
	if !strings.Contains(strings.Join(diff, "; "), `time_limits.clock: manifest "wall", now "cpu"`) {
		t.Errorf("diff %v does not name time_limits.clock", diff)
	}
	if d := manifest.DiffSettings(manifest.BuildSettings{Limits: old}, manifest.BuildSettings{Limits: wall}); len(d) != 0 {
		t.Errorf("old manifest against wall limits: %v", d)
	}
}

// TestTimeLimitsSplit: split limits charge the reference's program CPU
// Factor times and its harness CPU HarnessFactor times (at least
// HarnessFloor), within Floor and Cap; only reference runs ask for the
// split; the manifest keeps the harness settings, and limits read from a
// manifest written before the split charge the whole count, a resume with
// split limits naming the setting.
func TestTimeLimitsSplit(t *testing.T) {
	d := limits.DefaultTimeLimits()
	tests := []refCase{
		{"harness rules", d, limits.RefTime{MS: 90, ProgramMS: 4}, 40*time.Millisecond + 516*time.Millisecond},
		{"harness floor", d, limits.RefTime{MS: 20, ProgramMS: 2}, 20*time.Millisecond + d.HarnessFloor},
		{"program rules", d, limits.RefTime{MS: 900, ProgramMS: 800}, 8*time.Second + 600*time.Millisecond},
		{"cap", d, limits.RefTime{MS: 2000, ProgramMS: 1500}, d.Cap},
		{"floor", limits.TimeLimits{Clock: limits.ClockCPU, Floor: 500 * time.Millisecond, Factor: 10, Cap: 10 * time.Second, HarnessFactor: 2},
			limits.RefTime{MS: 50, ProgramMS: 1}, 500 * time.Millisecond},
		{"rounded up to a millisecond", d, limits.RefTime{MS: 100.0004, ProgramMS: 0.0001}, 601 * time.Millisecond},
		{"no split measured: all harness", d, limits.RefTime{MS: 90}, 540 * time.Millisecond},
		{"whole count without a harness factor", limits.TimeLimits{Clock: limits.ClockCPU, Floor: d.Floor, Factor: 10, Cap: d.Cap},
			limits.RefTime{MS: 90, ProgramMS: 4}, 900 * time.Millisecond},
		{"wall clock ignores the split", limits.DefaultWallTimeLimits(), limits.RefTime{MS: 90, ProgramMS: 4}, 900 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := tc.l.LimitOf(tc.ref); got != tc.want {
			t.Errorf("%s: LimitOf(%+v) = %v, want %v", tc.name, tc.ref, got, tc.want)
		}
	}
	if !d.Measure().SplitCPU || d.Run(time.Second).SplitCPU || limits.DefaultWallTimeLimits().Measure().SplitCPU {
		t.Error("only the reference's runs under split limits ask for the split")
	}
	ex := corpus.Execution{DurationMS: 300, CPUMS: 90, ProgramCPUMS: 120}
	if got := d.Sample(ex); got != (limits.RefTime{MS: 90, ProgramMS: 90}) {
		t.Errorf("Sample(%+v) = %+v: the program's part is capped at the count", ex, got)
	}
	if got := limits.MedianRef([]limits.RefTime{{MS: 100, ProgramMS: 1, OwnMS: 0.5}, {MS: 80, ProgramMS: 9, OwnMS: 9}, {MS: 90, ProgramMS: 5, OwnMS: 3}}); got != (limits.RefTime{MS: 90, ProgramMS: 5, OwnMS: 3}) {
		t.Errorf("MedianRef = %+v", got)
	}
	refused(t, []limits.TimeLimits{
		{Clock: limits.ClockCPU, Floor: 1, Factor: 2, Cap: 2, HarnessFactor: 0.5},
		{Clock: limits.ClockCPU, Floor: 1, Factor: 2, Cap: 2, HarnessFactor: 2, HarnessFloor: -1},
		{Clock: limits.ClockCPU, Floor: 1, Factor: 2, Cap: 2, HarnessFloor: 1},
		{Clock: limits.ClockWall, Floor: 1, Factor: 2, Cap: 2, HarnessFactor: 2},
	})
	roundTrip(t, d)
	var before limits.TimeLimits // written by a build with CPU limits on the whole count
	if err := json.Unmarshal([]byte(`{"clock":"cpu","floor":"50ms","factor":10,"cap":"10s","wall_floor":"2s","wall_factor":10}`), &before); err != nil {
		t.Fatal(err)
	}
	if before.Split() || before.LimitOf(limits.RefTime{MS: 90, ProgramMS: 4}) != 900*time.Millisecond {
		t.Errorf("limits of a manifest written before the split: %+v", before)
	}
	diff := strings.Join(manifest.DiffSettings(manifest.BuildSettings{Limits: before}, manifest.BuildSettings{Limits: d}), "; ")
	if !strings.Contains(diff, "time_limits.harness_factor: manifest (unset), now 6") {
		t.Errorf("diff %q does not name time_limits.harness_factor", diff)
	}
}

// TestTimeLimitsProgram: the program's own budget is max(ProgramFloor,
// Factor × the reference's program CPU), only where it is below the task's
// limit and only with split limits; a task's run options carry it; the
// manifest keeps it, and a resume of a corpus built without it names the
// setting.
func TestTimeLimitsProgram(t *testing.T) {
	d := limits.DefaultTimeLimits()
	noSplit := d
	noSplit.HarnessFactor, noSplit.HarnessFloor = 0, 0
	tests := []refCase{
		{"floor rules", d, limits.RefTime{MS: 90, ProgramMS: 4}, d.ProgramFloor},
		{"factor rules", d, limits.RefTime{MS: 120, ProgramMS: 30.0001}, 301 * time.Millisecond},
		{"not below the limit (the cap): none", d, limits.RefTime{MS: 2000, ProgramMS: 1500}, 0},
		{"fixed limit: none", limits.TimeLimits{Fixed: time.Second, ProgramFloor: time.Millisecond}, limits.RefTime{MS: 90, ProgramMS: 4}, 0},
		{"no split: none", noSplit, limits.RefTime{MS: 90, ProgramMS: 4}, 0},
		{"no floor: none", func() limits.TimeLimits { l := d; l.ProgramFloor = 0; return l }(), limits.RefTime{MS: 90, ProgramMS: 4}, 0},
	}
	checkProgramLimits(t, tests)
	refused(t, []limits.TimeLimits{
		func() limits.TimeLimits { l := d; l.ProgramFloor = -1; return l }(),
		func() limits.TimeLimits { l := noSplit; l.ProgramFloor = time.Millisecond; return l }(),
	})
	var before limits.TimeLimits // written by a build with split limits, before the budget
	if err := json.Unmarshal([]byte(`{"clock":"cpu","floor":"50ms","factor":10,"cap":"10s","wall_floor":"2s","wall_factor":10,"harness_factor":6,"harness_floor":"300ms"}`), &before); err != nil {
		t.Fatal(err)
	}
	if before.ProgramFloor != 0 || before.ProgramLimitOf(limits.RefTime{MS: 90, ProgramMS: 4}) != 0 {
		t.Errorf("limits of a manifest written before the budget: %+v", before)
	}
	diff := strings.Join(manifest.DiffSettings(manifest.BuildSettings{Limits: before}, manifest.BuildSettings{Limits: d}), "; ")
	if !strings.Contains(diff, "time_limits.program_floor: manifest (unset), now \"150ms\"") {
		t.Errorf("diff %q does not name time_limits.program_floor", diff)
	}
}

// TestTimeLimitsProgramFollowsMachine: with ProgramHarnessFactor the
// program's floor is min(ProgramFloor, factor × the reference's harness
// CPU), so a fast machine's loops end sooner; the factor term and the cap of
// the floor each rule somewhere; a manifest without the factor keeps the
// fixed floor, and a resume of one names the setting.
func TestTimeLimitsProgramFollowsMachine(t *testing.T) {
	d := limits.DefaultTimeLimits()
	if d.ProgramHarnessFactor != limits.DefaultProgramHarnessFactor || d.Validate() != nil {
		t.Fatalf("defaults %+v", d)
	}
	fixed := d
	fixed.ProgramHarnessFactor = 0
	tests := []refCase{
		{"fast machine: the harness term rules", d, limits.RefTime{MS: 8.5, ProgramMS: 0.5}, 32 * time.Millisecond},
		{"rounded up", d, limits.RefTime{MS: 6.0001, ProgramMS: 0}, 25 * time.Millisecond},
		{"slow machine: the fixed floor caps it", d, limits.RefTime{MS: 120, ProgramMS: 8}, d.ProgramFloor},
		{"the program's factor still rules above it", d, limits.RefTime{MS: 10, ProgramMS: 5}, 50 * time.Millisecond},
		{"factor 0: the fixed floor", fixed, limits.RefTime{MS: 8.5, ProgramMS: 0.5}, d.ProgramFloor},
	}
	checkProgramLimits(t, tests)
	refused(t, []limits.TimeLimits{
		func() limits.TimeLimits { l := d; l.ProgramHarnessFactor = -1; return l }(),
		func() limits.TimeLimits { l := d; l.ProgramHarnessFactor = math.NaN(); return l }(),
		func() limits.TimeLimits { l := d; l.ProgramHarnessFactor = math.Inf(1); return l }(),
	})
	var before limits.TimeLimits // written with the fixed floor
	if err := json.Unmarshal([]byte(`{"clock":"cpu","floor":"50ms","factor":10,"cap":"10s","wall_floor":"2s","wall_factor":10,"harness_factor":6,"harness_floor":"300ms","program_floor":"150ms"}`), &before); err != nil {
		t.Fatal(err)
	}
	if got := before.ProgramLimitOf(limits.RefTime{MS: 8.5, ProgramMS: 0.5}); got != d.ProgramFloor {
		t.Errorf("a manifest with the fixed floor: budget %v, want %v", got, d.ProgramFloor)
	}
	diff := strings.Join(manifest.DiffSettings(manifest.BuildSettings{Limits: before}, manifest.BuildSettings{Limits: d}), "; ")
	if !strings.Contains(diff, "time_limits.program_harness_factor: manifest (unset), now 4") {
		t.Errorf("diff %q does not name time_limits.program_harness_factor", diff)
	}
}

// TestTimeLimitsProgramServe: where the reference counted its own code, the
// program's budget charges that at Factor and the rest of its program CPU
// (the program process serving the tests' requests) at ProgramServeFactor;
// without the count, or with the factor 0 (a manifest written before it),
// Factor charges the whole as before; Sample takes the count from the run,
// capped at its program CPU; bad factors are refused; a resume of a corpus
// built without it names the setting.
func TestTimeLimitsProgramServe(t *testing.T) {
	d := limits.DefaultTimeLimits()
	whole := d
	whole.ProgramServeFactor = 0
	if d.ProgramServeFactor != limits.DefaultProgramServeFactor || d.Validate() != nil || whole.Validate() != nil {
		t.Fatalf("defaults %+v, or without the serve factor %+v: invalid", d, whole)
	}
	ref := limits.RefTime{MS: 20, ProgramMS: 12, OwnMS: 4}
	tests := []refCase{
		// 10 × 4 + 3 × 8 = 64 ms, above the floor min(150 ms, 4 × 8 ms).
		{"own code at the factor, serving at the serve factor", d, ref, 64 * time.Millisecond},
		{"the serve factor 0: the factor for all", whole, ref, 120 * time.Millisecond},
		{"no own count: the factor for all", d, limits.RefTime{MS: 20, ProgramMS: 12}, 120 * time.Millisecond},
		{"the floor still rules", d, limits.RefTime{MS: 10, ProgramMS: 3, OwnMS: 1}, 28 * time.Millisecond},
	}
	checkProgramLimits(t, tests)
	if got := ref.ServeMS(); got != 8 {
		t.Errorf("ServeMS(%+v) = %v, want 8", ref, got)
	}
	ex := corpus.Execution{DurationMS: 300, CPUMS: 90, ProgramCPUMS: 20, ProgramOwnCPUMS: 25}
	if got := d.Sample(ex); got != (limits.RefTime{MS: 90, ProgramMS: 20, OwnMS: 20}) {
		t.Errorf("Sample(%+v) = %+v: the own count is capped at the program's CPU", ex, got)
	}
	refused(t, []limits.TimeLimits{
		func() limits.TimeLimits { l := d; l.ProgramServeFactor = 0.5; return l }(),
		func() limits.TimeLimits { l := d; l.ProgramServeFactor = math.Inf(1); return l }(),
	})
	roundTrip(t, d)
	diff := strings.Join(manifest.DiffSettings(manifest.BuildSettings{Limits: whole}, manifest.BuildSettings{Limits: d}), "; ")
	if !strings.Contains(diff, "time_limits.program_serve_factor: manifest (unset), now 3") {
		t.Errorf("diff %q does not name time_limits.program_serve_factor", diff)
	}
}

// refused fails t for each of bad that Validate accepts.
func refused(t *testing.T, bad []limits.TimeLimits) {
	t.Helper()
	for _, l := range bad {
		if l.Validate() == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}

// roundTrip fails t unless l reads back from its JSON as itself.
func roundTrip(t *testing.T, l limits.TimeLimits) {
	t.Helper()
	var back limits.TimeLimits
	b, _ := json.Marshal(l)
	if err := json.Unmarshal(b, &back); err != nil || back != l {
		t.Errorf("round trip of %s: %+v, %v", b, back, err)
	}
}

// refCase is a reference's count and the limit (or budget) it should get.
type refCase struct {
	name string
	l    limits.TimeLimits
	ref  limits.RefTime
	want time.Duration
}

// checkProgramLimits fails t for each case whose ProgramLimitOf differs.
func checkProgramLimits(t *testing.T, cases []refCase) {
	t.Helper()
	for _, tc := range cases {
		if got := tc.l.ProgramLimitOf(tc.ref); got != tc.want {
			t.Errorf("%s: ProgramLimitOf(%+v) = %v, want %v", tc.name, tc.ref, got, tc.want)
		}
	}
}
