//go:build !linux

package policy_test

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
