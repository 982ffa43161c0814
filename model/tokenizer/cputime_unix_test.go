//go:build unix

package tokenizer

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user+system) the process has used; on a
// shared machine it measures the work of a benchmark where wall time
// measures the load of others too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
