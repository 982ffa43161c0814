package corpus

import (
	"errors"
	"runtime"
	"testing"
)

// TestInputChecks: each shared check accepts its valid values and returns
// bad input with the field named for the rest.
func TestInputChecks(t *testing.T) {
	if err := CheckSplit("all", "all"); err != nil {
		t.Errorf("CheckSplit(all): %v", err)
	}
	var ie *InputError
	var fe *FieldError
	err := CheckSplit("dev", "all")
	if err == nil || err.Error() != `Split "dev": want train, val, test, all` || !errors.As(err, &ie) || !errors.As(err, &fe) {
		t.Errorf("CheckSplit(dev): %v", err)
	}
	if n, err := Workers(0); n != runtime.NumCPU() || err != nil {
		t.Errorf("Workers(0) = %d, %v; want one per CPU", n, err)
	}
	if n, err := Workers(3); n != 3 || err != nil {
		t.Errorf("Workers(3) = %d, %v", n, err)
	}
	if _, err := Workers(-1); err == nil || err.Error() != "Workers -1: want ≥ 1, or 0 for one per CPU" {
		t.Errorf("Workers(-1): %v", err)
	}
}
