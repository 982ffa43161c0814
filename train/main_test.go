package train

import (
	"testing"

	"github.com/gomlx/gomlx/backends"

	"triage/train/traintest"
)

// testBackend is go:ops_sequential (offline, CPU) unless GOMLX_BACKEND is
// set (traintest.Backend).
func testBackend(t testing.TB) backends.Backend { return traintest.Backend(t) }
