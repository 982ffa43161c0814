package train

import (
	"os"
	"sync"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"triage/model"
)

var (
	backendOnce sync.Once
	backendVal  backends.Backend
	backendErr  error
)

// testBackend is go:ops_sequential (offline, CPU) unless GOMLX_BACKEND is set.
func testBackend(t testing.TB) backends.Backend {
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
