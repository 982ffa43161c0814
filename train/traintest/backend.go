package traintest

import (
	"os"
	"sync"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"triage/model"
)

// The backend is opened once per test binary.
var (
	backendOnce sync.Once
	backendVal  backends.Backend
	backendErr  error
)

// Backend is go:ops_sequential (offline, CPU) unless GOMLX_BACKEND is set.
func Backend(t testing.TB) backends.Backend {
	t.Helper()
	backendOnce.Do(func() {
		spec := os.Getenv("GOMLX_BACKEND")
		if spec == "" {
			spec = model.DefaultBackend
		}
		backendVal, backendErr = model.NewBackend(spec)
	})
	if backendErr != nil {
		t.Fatalf("backend: %v", backendErr)
	}
	return backendVal
}
