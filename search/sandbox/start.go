package sandbox

import (
	"fmt"

	"triage/corpus/limits"
)

// Start starts the pool a command runs its programs in: workers concurrent
// runs under the limits policy lp. With limits set, the pool's own limit is
// the one limits measure with (the fixed limit, else the cap), so each run
// chooses its task's limit below it; without, the pool keeps its default.
// coverage turns on per-test line coverage (the mutate proposer reads it).
func Start(workers int, lp LimitsPolicy, limits *limits.TimeLimits, coverage bool) (*Pool, error) {
	o := DefaultOptions()
	o.Workers, o.Limits, o.Coverage = workers, lp, coverage
	if limits != nil {
		m := limits.Measure()
		o.Timeout, o.CPULimit = m.Timeout, m.CPU
	}
	p, err := New(o)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	return p, nil
}
